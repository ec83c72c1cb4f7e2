package osv

import (
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
)

// Write writes every pair's two cases, in outcome order.
func (res *Result) Write(w *suite.Writer) error {
	for _, o := range res.Outcomes {
		for _, p := range o.Pairs {
			for _, c := range []*suite.Case{p.Vul, p.Ben} {
				if err := w.Write(c); err != nil {
					return fmt.Errorf("write case %s: %w", c.ID, err)
				}
			}
		}
	}
	return nil
}

// The rules a record's pairs may owe themselves to (Report.Saved).
const (
	SavedByReference = "WEB, PACKAGE or ADVISORY reference"
	SavedByEdge      = "one call edge"
	SavedByRange     = "range: only code change"
)

// savedBy names the rules without which the outcome would have given no pair.
func (o *Outcome) savedBy() []string {
	var out []string
	if o.Ref.checked() {
		out = append(out, SavedByReference)
	}
	if strings.HasSuffix(o.Select.Narrowing, oneEdge) {
		out = append(out, SavedByEdge)
	}
	if o.Range != nil && o.Range.Rule == rangeOneCode {
		out = append(out, SavedByRange)
	}
	return out
}

// Report counts what the build gave and lists every record dropped and every function left out.
func (res *Result) Report() Report {
	rep := Report{Records: len(res.Outcomes), Problems: len(res.Problems), ByReason: map[Reason]int{}, Narrowing: map[string]int{},
		Saved: map[string]int{}, Dropped: []Dropped{}, Functions: []Dropped{}}
	for _, o := range res.Outcomes {
		if o.Drop != nil {
			rep.Dropped = append(rep.Dropped, *o.Drop)
			rep.ByReason[o.Drop.Reason]++
			continue
		}
		rep.Functions = append(rep.Functions, o.Left...)
		if len(o.Pairs) > 0 {
			rep.WithPairs++
			for _, rule := range o.savedBy() {
				rep.Saved[rule]++
			}
		}
		rep.Pairs += len(o.Pairs)
		rep.Narrowing[o.Select.Narrowing] += len(o.Pairs)
		for _, p := range o.Pairs {
			if p.Walk != nil {
				if rep.Stops == nil {
					rep.Stops = map[jitvul.Stop]int{}
				}
				rep.Stops[p.Walk.Stop]++
			}
		}
	}
	return rep
}
