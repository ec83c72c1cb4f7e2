package output

import (
	"fmt"

	"github.com/vulnbench/vulnbench/internal/report"
)

// ExportRun is the one run of a report loaded for export (report.LoadExport), which export
// presenters (internal/output/sarif, openvex, jsonl) write.
func ExportRun(rep *report.Report) (*report.Run, error) {
	if rep == nil || len(rep.Runs) != 1 || rep.Runs[0].Export == nil {
		return nil, fmt.Errorf("an export writes one run loaded for export (report.LoadExport)")
	}
	return rep.Runs[0], nil
}
