package label

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Annotation is what a labelled case keeps of its labelling, in meta.annotation.
type Annotation struct {
	Project     string            `json:"project"`
	Raters      []string          `json:"raters"`
	Labels      map[string]string `json:"labels"`  // each rater's current value
	Initial     map[string]string `json:"initial"` // each rater's first value
	Settled     string            `json:"settled"` // Resolution.Settled
	Adjudicated bool              `json:"adjudicated"`
	Adjudicator string            `json:"adjudicator,omitempty"`
	Reason      string            `json:"reason,omitempty"`
	Calibration bool              `json:"calibration,omitempty"`
	// Agreement is the project's Fleiss' kappa of first labels when the case was exported.
	Agreement *float64 `json:"project_fleiss_kappa,omitempty"`
	Version   string   `json:"label_version"`
	// Audit: the judgement and, for a wrong ground truth, what it should be.
	Judgement string `json:"judgement,omitempty"`
	Correct   string `json:"correct,omitempty"`
}

// ExportReport says what Export wrote and left out.
type ExportReport struct {
	Written    int
	Unresolved []string // cases left out: disagreed or unlabelled
}

// Export writes the labelled suite: in vex mode every settled case with its ground truth the
// settled category (label vul for vulnerable, else ben), the other acceptable categories in
// vex.alternatives and meta.annotation; in audit mode the sampled cases as they are, with
// meta.annotation holding the judgement. Unsettled cases are refused (their ids in the error)
// unless partial, which leaves them out.
func (p *Project) Export(w io.Writer, partial bool) (ExportReport, error) {
	var rep ExportReport
	kappa := Fleiss(p.table(p.Cases, true, p.valueOf)).Value
	var out []*suite.Case
	for _, c := range p.Cases {
		res := p.Resolve(c)
		if !res.Resolved() || (p.Mode == ModeVEX && !suite.ValidVEXCategory(res.Value)) {
			rep.Unresolved = append(rep.Unresolved, c.ID+" ("+res.Settled+")")
			continue
		}
		x := *c.Case
		x.Meta = cloneMeta(c.Meta)
		ann := Annotation{Project: p.ID, Labels: map[string]string{}, Initial: map[string]string{}, Settled: res.Settled,
			Adjudicated: res.Settled == SettledAdjudicated, Adjudicator: res.Adjudicator, Reason: res.Reason,
			Calibration: c.Calibration, Agreement: kappa, Version: Version}
		for _, a := range c.Assigned {
			if cur := c.Current(a); cur != nil {
				ann.Raters = append(ann.Raters, a)
				ann.Labels[a] = cur.Answer.Value(p.Mode)
				ann.Initial[a] = c.Initial(a).Answer.Value(p.Mode)
			}
		}
		if p.Mode == ModeVEX {
			v := suite.VEX{Category: res.Value, Alternatives: res.Alternatives}
			if c.VEX != nil {
				v.Package, v.Ecosystem, v.Advisory = c.VEX.Package, c.VEX.Ecosystem, c.VEX.Advisory
			}
			x.VEX = &v
			x.Label = suite.Ben
			if res.Value == suite.VEXVulnerable {
				x.Label = suite.Vul
			}
		} else {
			ann.Judgement, ann.Correct = res.Value, res.Correct
		}
		x.Meta["annotation"] = ann
		if err := x.Check(); err != nil {
			return rep, fmt.Errorf("case %s as labelled: %w", c.ID, err)
		}
		out = append(out, &x)
	}
	if len(rep.Unresolved) > 0 && !partial {
		return rep, fmt.Errorf("%d of %d cases are not settled (adjudicate their disagreements, or export the settled ones with --partial): %s",
			len(rep.Unresolved), len(p.Cases), firstFew(rep.Unresolved, 10))
	}
	sw := suite.NewWriter(w)
	for _, c := range out {
		if err := sw.Write(c); err != nil {
			return rep, err
		}
	}
	rep.Written = len(out)
	return rep, sw.Flush()
}

