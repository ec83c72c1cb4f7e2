// Package csv presents documents as CSV: a report's scores a row per figure (fractions stay in
// [0,1]), a document's own CSV layout, or its blocks' tables.
package csv

import (
	stdcsv "encoding/csv"
	"io"

	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/report"
)

// Presenter writes documents as CSV.
type Presenter struct{ output.General }

// Name implements output.Presenter.
func (Presenter) Name() string { return "csv" }

// Present implements output.Presenter.
func (Presenter) Present(w io.Writer, d output.Document) error {
	switch x := d.(type) {
	case *report.Report:
		return output.ScoresCSV(w, x)
	case output.CSVWriter:
		return output.Buffered(w, x.WriteCSV)
	}
	bs, err := output.Blocks(d)
	if err != nil {
		return err
	}
	return output.Buffered(w, func(w io.Writer) error { return WriteBlocks(w, bs) })
}

// WriteBlocks writes the tables of blocks as CSV, each row after a first column naming its
// block (a table's header row too); lines are left out.
func WriteBlocks(w io.Writer, bs []output.Block) error {
	cw := stdcsv.NewWriter(w)
	for _, b := range bs {
		if b.Table == nil {
			continue
		}
		for _, r := range append([][]string{b.Table.Header}, b.Table.Rows...) {
			if err := cw.Write(append([]string{b.Title}, r...)); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
