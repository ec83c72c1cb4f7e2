package output

import (
	"fmt"

	"github.com/vulnbench/vulnbench/internal/report"
)

// Table is one block of the score tables as text and Markdown lay them out (header, rows of
// cells, the note under it); html draws the same tables.
type Table struct {
	Header []string
	Rows   [][]string
	Note   string
}

// Tables lays out the score tables of rep's runs, section by section, exactly as the text and
// Markdown presenters show them.
func Tables(rep *report.Report) ([]Table, error) {
	cols, err := Columns(rep)
	if err != nil {
		return nil, fmt.Errorf("score tables: %w", err)
	}
	return Layout(report.Metrics(), cols), nil
}