func cloneMeta(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func firstFew(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
}

// WriteRows writes every label row of the project as JSONL, in the order they were written: the
// whole history (each row's id, and the id of the row it revises).
func (p *Project) WriteRows(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range p.Rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// importRow is one line of an import: a label (or an adjudication) made elsewhere.
type importRow struct {
	Case      string `json:"case"`
	Annotator string `json:"annotator"`
	Kind      string `json:"kind"`
	Answer    Answer `json:"answer"`
	// The fields label export --rows writes besides, ignored (the store numbers and dates rows).
	ID       int64           `json:"id"`
	At       json.RawMessage `json:"at"`
	Previous int64           `json:"previous"`
	Source   string          `json:"source"`
}

// Import appends label rows read from r (JSONL: case, annotator, kind (label by default) and
// answer, as label export --rows writes them) through the checks a label from the viewer
// passes: the annotator labels the case (an adjudication is an adjudicator's), after the
// calibration set, a complete answer. Each row follows the annotator's latest row of the case.
// Any problem (FILE:LINE) and nothing is written; all rows are written in one transaction.
func (p *Project) Import(ctx context.Context, st Store, r io.Reader, file string, rd *lineerr.Reading) (int, []error, error) {
	var rows []store.LabelRow
	probs := &suite.Problems{File: file}
	// What the rows before a line did, so that the calibration rule sees them.
	done := map[string]bool{}
	calDone := func(annotator string) bool {
		for _, c := range p.Cases {
			if c.Calibration && c.IsAssigned(annotator) && c.Current(annotator) == nil && !done[c.ID+"\x00"+annotator] {
				return false
			}
		}
		return true
	}
	_, err := suite.Records(r, file, rd, probs, func(b []byte, line int) error {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var x importRow
		if err := dec.Decode(&x); err != nil {
			return &lineerr.Error{File: file, Line: line, Err: suite.DescribeJSONError(b, err, "label row")}
		}
		if x.Kind == "" {
			x.Kind = KindLabel
		}
		fail := func(format string, args ...any) error {
			return &lineerr.Error{File: file, Line: line, Err: fmt.Errorf(format, args...)}
		}
		c := p.byCase[x.Case]
		who, ok := p.Annotator(x.Annotator)
		switch {
		case c == nil:
			return fail("case %q is not in project %s", x.Case, p.ID)
		case !ok:
			return fail("annotator %q is not in project %s", x.Annotator, p.ID)
		case x.Kind != KindLabel && x.Kind != KindAdjudication:
			return fail("kind %q is not label or adjudication", x.Kind)
		case x.Kind == KindLabel && !c.IsAssigned(x.Annotator):
			return fail("%s: %v", x.Annotator, ErrNotAssigned)
		case x.Kind == KindLabel && !c.Calibration && !calDone(x.Annotator):
			return fail("%s: %v", x.Annotator, ErrCalibration)
		case x.Kind == KindAdjudication && !who.Adjudicator:
			return fail("%s: %v", x.Annotator, ErrNotAdjudicator)
		}
		if err := check(p.Mode, x.Kind, c.Case, &x.Answer); err != nil {
			return fail("%v: %v", ErrInvalid, err)
		}
		ab, err := json.Marshal(x.Answer)
		if err != nil {
			return err
		}
		done[c.ID+"\x00"+x.Annotator] = true
		rows = append(rows, store.LabelRow{Case: x.Case, Annotator: x.Annotator, Kind: x.Kind, Answer: ab, Previous: store.AppendAfterLatest, Source: "import"})
		return nil
	})
	if err != nil {
		return 0, probs.List(), err
	}
	if list := probs.List(); len(list) > 0 {
		return 0, list, nil
	}
	if len(rows) == 0 {
		return 0, nil, errors.New(file + " holds no label row")
	}
	written, err := st.AppendLabels(ctx, p.ID, rows)
	if err != nil {
		return 0, nil, err
	}
	for _, w := range written {
		var a Answer
		_ = json.Unmarshal(w.Answer, &a)
		p.add(Row{ID: w.ID, Case: w.Case, Annotator: w.Annotator, Kind: w.Kind, At: w.At, Answer: a, Previous: w.Previous, Source: w.Source})
	}
	return len(written), nil, nil
}
