package output

import (
	"fmt"

	"github.com/vulnbench/vulnbench/internal/report"
)

// Table is one block of the score tables as text and Markdown lay them out (header, rows of
// cells, the note under it), for writers that draw their own tables (internal/output/html).
type Table struct {
	Header []string
	Rows   [][]string
	Note   string
}

// Tables lays out the score tables of rep's runs, section by section, exactly as the text and
// Markdown writers show them.
func Tables(rep *report.Report) ([]Table, error) {
	cols, err := columns(rep)
	if err != nil {
		return nil, fmt.Errorf("score tables: %w", err)
	}
	ts := tables(report.Metrics(), cols)
	out := make([]Table, len(ts))
	for i, t := range ts {
		out[i] = Table{Header: t.header, Rows: t.rows, Note: t.note}
	}
	return out, nil
}
