package label

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Report is what `label report` prints: the figures VEX-Bench's §3.2 and PrimeVul's Table I
// give of their labelling.
type Report struct {
	Project     string              `json:"project"`
	Mode        string              `json:"mode"`
	Suite       string              `json:"suite"`
	Cases       int                 `json:"cases"`
	Calibration int                 `json:"calibration_cases"`
	Overlap     int                 `json:"overlap"`
	Annotators  []AnnotatorProgress `json:"annotators"`
	Labels      int                 `json:"label_rows"`
	// Initial is the agreement of the annotators' first labels (the paper's initial Fleiss'
	// kappa), Current of their latest; CalibrationAgreement of the first labels of the
	// calibration set, once every annotator labelled all of it (else nil).
	Initial              *Agreement `json:"initial"`
	Current              *Agreement `json:"current"`
	CalibrationAgreement *Agreement `json:"calibration,omitempty"`
	// Confirmed is the share of first labels that the case's settled label confirmed without
	// revision (the paper's 88.3 %), over the settled cases; Revised counts labels their
	// annotator changed.
	Confirmed Share `json:"confirmed_without_revision"`
	Revised   int   `json:"revised_labels"`
	// Settled counts the cases by how their label stands (Resolution.Settled).
	Settled      map[string]int `json:"settled"`
	Distribution map[string]int `json:"distribution"` // the settled values
	Audit        *AuditFigures  `json:"audit,omitempty"`
	Version      string         `json:"label_version"`
}

// AnnotatorProgress is one annotator's share of the work.
type AnnotatorProgress struct {
	Name          string `json:"name"`
	Adjudicator   bool   `json:"adjudicator"`
	Assigned      int    `json:"assigned"`
	Labelled      int    `json:"labelled"`
	Revised       int    `json:"revised"`
	Adjudications int    `json:"adjudications"`
}

// Share is Of's part that is Count.
type Share struct {
	Count int     `json:"count"`
	Of    int     `json:"of"`
	Share float64 `json:"share"`
}

// Agreement is a set of labels' agreement: Fleiss' kappa over all raters (of the value, and in
// vex mode of the status too), Cohen's per pair, per category, and the raters' confusion.
type Agreement struct {
	Cases       int                 `json:"cases"`
	Fleiss      Kappa               `json:"fleiss"`
	Status      *Kappa              `json:"status_fleiss,omitempty"`
	Cohen       []PairKappa         `json:"cohen"`
	PerCategory []CategoryAgreement `json:"per_category"`
	Confusion   Confusion           `json:"confusion"`
}

// PairKappa is Cohen's kappa of two annotators.
type PairKappa struct {
	A, B string `json:"-"`
	Pair string `json:"pair"`
	Kappa
}

// AuditFigures are an audit's label accuracy: of the cases whose judgement is settled right or
// wrong, the share right, with its Wilson interval; and each annotator's own.
type AuditFigures struct {
	Right, Wrong, Unsure, Unsettled int
	Accuracy                        float64             `json:"accuracy"`
	CI                              [2]float64          `json:"ci"`
	PerAnnotator                    []AnnotatorAccuracy `json:"per_annotator"`
	Corrections                     map[string]int      `json:"corrections,omitempty"` // what the wrong ground truths should be
}

// AnnotatorAccuracy is the accuracy one annotator's judgements give.
type AnnotatorAccuracy struct {
	Name     string     `json:"name"`
	Right    int        `json:"right"`
	Wrong    int        `json:"wrong"`
	Accuracy float64    `json:"accuracy"`
	CI       [2]float64 `json:"ci"`
}

// BuildReport computes the project's figures.
func (p *Project) BuildReport() *Report {
	r := &Report{Project: p.ID, Mode: p.Mode, Suite: p.SuitePath, Cases: len(p.Cases), Overlap: p.Config.Overlap,
		Settled: map[string]int{}, Distribution: map[string]int{}, Version: Version}
	for _, c := range p.Cases {
		if c.Calibration {
			r.Calibration++
		}
	}
	for _, a := range p.Annotators {
		ap := AnnotatorProgress{Name: a.Name, Adjudicator: a.Adjudicator}
		for _, c := range p.Cases {
			if c.IsAssigned(a.Name) {
				ap.Assigned++
			}
			if rs := c.Labels[a.Name]; len(rs) > 0 {
				ap.Labelled++
				if rs[0].Answer.Value(p.Mode) != rs[len(rs)-1].Answer.Value(p.Mode) {
					ap.Revised++
				}
			}
			for _, adj := range c.Adjudications {
				if adj.Annotator == a.Name {
					ap.Adjudications++
				}
			}
		}
		r.Revised += ap.Revised
		r.Annotators = append(r.Annotators, ap)
	}
	for _, row := range p.Rows {
		if row.Kind == KindLabel {
			r.Labels++
		}
	}
	r.Initial = p.agreement(p.Cases, true)
	r.Current = p.agreement(p.Cases, false)
	if p.Config.Calibration > 0 && p.CalibrationComplete() {
		var cal []*Case
		for _, c := range p.Cases {
			if c.Calibration {
				cal = append(cal, c)
			}
		}
		r.CalibrationAgreement = p.agreement(cal, true)
	}
	for _, c := range p.Cases {
		res := p.Resolve(c)
		r.Settled[res.Settled]++
		if !res.Resolved() {
			continue
		}
		r.Distribution[res.Value]++
		for _, a := range c.Assigned {
			if first := c.Initial(a); first != nil {
				r.Confirmed.Of++
				if first.Answer.Value(p.Mode) == res.Value {
					r.Confirmed.Count++
				}
			}
		}
	}
	if r.Confirmed.Of > 0 {
		r.Confirmed.Share = float64(r.Confirmed.Count) / float64(r.Confirmed.Of)
	}
	if p.Mode == ModeAudit {
		r.Audit = p.audit()
	}
	return r
}

