package probe

import (
	"errors"
	"fmt"
	"io"
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

// Kind names the table among the documents commands write (output.Document): `vulnbench probe
// memory`'s.
func (Report) Kind() string { return "memory probe" }

// WriteMarkdown writes the table per year as Markdown, and the cases left out.
func (rep Report) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "Memorisation probe: %s\n\n| year | cases | memorised | control |\n|---|---:|---:|---:|\n", rep.Suite)
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "| %s | %d | %d (%.1f%%) | %d (%.1f%%) |\n", r.Year, r.Cases, r.Memorised, 100*r.Share, r.Control, 100*r.ControlShare)
	}
	return rep.leftOut(w)
}

// WriteText writes the table per year as aligned text, and the cases left out.
func (rep Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "memorisation probe: %s\n%-8s %6s %16s %16s\n", rep.Suite, "year", "cases", "memorised", "control")
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "%-8s %6d %8d %6.1f%% %8d %6.1f%%\n", r.Year, r.Cases, r.Memorised, 100*r.Share, r.Control, 100*r.ControlShare)
	}
	return rep.leftOut(w)
}

func (rep Report) leftOut(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%d cases too short to cut, %d without an answer\n", rep.TooShort, rep.Missing)
	return err
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
