package output

import (
	"fmt"
	"io"
	"sort"

	"github.com/vulnbench/vulnbench/internal/openvex"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/sarif"
	"github.com/vulnbench/vulnbench/internal/suite"
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
		{"openvex", "OpenVEX: one document, a statement per vex case (status, justification or impact, action), validated", writeOpenVEX},
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

// writeOpenVEX writes the run's vex verdicts as one OpenVEX document, stamped with the run's
// finish (or start) time so the same store always gives the same document.
func writeOpenVEX(w io.Writer, x *report.Export) error {
	var cases []suite.Case
	for _, c := range x.Cases {
		if c.Kind == suite.KindVEX {
			cases = append(cases, *c)
		}
	}
	if len(cases) == 0 {
		return fmt.Errorf("run %s has no vex cases: OpenVEX describes VEX-Bench runs (export --format sarif or jsonl instead)", x.Run.ID)
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].ID < cases[j].ID })
	now := x.Run.Stored.FinishedAt
	if now.IsZero() {
		now = x.Run.Stored.CreatedAt
	}
	doc, err := openvex.Build(cases, x.Verdicts, openvex.Options{RunID: x.Run.ID, Now: now,
		Tooling: fmt.Sprintf("vulnbench %s, subject %s", version.String(), x.Run.Subject),
		Repeats: x.Run.Stored.Repeats, Repeat: x.Repeat, Majority: x.Majority})
	if err != nil {
		return err
	}
	if err := openvex.CheckCISA(doc); err != nil {
		return err
	}
	return doc.ToJSON(w)
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
