package output

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/vulnbench/vulnbench/internal/report"
)

// Score presenters (internal/output/text, md, json, csv) show the figures of report.Metrics()
// for each run of a report, a run a column. This file is what they share: the columns, the
// text and Markdown layout of the tables (html draws the same tables), a figure as text.

// WriteScores is the frame of a score presenter: fn writes rep's columns into a buffer, and w
// gets the whole of it or nothing. Errors name the format.
func WriteScores(w io.Writer, format string, rep *report.Report, fn func(b *bytes.Buffer, cols []Column) error) error {
	cols, err := Columns(rep)
	if err != nil {
		return fmt.Errorf("write scores: %w", err)
	}
	var b bytes.Buffer // writes to a buffer never fail: one error check at the end
	err = fn(&b, cols)
	if err == nil {
		_, err = w.Write(b.Bytes())
	}
	if err != nil {
		return fmt.Errorf("write %s scores: %w", format, err)
	}
	return nil
}

// Column is one run as the writers see it: the run and its figures.
type Column struct {
	Run  *report.Run
	Figs *report.Figures
}

// Columns are rep's runs as columns: names unique when there are several, each run scored.
func Columns(rep *report.Report) ([]Column, error) {
	if rep == nil || len(rep.Runs) == 0 {
		return nil, fmt.Errorf("no run to write")
	}
	seen := map[string]bool{}
	cols := make([]Column, len(rep.Runs))
	for i, r := range rep.Runs {
		if len(rep.Runs) > 1 {
			if r.Name == "" {
				return nil, fmt.Errorf("run %d has no name (needed with several runs)", i+1)
			}
			if seen[r.Name] {
				return nil, fmt.Errorf("two runs are named %q", r.Name)
			}
			seen[r.Name] = true
		}
		f, err := r.Figures()
		if err != nil {
			return nil, err
		}
		cols[i] = Column{Run: r, Figs: f}
	}
	return cols, nil
}

// Layout lays out the text and Markdown tables, section by section, from the metric table: a
// row for every labelled metric that some run has.
func Layout(ms []report.Metric, cols []Column) []Table {
	names := make([]string, len(cols))
	figs := make([]*report.Figures, len(cols))
	for i, c := range cols {
		names[i] = columnName(c, len(cols))
		figs[i] = c.Figs
	}
	var ts []Table
	for _, sec := range report.Sections() {
		if sec.PerName {
			ts = append(ts, familyTables(sec, ms, cols, names)...)
			continue
		}
		if sec.Name == report.SecVEXMatrix {
			ts = append(ts, matrixTables(sec, ms, cols, names)...)
			continue
		}
		t := Table{Header: append([]string{sec.Title}, names...)}
		if sec.Name == report.SecSummary {
			t.Rows = identity(cols)
		}
		for i := range ms {
			m := &ms[i]
			if m.Section != sec.Name || m.Label == "" || m.Family != nil {
				continue
			}
			row := []string{m.Label}
			any := false
			for _, c := range cols {
				v, ok := m.Get(c.Figs, "")
				any = any || ok
				row = append(row, Cell(m, c.Figs, v, ok))
			}
			if any {
				t.Rows = append(t.Rows, row)
			}
		}
		if len(t.Rows) == 0 {
			continue
		}
		if sec.Note != nil {
			t.Note = sec.Note(names, figs)
		}
		ts = append(ts, t)
	}
	return ts
}

// identity is the subject and model rows of the summary, when some run has them.
func identity(cols []Column) [][]string {
	var rows [][]string
	for _, f := range []struct {
		label string
		get   func(r *report.Run) string
	}{{"subject", func(r *report.Run) string { return r.Subject }}, {"model", func(r *report.Run) string { return r.Model }}} {
		row := []string{f.label}
		any := false
		for _, c := range cols {
			v := f.get(c.Run)
			any = any || v != ""
			if v == "" {
				v = "-"
			}
			row = append(row, v)
		}
		if any {
			rows = append(rows, row)
		}
	}
	return rows
}