// agreement is the agreement of the initial (or current) labels of cases.
func (p *Project) agreement(cases []*Case, initial bool) *Agreement {
	t := p.table(cases, initial, p.valueOf)
	ag := &Agreement{Fleiss: Fleiss(t), PerCategory: PerCategory(t, p.categoryOrder()), Confusion: RaterConfusion(t, p.categoryOrder())}
	ag.Cases = ag.Fleiss.Cases
	if p.Mode == ModeVEX {
		st := Fleiss(p.table(cases, initial, statusOf))
		ag.Status = &st
	}
	for a := 0; a < len(t.Raters); a++ {
		for b := a + 1; b < len(t.Raters); b++ {
			k := Cohen(t, a, b)
			if k.Cases > 0 {
				ag.Cohen = append(ag.Cohen, PairKappa{A: t.Raters[a], B: t.Raters[b], Pair: t.Raters[a] + "/" + t.Raters[b], Kappa: k})
			}
		}
	}
	return ag
}

func (p *Project) audit() *AuditFigures {
	f := &AuditFigures{Corrections: map[string]int{}}
	per := map[string]*AnnotatorAccuracy{}
	for _, c := range p.Cases {
		res := p.Resolve(c)
		switch res.Value {
		case Right:
			f.Right++
		case Wrong:
			f.Wrong++
			if res.Correct != "" {
				f.Corrections[res.Correct]++
			}
		case Unsure:
			f.Unsure++
		default:
			f.Unsettled++
		}
		for _, a := range c.Assigned {
			cur := c.Current(a)
			if cur == nil {
				continue
			}
			x := per[a]
			if x == nil {
				x = &AnnotatorAccuracy{Name: a}
				per[a] = x
			}
			switch cur.Answer.Judgement {
			case Right:
				x.Right++
			case Wrong:
				x.Wrong++
			}
		}
	}
	if n := f.Right + f.Wrong; n > 0 {
		f.Accuracy = float64(f.Right) / float64(n)
	}
	f.CI = Wilson(f.Right, f.Right+f.Wrong)
	for _, a := range p.Labellers() {
		if x := per[a]; x != nil {
			if n := x.Right + x.Wrong; n > 0 {
				x.Accuracy = float64(x.Right) / float64(n)
			}
			x.CI = Wilson(x.Right, x.Right+x.Wrong)
			f.PerAnnotator = append(f.PerAnnotator, *x)
		}
	}
	return f
}

// Kind names the report as a document of the output registry (its json is the report itself).
func (r *Report) Kind() string { return "labelling report" }

// WriteText writes the report as text: its Markdown, which reads as plain text.
func (r *Report) WriteText(w io.Writer) error { return r.WriteMarkdown(w) }

