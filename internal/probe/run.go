package probe

import (
	"errors"
	"sort"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Report is the probe's table for one run: the suite, the rows per year and in all, and the
// cases left out.
type Report struct {
	Suite    string `json:"suite"`
	Rows     []Row  `json:"rows"`
	TooShort int    `json:"too_short"` // cases whose code could not be cut
	Missing  int    `json:"missing"`   // cases with no answer: not run yet, or an error verdict
}

// FromRun makes the table of a memory-probe run from its cases and its scored verdicts: each
// case is cut again with opts (as the subject cut it), its answer is the verdict's Raw of the
// lowest repeat, and the control pairs answers with the continuations of other answered cases
// by the derangement seeded with seed (see Score).
func FromRun(suiteName string, cases []*suite.Case, verdicts []verdict.Verdict, opts Options, seed uint64) Report {
	answers := map[string]string{}
	repeat := map[string]int{}
	for _, v := range verdicts {
		if v.Status != verdict.OK {
			continue
		}
		if r, ok := repeat[v.CaseID]; ok && r <= v.Repeat {
			continue
		}
		answers[v.CaseID], repeat[v.CaseID] = v.Raw, v.Repeat
	}
	rep := Report{Suite: suiteName}
	var probes []Probe
	sorted := append([]*suite.Case(nil), cases...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	for _, c := range sorted {
		p, err := Cut(c.ID, c.Date, c.Code, opts)
		var short *ErrTooShort
		switch {
		case errors.As(err, &short):
			rep.TooShort++
			continue
		case err != nil:
			continue
		}
		if _, ok := answers[c.ID]; !ok {
			rep.Missing++
			continue
		}
		probes = append(probes, p)
	}
	rep.Rows = Table(Score(probes, answers, seed))
	return rep
}
