// Package text presents documents as aligned text: a report's score tables (percentages with one
// decimal), a document's own text layout, or its blocks.
package text

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/report"
)

// Presenter writes documents as aligned text.
type Presenter struct{ output.General }

// Name implements output.Presenter.
func (Presenter) Name() string { return "text" }

// Present implements output.Presenter.
func (p Presenter) Present(w io.Writer, d output.Document) error {
	switch x := d.(type) {
	case *report.Report:
		return output.WriteScores(w, p.Name(), x, func(b *bytes.Buffer, cols []output.Column) error {
			return writeText(b, x, output.Layout(report.Metrics(), cols))
		})
	case output.TextWriter:
		return output.Buffered(w, x.WriteText)
	}
	bs, err := output.Blocks(d)
	if err != nil {
		return err
	}
	return output.Buffered(w, func(b io.Writer) error { return WriteBlocks(b, bs) })
}

// WriteBlocks writes blocks as text: each title, its table aligned, then its lines.
func WriteBlocks(w io.Writer, bs []output.Block) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	for i, b := range bs {
		if i > 0 {
			fmt.Fprint(tw, "\n")
		}
		if b.Title != "" {
			fmt.Fprintln(tw, clean.Replace(b.Title))
		}
		if t := b.Table; t != nil {
			for _, r := range append([][]string{t.Header}, t.Rows...) {
				for j, c := range r {
					if j > 0 {
						fmt.Fprint(tw, "\t")
					}
					fmt.Fprint(tw, clean.Replace(c))
				}
				fmt.Fprint(tw, "\n")
			}
			if t.Note != "" {
				fmt.Fprintln(tw, clean.Replace(t.Note))
			}
		}
		for _, l := range b.Lines {
			fmt.Fprintln(tw, clean.Replace(l))
		}
	}
	return tw.Flush()
}

func writeText(b *bytes.Buffer, rep *report.Report, ts []output.Table) error {
	tw := tabwriter.NewWriter(b, 0, 8, 2, ' ', 0)
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, clean.Replace(c))
		}
		fmt.Fprint(tw, "\n")
	}
	for i, t := range ts {
		if i > 0 {
			fmt.Fprint(tw, "\n")
		}
		line(t.Header)
		for _, r := range t.Rows {
			line(r)
		}
		if t.Note != "" {
			fmt.Fprintln(tw, t.Note)
		}
	}
	fmt.Fprintln(tw, "\n"+output.Footer(rep))
	return tw.Flush()
}
