// Package md presents documents as GitHub Markdown: a report's score tables (percentages with one
// decimal), a document's own Markdown layout, or its blocks.
package md

import (
	"bytes"
	"io"
	"strings"

	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/report"
)

// Presenter writes documents as Markdown.
type Presenter struct{ output.General }

// Name implements output.Presenter.
func (Presenter) Name() string { return "md" }

// Present implements output.Presenter.
func (p Presenter) Present(w io.Writer, d output.Document) error {
	switch x := d.(type) {
	case *report.Report:
		return output.WriteScores(w, p.Name(), x, func(b *bytes.Buffer, cols []output.Column) error {
			writeMarkdown(b, x, output.Layout(report.Metrics(), cols))
			return nil
		})
	case output.MarkdownWriter:
		return output.Buffered(w, x.WriteMarkdown)
	}
	bs, err := output.Blocks(d)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	for i, bl := range bs {
		if i > 0 {
			b.WriteString("\n")
		}
		if bl.Title != "" {
			b.WriteString("### " + clean(bl.Title) + "\n\n")
		}
		if bl.Table != nil {
			table(&b, *bl.Table)
		}
		for _, l := range bl.Lines {
			b.WriteString(clean(l) + "\n")
		}
	}
	_, err = w.Write(b.Bytes())
	return err
}

// clean makes a cell's text one Markdown table cell.
func clean(s string) string { return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s) }

// table writes t as a Markdown table, its first column left-aligned, the others right.
func table(b *bytes.Buffer, t output.Table) {
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + clean(c) + " |")
		}
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

func writeMarkdown(b *bytes.Buffer, rep *report.Report, ts []output.Table) {
	for i, t := range ts {
		if i > 0 {
			b.WriteString("\n")
		}
		table(b, t)
	}
	b.WriteString("\n" + output.Footer(rep) + "\n")
}