// WriteMarkdown writes the report as Markdown (text is the same, read as plain text).
func (r *Report) WriteMarkdown(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# Labelling project %s\n\n", r.Project)
	fmt.Fprintf(b, "%s mode over %s: %d cases (%d calibration, overlap %d), %d label rows.\n\n", r.Mode, r.Suite, r.Cases, r.Calibration, r.Overlap, r.Labels)
	b.WriteString("| annotator | assigned | labelled | revised | adjudications |\n|---|---|---|---|---|\n")
	for _, a := range r.Annotators {
		name := a.Name
		if a.Adjudicator {
			name += " (adjudicator)"
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d |\n", name, a.Assigned, a.Labelled, a.Revised, a.Adjudications)
	}
	b.WriteString("\n## Agreement\n\n")
	b.WriteString("| labels | cases | Fleiss' kappa | 95 % CI | observed | chance |")
	if r.Mode == ModeVEX {
		b.WriteString(" status kappa |")
	}
	b.WriteString("\n|---|---|---|---|---|---|")
	if r.Mode == ModeVEX {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, x := range []struct {
		name string
		ag   *Agreement
	}{{"initial", r.Initial}, {"current", r.Current}, {"calibration (initial)", r.CalibrationAgreement}} {
		if x.ag == nil {
			if x.name == "calibration (initial)" && r.Calibration > 0 {
				fmt.Fprintf(b, "| %s | shown once every annotator labelled every calibration case | | | | |\n", x.name)
			}
			continue
		}
		fmt.Fprintf(b, "| %s | %d | %s | %s | %.3f | %.3f |", x.name, x.ag.Cases, kappaText(x.ag.Fleiss.Value), ciText(x.ag.Fleiss.CI), x.ag.Fleiss.Observed, x.ag.Fleiss.Expected)
		if x.ag.Status != nil {
			fmt.Fprintf(b, " %s |", kappaText(x.ag.Status.Value))
		}
		b.WriteString("\n")
	}
	if ag := r.Initial; ag != nil && len(ag.Cohen) > 0 {
		b.WriteString("\nCohen's kappa per pair (initial labels):\n\n| pair | cases | kappa | 95 % CI | observed | chance |\n|---|---|---|---|---|---|\n")
		for _, k := range ag.Cohen {
			fmt.Fprintf(b, "| %s | %d | %s | %s | %.3f | %.3f |\n", k.Pair, k.Cases, kappaText(k.Value), ciText(k.CI), k.Observed, k.Expected)
		}
	}
	if ag := r.Initial; ag != nil && len(ag.PerCategory) > 0 {
		b.WriteString("\nPer category (initial labels):\n\n| category | ratings | kappa | specific agreement |\n|---|---|---|---|\n")
		for _, c := range ag.PerCategory {
			fmt.Fprintf(b, "| %s | %d | %s | %.3f |\n", c.Category, c.Ratings, kappaText(c.Kappa), c.Specific)
		}
		b.WriteString("\nThe raters' confusion (initial labels; each ordered pair of two raters of a case):\n\n")
		writeConfusion(b, ag.Confusion)
	}
	fmt.Fprintf(b, "\n## Settled\n\n%d of %d first labels confirmed without revision (%.1f %%); %d labels revised.\n\n",
		r.Confirmed.Count, r.Confirmed.Of, 100*r.Confirmed.Share, r.Revised)
	b.WriteString("| settled | cases |\n|---|---|\n")
	for _, k := range []string{SettledAdjudicated, SettledUnanimous, SettledMajority, SettledSingle, SettledDisagreed, SettledUnlabelled} {
		if n := r.Settled[k]; n > 0 {
			fmt.Fprintf(b, "| %s | %d |\n", k, n)
		}
	}
	if len(r.Distribution) > 0 {
		b.WriteString("\n| label | cases |\n|---|---|\n")
		keys := make([]string, 0, len(r.Distribution))
		for k := range r.Distribution {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(b, "| %s | %d |\n", k, r.Distribution[k])
		}
	}
	if a := r.Audit; a != nil {
		fmt.Fprintf(b, "\n## Label accuracy\n\n%d right, %d wrong, %d unsure, %d unsettled: accuracy %.1f %% (95 %% Wilson interval %.1f-%.1f %%).\n\n",
			a.Right, a.Wrong, a.Unsure, a.Unsettled, 100*a.Accuracy, 100*a.CI[0], 100*a.CI[1])
		b.WriteString("| annotator | right | wrong | accuracy | 95 % CI |\n|---|---|---|---|---|\n")
		for _, x := range a.PerAnnotator {
			fmt.Fprintf(b, "| %s | %d | %d | %.1f %% | %.1f-%.1f %% |\n", x.Name, x.Right, x.Wrong, 100*x.Accuracy, 100*x.CI[0], 100*x.CI[1])
		}
	}
	fmt.Fprintf(b, "\nlabel version %s; intervals: %d bootstrap resamples of the cases (seed %d), Wilson's for shares.\n", r.Version, Resamples, Seed)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeConfusion(b *strings.Builder, c Confusion) {
	b.WriteString("| |")
	for _, l := range c.Labels {
		b.WriteString(" " + l + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(c.Labels)) + "\n")
	for i, l := range c.Labels {
		b.WriteString("| " + l + " |")
		for j := range c.Labels {
			fmt.Fprintf(b, " %d |", c.Matrix[i][j])
		}
		b.WriteString("\n")
	}
}

func kappaText(v *float64) string {
	if v == nil {
		return "undefined"
	}
	return fmt.Sprintf("%.3f", *v)
}

func ciText(ci *[2]float64) string {
	if ci == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f-%.3f", ci[0], ci[1])
}
