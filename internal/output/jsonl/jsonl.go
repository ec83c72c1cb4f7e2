// Package jsonl presents a stored run's verdicts as predictions JSONL, as run --out writes it
// (score --predictions reads it).
package jsonl

import (
	"io"

	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Presenter writes the verdicts of a report loaded for export.
type Presenter struct{}

// Name implements output.Presenter.
func (Presenter) Name() string { return "jsonl" }

// Presents implements output.Presenter: exports only.
func (Presenter) Presents(d output.Document) bool { return output.IsExport(d) }

// Summary implements output.Summarizer.
func (Presenter) Summary() string {
	return "predictions JSONL, as run --out writes (score --predictions reads it)"
}

// Present implements output.Presenter.
func (Presenter) Present(w io.Writer, d output.Document) error {
	x, err := output.ExportOf(d)
	if err != nil {
		return err
	}
	run, err := x.Run()
	if err != nil {
		return err
	}
	return verdict.WriteJSONL(w, run.Export.Verdicts)
}
