// Package openvex presents a stored VEX-Bench run's verdicts as one OpenVEX document (the
// document model is internal/openvex).
package openvex

import (
	"fmt"
	"io"
	"sort"

	vexdoc "github.com/vulnbench/vulnbench/internal/openvex"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/version"
)

// Presenter writes the vex verdicts of a report loaded for export.
type Presenter struct{}

// Name implements output.Presenter.
func (Presenter) Name() string { return "openvex" }

// Presents implements output.Presenter: exports only.
func (Presenter) Presents(d output.Document) bool { return output.IsExport(d) }

// Summary implements output.Summarizer.
func (Presenter) Summary() string {
	return "OpenVEX: one document, a statement per vex case (status, justification or impact, action), validated"
}

// Present writes the run's vex verdicts as one OpenVEX document, stamped with the run's finish
// (or start) time so the same store always gives the same document.
func (Presenter) Present(w io.Writer, d output.Document) error {
	x, err := output.ExportOf(d)
	if err != nil {
		return err
	}
	run, err := x.Run()
	if err != nil {
		return err
	}
	var cases []suite.Case
	for _, c := range run.Export.Cases {
		if c.Kind == suite.KindVEX {
			cases = append(cases, *c)
		}
	}
	if len(cases) == 0 {
		return fmt.Errorf("run %s has no vex cases: OpenVEX describes VEX-Bench runs (export it in another format)", run.ID)
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].ID < cases[j].ID })
	now := run.Stored.FinishedAt
	if now.IsZero() {
		now = run.Stored.CreatedAt
	}
	doc, err := vexdoc.Build(cases, run.Export.Verdicts, vexdoc.Options{RunID: run.ID, Now: now,
		Tooling: fmt.Sprintf("vulnbench %s, subject %s", version.String(), run.Subject),
		Repeats: run.Stored.Repeats, Repeat: run.Export.Repeat, Majority: run.Export.Majority})
	if err != nil {
		return err
	}
	if err := vexdoc.CheckCISA(doc); err != nil {
		return err
	}
	return doc.ToJSON(w)
}
