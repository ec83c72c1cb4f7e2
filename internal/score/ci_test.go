package score

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func ciCases(projects int) []Case {
	var cs []Case
	for i := 0; i < 24; i++ {
		p := ""
		if projects > 0 {
			p = fmt.Sprintf("p%d", i%projects)
		}
		pair := int32(i/2) + 1
		label := suite.Vul
		if i%2 == 1 {
			label = suite.Ben
		}
		cs = append(cs, Case{ID: fmt.Sprint(i), Vul: label == suite.Vul, Pair: pair, Meta: &Meta{Project: p}})
	}
	return cs
}

func TestUnitsOf(t *testing.T) {
	tests := []struct {
		projects int
		by       string
		n        int
	}{{0, ByPair, 12}, {3, ByPair, 12}, {12, ByProject, 12}}
	for _, tt := range tests {
		u := UnitsOf(ciCases(tt.projects))
		if u.By != tt.by || u.N != tt.n {
			t.Errorf("projects %d: by %s n %d, want %s %d", tt.projects, u.By, u.N, tt.by, tt.n)
		}
	}
	u := UnitsOf([]Case{{ID: "a"}, {ID: "b"}})
	if u.By != ByCase || u.N != 2 {
		t.Errorf("no pairs: %+v", u)
	}
}

func ciAnswers(cs []Case, wrongEvery int) []Answer {
	as := make([]Answer, len(cs))
	for i, c := range cs {
		l := c.Label()
		if wrongEvery > 0 && i%wrongEvery == 0 {
			l = l.Opposite()
		}
		as[i] = AnswerOf(verdict.Verdict{Status: verdict.OK, Label: l})
	}
	return as
}

func TestTalliesMatchCompute(t *testing.T) {
	cs := ciCases(12)
	as := ciAnswers(cs, 3)
	as[5] = Answer{} // missing
	as[7] = AnswerOf(verdict.Verdict{Status: verdict.Failed})
	for _, opt := range []Options{{}, {UnparsedAs: UnparsedBen}} {
		r := Compute(cs, as, opt)
		u := UnitsOf(cs)
		s := sum(u.Tallies(cs, as, opt), ones(u.N))
		got := []float64{s.F1(), s.Accuracy(), s.PAcc(), float64(s.Pairs)}
		want := []float64{r.Binary.F1, r.Binary.Accuracy, r.Pairwise.PAcc, float64(r.Pairwise.Pairs)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%+v (-Compute +tallies):\n%s", opt, diff)
		}
	}
}

func TestIntervals(t *testing.T) {
	cs := ciCases(12)
	as := ciAnswers(cs, 5)
	a := Intervals(cs, as, Options{}, CIOptions{Resamples: 300, Seed: 4})
	b := Intervals(cs, as, Options{}, CIOptions{Resamples: 300, Seed: 4})
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different intervals:\n%s", diff)
	}
	r := Compute(cs, as, Options{})
	if a.PAcc == nil || !(a.F1[0] <= r.Binary.F1 && r.Binary.F1 <= a.F1[1]) || !(a.PAcc[0] <= r.Pairwise.PAcc && r.Pairwise.PAcc <= a.PAcc[1]) {
		t.Errorf("intervals %+v do not hold the point estimates", a)
	}
	if a.By != ByProject || a.Units != 12 || a.Resamples != 300 {
		t.Errorf("ci: %+v", a)
	}
	// A perfect subject: every resample scores 1.
	p := Intervals(cs, ciAnswers(cs, 0), Options{}, CIOptions{Resamples: 50})
	if p.F1 != [2]float64{1, 1} || *p.PAcc != [2]float64{1, 1} {
		t.Errorf("perfect subject: %+v", p)
	}
	if got := resamples(1000, 1_000_000); got != 200 {
		t.Errorf("resamples over 1M units = %d, want 200", got)
	}
}

func TestPairedDeltas(t *testing.T) {
	cs := ciCases(0)
	a, b := ciAnswers(cs, 0), ciAnswers(cs, 2) // b gets every vul case wrong
	d, err := PairedDeltas(cs, a, b, Options{}, CIOptions{Resamples: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// A: F1 1, pAcc 1. B: TP 0 -> F1 0; pAcc 0. Every resample gives the same differences.
	if d.F1.Value != 1 || d.F1.CI != [2]float64{1, 1} || d.PAcc.Value != 1 || d.Accuracy.Value != 0.5 {
		t.Errorf("deltas: %+v", d)
	}
	same, _ := PairedDeltas(cs, a, a, Options{}, CIOptions{Resamples: 50})
	if same.F1.CI != [2]float64{0, 0} {
		t.Errorf("a subject against itself: %+v", same.F1)
	}
}
