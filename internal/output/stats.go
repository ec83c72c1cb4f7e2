package output

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// Stats is a suite's counts (suite.Stats), the document `vulnbench suite stats` writes.
type Stats struct{ *suite.Stats }

// Kind implements Document.
func (Stats) Kind() string { return "stats" }

// JSONValue implements JSONValue: the counts as suite.Stats marshals them.
func (s Stats) JSONValue() (any, error) { return s.Stats, nil }

// WriteCSV implements CSVWriter: dimension, value, cases.
func (s Stats) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"dimension", "value", "cases"})
	_ = cw.Write([]string{"total", "cases", strconv.Itoa(s.Cases)})
	_ = cw.Write([]string{"total", "pairs", strconv.Itoa(s.Pairs)})
	for _, d := range s.Dimensions() {
		for _, c := range d.Counts {
			_ = cw.Write([]string{d.Name, c.Key, strconv.Itoa(c.N)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteMarkdown implements MarkdownWriter: a table per dimension.
func (s Stats) WriteMarkdown(w io.Writer) error {
	var b bytes.Buffer // writes to a buffer never fail: one error check at the end
	fmt.Fprintf(&b, "**%d cases, %d pairs**\n", s.Cases, s.Pairs)
	for _, d := range s.Dimensions() {
		fmt.Fprintf(&b, "\n| %s | cases |\n|---|---:|\n", d.Name)
		for _, c := range d.Counts {
			fmt.Fprintf(&b, "| %s | %d |\n", strings.ReplaceAll(c.Key, "|", `\|`), c.N)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteText implements TextWriter: the totals, then each dimension's counts.
func (s Stats) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "cases\t%d\npairs\t%d\n", s.Cases, s.Pairs)
	for _, d := range s.Dimensions() {
		fmt.Fprintf(tw, "\n%s\t\n", strings.ToUpper(d.Name))
		for _, c := range d.Counts {
			fmt.Fprintf(tw, "  %s\t%d\n", c.Key, c.N)
		}
	}
	return tw.Flush()
}

// Blocks implements Blocker: the totals and a table per dimension.
func (s Stats) Blocks() ([]Block, error) {
	bs := []Block{{Title: "suite", Table: &Table{Header: []string{"total", "n"}, Rows: [][]string{{"cases", strconv.Itoa(s.Cases)}, {"pairs", strconv.Itoa(s.Pairs)}}}}}
	for _, d := range s.Dimensions() {
		t := &Table{Header: []string{d.Name, "cases"}}
		for _, c := range d.Counts {
			t.Rows = append(t.Rows, []string{c.Key, strconv.Itoa(c.N)})
		}
		bs = append(bs, Block{Title: d.Name, Table: t})
	}
	return bs, nil
}
