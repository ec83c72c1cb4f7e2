// Package md presents a report's score tables as GitHub Markdown (percentages with one decimal).
package md

import (
	"bytes"
	"io"
	"strings"

	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/report"
)

// Presenter writes the score tables as Markdown.
type Presenter struct{}

// Name implements output.Presenter.
func (Presenter) Name() string { return "md" }

// Present implements output.Presenter.
func (p Presenter) Present(w io.Writer, rep *report.Report) error {
	return output.WriteScores(w, p.Name(), rep, func(b *bytes.Buffer, cols []output.Column) error {
		writeMarkdown(b, rep, output.Layout(report.Metrics(), cols))
		return nil
	})
}

func writeMarkdown(b *bytes.Buffer, rep *report.Report, ts []output.Table) {
	clean := strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ")
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + clean.Replace(c) + " |")
		}
		b.WriteString("\n")
	}
	for i, t := range ts {
		if i > 0 {
			b.WriteString("\n")
		}
		line(t.Header)
		b.WriteString("| :---")
		for range t.Header[1:] {
			b.WriteString(" | ---:")
		}
		b.WriteString(" |\n")
		for _, r := range t.Rows {
			line(r)
		}
		if t.Note != "" {
			b.WriteString("\n" + t.Note + "\n")
		}
	}
	b.WriteString("\n" + output.Footer(rep) + "\n")
}
