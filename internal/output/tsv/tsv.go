// Package tsv presents every document as tab-separated values: each block's title as a
// "# title" line, its table a row a line (tabs and line breaks in a cell become spaces), its
// lines as "# line". It knows no document: it writes output.Blocks, so it reaches every command.
package tsv

import (
	"bufio"
	"io"
	"strings"

	"github.com/vulnbench/vulnbench/internal/output"
)

// Presenter writes documents as TSV.
type Presenter struct{ output.General }

// Name implements output.Presenter.
func (Presenter) Name() string { return "tsv" }

// Present implements output.Presenter.
func (Presenter) Present(w io.Writer, d output.Document) error {
	bs, err := output.Blocks(d)
	if err != nil {
		return err
	}
	return output.Buffered(w, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
		for _, b := range bs {
			if b.Title != "" {
				bw.WriteString("# " + clean.Replace(b.Title) + "\n")
			}
			if t := b.Table; t != nil {
				for _, row := range append([][]string{t.Header}, t.Rows...) {
					for i, cell := range row {
						if i > 0 {
							bw.WriteByte('\t')
						}
						bw.WriteString(clean.Replace(cell))
					}
					bw.WriteByte('\n')
				}
			}
			for _, l := range b.Lines {
				bw.WriteString("# " + clean.Replace(l) + "\n")
			}
		}
		return bw.Flush()
	})
}
