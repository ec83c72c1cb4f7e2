package probe

import (
	"errors"
	"sort"
	"strconv"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Report is the probe's table for one run: the suite, the rows per year and in all, the
// prompts answered with a case's own code, the cases left out and the attempts tried again.
type Report struct {
	Suite string `json:"suite"`
	Rule  string `json:"rule"` // how an answer is read (Rule)
	Rows  []Row  `json:"rows"`
	// Memorised are the prompts whose answer continued one of their cases' code, each with
	// every case asked it, by case id.
	Memorised []Memorised `json:"memorised"`
	TooShort  int         `json:"too_short"` // cases whose code could not be cut
	Missing   int         `json:"missing"`   // cases whose prompt has no answer: not run yet, or an error verdict
	Retries   Retries     `json:"retries"`
}

// Memorised is one prompt answered with its case's code.
type Memorised struct {
	Year  string   `json:"year"`
	Cases []string `json:"cases"`
}

// Retries are the tries a run made again: attempts that ended in an error and were tried anew
// (--resume --retry-errors), by reason, and the model calls the model stack retried within an
// attempt (rate limits, server errors: transient faults).
type Retries struct {
	Attempts int            `json:"attempts"`
	Reasons  map[string]int `json:"reasons"`
	Calls    int            `json:"calls"`
}

// RetriesOf counts the retries among every attempt of a run.
func RetriesOf(attempts []verdict.Verdict) Retries {
	r := Retries{Reasons: map[string]int{}}
	last := map[string]int{} // case and repeat -> its last attempt
	key := func(v verdict.Verdict) string { return v.CaseID + "\x00" + strconv.Itoa(v.Repeat) }
	for _, v := range attempts {
		if k := key(v); v.Attempt > last[k] {
			last[k] = v.Attempt
		}
	}
	for _, v := range attempts {
		r.Calls += v.Usage.Retries
		if v.Status == verdict.Error && v.Attempt < last[key(v)] {
			r.Attempts++
			reason := v.Reason
			if reason == "" {
				reason = "(no reason recorded)"
			}
			r.Reasons[reason]++
		}
	}
	return r
}

// Kind names the table among the documents commands write (output.Document): `vulnbench probe
// memory`'s.
func (Report) Kind() string { return "memory probe" }

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
	rep := Report{Suite: suiteName, Rule: Rule, Memorised: []Memorised{}}
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
		p.Lang = c.Language
		probes = append(probes, p)
	}
	res := Score(probes, answers, seed)
	covered := map[string]bool{}
	for _, r := range res {
		for _, id := range r.Cases {
			covered[id] = true
		}
		if r.Memorised {
			rep.Memorised = append(rep.Memorised, Memorised{Year: r.Year, Cases: r.Cases})
		}
	}
	rep.Missing = len(probes) - len(covered)
	rep.Rows = Table(res)
	return rep
}
