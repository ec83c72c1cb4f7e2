package breakdown

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/vulnbench/vulnbench/internal/board"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/output/md"
	"github.com/vulnbench/vulnbench/internal/output/text"
	"github.com/vulnbench/vulnbench/internal/report"
)

// Subset names a subset of a suite: what chose it, and how many cases it kept of how many.
type Subset struct {
	Name  string `json:"subset"` // e.g. "language=c", or "cases from ids.txt"
	Cases int    `json:"cases"`
	Of    int    `json:"of"`
}

// SubsetOf is the subset a report's truth holds.
func SubsetOf(name string, rep *report.Report) Subset {
	return Subset{Name: name, Cases: len(rep.Truth.Cases), Of: rep.Truth.Total}
}

func (s Subset) line() string {
	return fmt.Sprintf("subset %s: %d of %d cases (the suite's sha256 is the whole suite's)", s.Name, s.Cases, s.Of)
}

// SubsetDoc is the score of a subset, the document `score --select` and `--cases` write: the
// report with the subset named (a line before text and Markdown, members "subset", "cases", "of"
// and "scores" in JSON, a first column in CSV).
type SubsetDoc struct {
	Subset Subset
	Report *report.Report
}

// Kind implements output.Document.
func (SubsetDoc) Kind() string { return "subset scores" }

// JSONValue implements output.JSONValue.
func (d SubsetDoc) JSONValue() (any, error) {
	var b bytes.Buffer
	if err := output.ScoresJSON(&b, d.Report); err != nil {
		return nil, err
	}
	return map[string]any{"subset": d.Subset.Name, "cases": d.Subset.Cases, "of": d.Subset.Of, "scores": json.RawMessage(b.Bytes())}, nil
}

// WriteCSV implements output.CSVWriter.
func (d SubsetDoc) WriteCSV(w io.Writer) error {
	var b bytes.Buffer
	if err := output.ScoresCSV(&b, d.Report); err != nil {
		return err
	}
	return prefixCSV(w, &b, []string{"subset"}, []string{d.Subset.Name})
}

// WriteText implements output.TextWriter.
func (d SubsetDoc) WriteText(w io.Writer) error {
	fmt.Fprintln(w, d.Subset.line())
	return text.Presenter{}.Present(w, d.Report)
}

// WriteMarkdown implements output.MarkdownWriter.
func (d SubsetDoc) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "_%s_\n\n", d.Subset.line())
	return md.Presenter{}.Present(w, d.Report)
}

// Kind implements output.Document: a breakdown is the document `score --by` writes.
func (*Breakdown) Kind() string { return "breakdown" }

// JSONValue implements output.JSONValue: {"by", "groups": [{"group", "cases", "of", "scores"}]},
// each group's scores as score writes them.
func (b *Breakdown) JSONValue() (any, error) {
	type jgroup struct {
		Group  string          `json:"group"`
		Cases  int             `json:"cases"`
		Of     int             `json:"of"`
		Scores json.RawMessage `json:"scores"`
	}
	groups := []jgroup{}
	for _, g := range b.Groups {
		var buf bytes.Buffer
		if err := output.ScoresJSON(&buf, g.Report); err != nil {
			return nil, err
		}
		s := SubsetOf(b.By+"="+g.Name, g.Report)
		groups = append(groups, jgroup{g.Name, s.Cases, s.Of, json.RawMessage(bytes.TrimSpace(buf.Bytes()))})
	}
	return map[string]any{"by": b.By, "groups": groups}, nil
}

// WriteCSV implements output.CSVWriter: each group's score CSV with "by" and "group" columns first.
func (b *Breakdown) WriteCSV(w io.Writer) error {
	for i, g := range b.Groups {
		var buf bytes.Buffer
		if err := output.ScoresCSV(&buf, g.Report); err != nil {
			return err
		}
		if err := prefixCSV(w, &buf, []string{"by", "group"}, []string{b.By, g.Name}, i > 0); err != nil {
			return err
		}
	}
	return nil
}

// Blocks implements output.Blocker: one compact table, a row per group and run, with the cases
// the group holds and the suite kind's headline figures as the board writes them (intervals
// where scored with --ci).
func (b *Breakdown) Blocks() ([]output.Block, error) {
	t := &output.Table{Header: []string{b.By, "cases"}}
	var cols []board.Column
	runs := 0
	for _, g := range b.Groups {
		runs = max(runs, len(g.Report.Runs))
	}
	if runs > 1 {
		t.Header = append(t.Header, "run")
	}
	for _, g := range b.Groups {
		s := SubsetOf(b.By+"="+g.Name, g.Report)
		for _, run := range g.Report.Runs {
			cs, cells, err := board.Headline(g.Report, run)
			if err != nil {
				return nil, fmt.Errorf("%s=%s: %w", b.By, g.Name, err)
			}
			if cols == nil {
				cols = cs
				for _, c := range cols {
					t.Header = append(t.Header, c.Label)
				}
			}
			row := []string{g.Name, strconv.Itoa(s.Cases) + " of " + strconv.Itoa(s.Of)}
			if runs > 1 {
				row = append(row, run.Name)
			}
			for k, c := range cols {
				if k < len(cells) {
					row = append(row, c.Text(cells[k]))
				}
			}
			t.Rows = append(t.Rows, row)
		}
	}
	var lines []string
	if len(b.Groups) > 0 {
		lines = append(lines, "each group scored alone, as score --select "+b.By+"=GROUP scores it (--format json gives every figure); "+output.Footer(b.Groups[0].Report))
	}
	return []output.Block{{Title: "by " + b.By, Table: t, Lines: lines}}, nil
}

// WriteText implements output.TextWriter: the compact table (Blocks).
func (b *Breakdown) WriteText(w io.Writer) error {
	bs, err := b.Blocks()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range append([][]string{bs[0].Table.Header}, bs[0].Table.Rows...) {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, l := range bs[0].Lines {
		fmt.Fprintln(w, l)
	}
	return nil
}

// prefixCSV copies the CSV in r to w with cols (header) and vals (every record) first; with
// skipHeader set, the header line is left out.
func prefixCSV(w io.Writer, r io.Reader, cols, vals []string, skipHeader ...bool) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	for i, rec := range recs {
		if i == 0 {
			if len(skipHeader) > 0 && skipHeader[0] {
				continue
			}
			_ = cw.Write(append(append([]string{}, cols...), rec...))
			continue
		}
		_ = cw.Write(append(append([]string{}, vals...), rec...))
	}
	cw.Flush()
	return cw.Error()
}
