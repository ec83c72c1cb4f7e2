package output

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Export is a stored run loaded for export (report.LoadExport): its cases and whole verdicts,
// the document `vulnbench export` writes. The export formats (sarif, jsonl, openvex) write it
// their way; a general format writes its verdicts, a row each.
type Export struct{ Report *report.Report }

// Kind implements Document.
func (Export) Kind() string { return "export" }

// Run is the one run of the export.
func (e Export) Run() (*report.Run, error) { return ExportRun(e.Report) }

// IsExport reports whether d is an export: what the export formats write.
func IsExport(d Document) bool {
	switch d.(type) {
	case Export, *Export:
		return true
	}
	return false
}

// ExportOf is the export d holds.
func ExportOf(d Document) (Export, error) {
	switch x := d.(type) {
	case Export:
		return x, nil
	case *Export:
		if x != nil {
			return *x, nil
		}
	}
	return Export{}, fmt.Errorf("an export format writes a run loaded for export, not a %s document", d.Kind())
}

// ExportRun is the one run of a report loaded for export (report.LoadExport), which export
// presenters (internal/output/sarif, openvex, jsonl) write.
func ExportRun(rep *report.Report) (*report.Run, error) {
	if rep == nil || len(rep.Runs) != 1 || rep.Runs[0].Export == nil {
		return nil, fmt.Errorf("an export writes one run loaded for export (report.LoadExport)")
	}
	return rep.Runs[0], nil
}

// JSONValue implements JSONValue: the run, its subject and model, and its verdicts.
func (e Export) JSONValue() (any, error) {
	run, err := e.Run()
	if err != nil {
		return nil, err
	}
	return struct {
		Run      string            `json:"run"`
		Subject  string            `json:"subject"`
		Model    string            `json:"model,omitempty"`
		Verdicts []verdict.Verdict `json:"verdicts"`
	}{run.ID, run.Subject, run.Model, run.Export.Verdicts}, nil
}

// Blocks implements Blocker: a table of the verdicts, a row each.
func (e Export) Blocks() ([]Block, error) {
	run, err := e.Run()
	if err != nil {
		return nil, err
	}
	t := &Table{Header: []string{"case", "repeat", "attempt", "status", "label", "score", "cwe", "category", "reason"}}
	for _, v := range run.Export.Verdicts {
		score, cat := "", ""
		if v.Score != nil {
			score = strconv.FormatFloat(*v.Score, 'g', -1, 64)
		}
		if v.VEX != nil {
			cat = v.VEX.Category
		}
		t.Rows = append(t.Rows, []string{v.CaseID, strconv.Itoa(v.Repeat), strconv.Itoa(v.Attempt), string(v.Status), string(v.Label),
			score, strings.Join(v.CWE, " "), cat, v.Reason})
	}
	return []Block{{Title: fmt.Sprintf("run %s (%s): %d verdicts", run.ID, run.Subject, len(run.Export.Verdicts)), Table: t}}, nil
}