// familyTables is the table of a family section (per CWE, per VEX category) of one run (a column
// per labelled figure), or with several runs one table per Wide figure with the runs side by side
// and the first run's first figure (the case count).
func familyTables(sec report.Section, ms []report.Metric, cols []Column, names []string) []Table {
	var fam []*report.Metric
	for i := range ms {
		if ms[i].Section == sec.Name && ms[i].Family != nil && ms[i].Label != "" {
			fam = append(fam, &ms[i])
		}
	}
	if len(fam) == 0 {
		return nil
	}
	var cwes []string
	for _, c := range cols {
		for _, w := range fam[0].Family.Names(c.Figs) {
			if !slices.Contains(cwes, w) {
				cwes = append(cwes, w)
			}
		}
	}
	if len(cwes) == 0 {
		return nil
	}
	slices.SortFunc(cwes, fam[0].Family.Compare)
	get := func(m *report.Metric, c Column, w string) string {
		v, ok := m.Get(c.Figs, w)
		return Cell(m, c.Figs, v, ok)
	}
	if len(cols) == 1 {
		t := Table{Header: []string{sec.Title}}
		for _, m := range fam {
			t.Header = append(t.Header, m.Label)
		}
		for _, w := range cwes {
			row := []string{w}
			for _, m := range fam {
				row = append(row, get(m, cols[0], w))
			}
			t.Rows = append(t.Rows, row)
		}
		return []Table{t}
	}
	var ts []Table
	count := fam[0] // the first labelled figure of a CWE is its case count
	for _, m := range fam {
		if m.Wide == "" {
			continue
		}
		t := Table{Header: append([]string{m.Wide, count.Label}, names...)}
		for _, w := range cwes {
			row := []string{w, get(count, cols[0], w)}
			for _, c := range cols {
				row = append(row, get(m, c, w))
			}
			t.Rows = append(t.Rows, row)
		}
		ts = append(ts, t)
	}
	return ts
}

// matrixTables is one table per run and Matrix metric of sec: a row per ground-truth label and a
// column per answer, keeping the labels whose row or column is not all zero.
func matrixTables(sec report.Section, ms []report.Metric, cols []Column, names []string) []Table {
	var ts []Table
	for i := range ms {
		m := &ms[i]
		if m.Section != sec.Name || m.Format != report.Matrix || m.Label == "" {
			continue
		}
		for ci, c := range cols {
			v, ok := m.Get(c.Figs, "")
			if !ok {
				continue
			}
			var keep []int
			for k := range v.Labels {
				for j := range v.Labels {
					if v.Cells[k][j].Mean != 0 || v.Cells[j][k].Mean != 0 {
						keep = append(keep, k)
						break
					}
				}
			}
			title := sec.Title
			if len(cols) > 1 {
				title += " " + names[ci]
			}
			t := Table{Header: []string{title}}
			for _, k := range keep {
				t.Header = append(t.Header, v.Labels[k])
			}
			for _, k := range keep {
				row := []string{v.Labels[k]}
				for _, j := range keep {
					row = append(row, Text(report.Count, report.Value{Stat: v.Cells[k][j]}, c.Figs.Agg))
				}
				t.Rows = append(t.Rows, row)
			}
			if len(keep) > 0 {
				ts = append(ts, t)
			}
		}
	}
	return ts
}

func columnName(c Column, ncols int) string {
	if c.Run.Name == "" && ncols == 1 {
		return "value"
	}
	return c.Run.Name
}

// Cell formats a figure for text and Markdown; "-" (or the metric's Missing) when the run lacks it.
func Cell(m *report.Metric, f *report.Figures, v report.Value, ok bool) string {
	if !ok {
		if m.Missing != "" {
			return m.Missing
		}
		return "-"
	}
	if v.Blank {
		return "-"
	}
	if v.Null && m.Missing != "" {
		return m.Missing // a figure the run has but could not compute (an appsec part not graded)
	}
	s := Text(m.Format, v, f.Agg)
	if m.Suffix != nil {
		s += m.Suffix(f)
	}
	return s
}

// Text is a figure's value as text and Markdown show it.
func Text(format report.Format, v report.Value, agg bool) string {
	switch format {
	case report.Fraction:
		if agg {
			return percent(v.Stat.Mean) + " ± " + percent(v.Stat.Std)
		}
		return percent(v.Stat.Mean)
	case report.Points:
		p := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) }
		if agg {
			return p(v.Stat.Mean) + " ± " + p(v.Stat.Std) + " of 100"
		}
		return p(v.Stat.Mean) + " of 100"
	case report.Count:
		if agg {
			return strconv.FormatFloat(v.Stat.Mean, 'f', 1, 64) + " ± " + strconv.FormatFloat(v.Stat.Std, 'f', 1, 64)
		}
		return strconv.FormatFloat(v.Stat.Mean, 'f', -1, 64)
	case report.Interval:
		return "[" + percent(v.Lo) + ", " + percent(v.Hi) + "]"
	case report.PointsInterval:
		p := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) }
		return "[" + p(v.Lo) + ", " + p(v.Hi) + "] of 100"
	case report.Threshold:
		if v.Null {
			return "none"
		}
		if agg {
			return strconv.FormatFloat(v.Stat.Mean, 'g', 4, 64) + " ± " + strconv.FormatFloat(v.Stat.Std, 'g', 2, 64)
		}
		return strconv.FormatFloat(v.Stat.Mean, 'g', 4, 64)
	case report.Flag:
		return strconv.FormatBool(v.Flag)
	}
	return v.Text
}

// Footer names the scorer and the vulnbench that computed a table.
func Footer(rep *report.Report) string {
	return fmt.Sprintf("scorer %d, vulnbench %s", rep.Scorer, rep.Vulnbench)
}
