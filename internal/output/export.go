package output

import (
	"fmt"
	"io"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/sarif"
	"github.com/vulnbench/vulnbench/internal/verdict"
	"github.com/vulnbench/vulnbench/internal/version"
)

// Exporter writes one stored run's verdicts in a format other tools read.
type Exporter struct {
	Name    string
	Summary string
	Write   func(w io.Writer, x *report.Export) error
}

// Exporters is the explicit list of export formats: a format is one entry.
func Exporters() []Exporter {
	return []Exporter{
		{"sarif", "SARIF 2.1.0: findings with locations, CWEs as taxa and rule tags, the explanation as message", writeSARIF},
		{"jsonl", "predictions JSONL, as run --out writes (score --predictions reads it)", writeJSONL},
	}
}

// ExportFormats are the names of the export formats, in order.
func ExportFormats() []string {
	var ns []string
	for _, e := range Exporters() {
		ns = append(ns, e.Name)
	}
	return ns
}

// LookupExporter finds an export format by name.
func LookupExporter(name string) (Exporter, bool) {
	for _, e := range Exporters() {
		if e.Name == name {
			return e, true
		}
	}
	return Exporter{}, false
}

func writeSARIF(w io.Writer, x *report.Export) error {
	meta := sarif.RunMeta{Vulnbench: version.String(), RunID: x.Run.ID, Subject: x.Run.Subject, Model: x.Run.Model, Prompt: x.Prompt}
	if m := x.Run.Manifest; m != nil {
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
	if err := sarif.Write(w, meta, x.Cases, x.Verdicts); err != nil {
		return fmt.Errorf("export run %s: %w", x.Run.ID, err)
	}
	return nil
}

func writeJSONL(w io.Writer, x *report.Export) error {
	return verdict.WriteJSONL(w, x.Verdicts)
}
