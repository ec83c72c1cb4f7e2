// Package text presents a report's score tables as aligned text (percentages with one decimal).
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

// Presenter writes the score tables as aligned text.
type Presenter struct{}

// Name implements output.Presenter.
func (Presenter) Name() string { return "text" }

// Present implements output.Presenter.
func (p Presenter) Present(w io.Writer, rep *report.Report) error {
	return output.WriteScores(w, p.Name(), rep, func(b *bytes.Buffer, cols []output.Column) error {
		return writeText(b, rep, output.Layout(report.Metrics(), cols))
	})
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
