// Package sarif presents a stored run's findings as SARIF 2.1.0 (the document model is
// internal/sarif).
package sarif

import (
	"fmt"
	"io"

	"github.com/vulnbench/vulnbench/internal/output"
	sarifdoc "github.com/vulnbench/vulnbench/internal/sarif"
	"github.com/vulnbench/vulnbench/internal/version"
)

// Presenter writes the verdicts of a report loaded for export as one SARIF log.
type Presenter struct{}

// Name implements output.Presenter.
func (Presenter) Name() string { return "sarif" }

// Presents implements output.Presenter: exports only.
func (Presenter) Presents(d output.Document) bool { return output.IsExport(d) }

// Summary implements output.Summarizer.
func (Presenter) Summary() string {
	return "SARIF 2.1.0: findings with locations, CWEs as taxa and rule tags, the explanation as message"
}

// Present implements output.Presenter.
func (Presenter) Present(w io.Writer, d output.Document) error {
	doc, err := output.ExportOf(d)
	if err != nil {
		return err
	}
	run, err := doc.Run()
	if err != nil {
		return err
	}
	x := run.Export
	meta := sarifdoc.RunMeta{Vulnbench: version.String(), RunID: run.ID, Subject: run.Subject, Model: run.Model, Prompt: x.Prompt}
	if m := run.Manifest; m != nil {
		meta.Extra = map[string]any{}
		if m.SubjectVersion != "" {
			meta.Extra["subject_version"] = m.SubjectVersion
		}
		if len(m.Describe) > 0 {
			meta.Extra["subject_describe"] = m.Describe
		}
		if m.Version != "" {
			meta.Extra["run_vulnbench"] = m.Version // the vulnbench that ran it
		}
	}
	if err := sarifdoc.Write(w, meta, x.Cases, x.Verdicts); err != nil {
		return fmt.Errorf("export run %s: %w", run.ID, err)
	}
	return nil
}
