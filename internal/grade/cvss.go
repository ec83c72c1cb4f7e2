package grade

import (
	"math"
	"strings"

	"github.com/vulnbench/vulnbench/internal/cvss"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// CVSSDistance is how far an answer's CVSS 3.1 vector is from the record's.
type CVSSDistance struct {
	Missing     bool    // the answer gave no vector
	Invalid     bool    // the answer's vector does not parse (verdict.AppSec.CVSSError)
	FieldsWrong int     // of the eight base metrics (AV, AC, PR, UI, S, C, I, A)
	ScoreError  float64 // |answer's base score - record's|
}

// baseMetrics are the eight CVSS 3.1 base metrics.
func baseMetrics() []string { return []string{"AV", "AC", "PR", "UI", "S", "C", "I", "A"} }

// Distance compares an answer's vector with the record's expected one. A vector that does not
// parse is Invalid whether or not the subject flagged it.
func Distance(expected string, a *verdict.AppSec) *CVSSDistance {
	if a == nil || strings.TrimSpace(a.CVSSVector) == "" {
		return &CVSSDistance{Missing: true}
	}
	got := strings.TrimSpace(a.CVSSVector)
	gotScore, err := cvss.Score(got)
	if err != nil {
		return &CVSSDistance{Invalid: true}
	}
	wantScore, err := cvss.Score(expected)
	if err != nil {
		return nil // the record's own vector is checked by suite validate
	}
	gm, wm := metrics(got), metrics(expected)
	d := &CVSSDistance{ScoreError: math.Abs(gotScore - wantScore)}
	for _, m := range baseMetrics() {
		if gm[m] != wm[m] {
			d.FieldsWrong++
		}
	}
	return d
}

// metrics splits a vector into its metrics: "CVSS:3.1/AV:N/..." → {AV: N, ...}.
func metrics(v string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(v, "/") {
		if k, val, ok := strings.Cut(part, ":"); ok && k != "CVSS" {
			out[k] = val
		}
	}
	return out
}

type cvssSum struct {
	n, invalid, missing, exact int
	fields, err                float64
	any                        bool
}

func (c *cvssSum) add(d *CVSSDistance) {
	if d == nil {
		return
	}
	c.any = true
	switch {
	case d.Missing:
		c.missing++
	case d.Invalid:
		c.invalid++
	default:
		c.n++
		c.fields += float64(d.FieldsWrong)
		c.err += d.ScoreError
		if d.FieldsWrong == 0 {
			c.exact++
		}
	}
}

func (c *cvssSum) score() *score.CVSSScore {
	if !c.any {
		return nil
	}
	s := &score.CVSSScore{N: c.n, Invalid: c.invalid, Missing: c.missing}
	if c.n > 0 {
		s.FieldsWrong = c.fields / float64(c.n)
		s.ScoreMAE = c.err / float64(c.n)
		s.Exact = float64(c.exact) / float64(c.n)
	}
	return s
}
