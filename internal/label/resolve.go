package label

import (
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// How a case's label was settled.
const (
	SettledAdjudicated = "adjudicated" // an adjudicator resolved it
	SettledUnanimous   = "unanimous"   // every annotator who labelled it agrees
	SettledSingle      = "single"      // one annotator labelled it
	SettledMajority    = "majority"    // audit only: a strict majority of the judgements
	SettledDisagreed   = "disagreed"   // the annotators disagree and nobody adjudicated
	SettledUnlabelled  = "unlabelled"  // nobody labelled it yet
)

// Resolution is a case's label as it stands.
type Resolution struct {
	Settled string
	// Value is the category (vex) or the judgement (audit), "" unless settled.
	Value        string
	Alternatives []string
	// Correct is, in an audit judged wrong, what the ground truth should be (when the
	// annotators said so and agree).
	Correct     string
	Adjudicator string
	Reason      string
	// Labels are the current labels it was settled from, by annotator.
	Labels map[string]Answer
}

// Resolved reports whether the case has a label to export.
func (r Resolution) Resolved() bool { return r.Value != "" }

// Resolve settles a case: its latest adjudication, else the annotators' current labels when they
// agree (the alternatives: every other category any of them found acceptable), else, in an
// audit, a strict majority of their judgements.
func (p *Project) Resolve(c *Case) Resolution {
	r := Resolution{Labels: map[string]Answer{}}
	var values []string
	for _, a := range c.Assigned {
		if cur := c.Current(a); cur != nil {
			r.Labels[a] = cur.Answer
			values = append(values, cur.Answer.Value(p.Mode))
		}
	}
	if adj := c.Adjudication(); adj != nil {
		r.Settled, r.Value, r.Adjudicator, r.Reason = SettledAdjudicated, adj.Answer.Value(p.Mode), adj.Annotator, adj.Answer.Reason
		r.Alternatives, r.Correct = adj.Answer.Alternatives, adj.Answer.Correct
		return r
	}
	switch {
	case len(values) == 0:
		r.Settled = SettledUnlabelled
		return r
	case allEqual(values):
		r.Settled, r.Value = SettledUnanimous, values[0]
		if len(values) == 1 {
			r.Settled = SettledSingle
		}
	case p.Mode == ModeAudit:
		counts := map[string]int{}
		for _, v := range values {
			counts[v]++
		}
		for v, n := range counts {
			if 2*n > len(values) {
				r.Settled, r.Value = SettledMajority, v
			}
		}
		if r.Value == "" {
			r.Settled = SettledDisagreed
			return r
		}
	default:
		r.Settled = SettledDisagreed
		return r
	}
	var corrects []string
	for _, a := range r.Labels {
		if a.Value(p.Mode) != r.Value {
			continue
		}
		for _, alt := range a.Alternatives {
			if alt != r.Value && !slices.Contains(r.Alternatives, alt) {
				r.Alternatives = append(r.Alternatives, alt)
			}
		}
		if a.Correct != "" {
			corrects = append(corrects, a.Correct)
		}
	}
	slices.Sort(r.Alternatives)
	if len(corrects) > 0 && allEqual(corrects) {
		r.Correct = corrects[0]
	}
	return r
}

func allEqual(vs []string) bool {
	for _, v := range vs[1:] {
		if v != vs[0] {
			return false
		}
	}
	return len(vs) > 0
}

// Disagreements are the cases whose current labels differ and that no adjudication settled
// yet, in the project's order; with all set, the adjudicated ones too.
func (p *Project) Disagreements(all bool) []*Case {
	var out []*Case
	for _, c := range p.Cases {
		var values []string
		for _, a := range c.Assigned {
			if cur := c.Current(a); cur != nil {
				values = append(values, cur.Answer.Value(p.Mode))
			}
		}
		if len(values) > 1 && !allEqual(values) && (all || c.Adjudication() == nil) {
			out = append(out, c)
		}
	}
	return out
}

// table is the values of the given cases: each labeller's initial (or current) label.
func (p *Project) table(cases []*Case, initial bool, value func(Answer) string) Table {
	t := Table{Raters: p.Labellers()}
	for _, c := range cases {
		row := make([]string, len(t.Raters))
		for j, a := range t.Raters {
			r := c.Current(a)
			if initial {
				r = c.Initial(a)
			}
			if r != nil && c.IsAssigned(a) {
				row[j] = value(r.Answer)
			}
		}
		t.Cases = append(t.Cases, c.ID)
		t.Values = append(t.Values, row)
	}
	return t
}

// categoryOrder is the order a project's values are shown in.
func (p *Project) categoryOrder() []string {
	if p.Mode == ModeAudit {
		return Judgements
	}
	return append(slices.Clone(EvaluatedCategories), OtherCategories()...)
}

// statusOf is a vex answer's status (exploitable or not).
func statusOf(a Answer) string {
	if a.Category == "" {
		return ""
	}
	return suite.VEXStatus(a.Category)
}

// valueOf is an answer's value in the project's mode.
func (p *Project) valueOf(a Answer) string { return a.Value(p.Mode) }

func joinNames(ns []string) string { return strings.Join(ns, ", ") }
