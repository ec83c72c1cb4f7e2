// Package output writes score tables for the CLI: aligned text, GitHub Markdown, JSON (the score
// contract of DESIGN.md section 3) and CSV. Every format iterates the one metric table of
// report.Metrics. Text and Markdown show fractions as percentages with one decimal; JSON and CSV
// keep fractions in [0,1].
package output

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/vulnbench/vulnbench/internal/report"
)

// scoreWriter presents the report model in one format: the figures of ms (the one metric
// table) for each column.
type scoreWriter struct {
	format string
	write  func(b *bytes.Buffer, rep *report.Report, ms []report.Metric, cols []column) error
}

// scoreWriters is the explicit list of score formats, in the order help texts show them. A new
// format is one entry here (docs/extending.md).
func scoreWriters() []scoreWriter {
	return []scoreWriter{
		{"text", func(b *bytes.Buffer, rep *report.Report, ms []report.Metric, cols []column) error {
			return writeText(b, rep, tables(ms, cols))
		}},
		{"md", func(b *bytes.Buffer, rep *report.Report, ms []report.Metric, cols []column) error {
			writeMarkdown(b, rep, tables(ms, cols))
			return nil
		}},
		{"json", writeJSON},
		{"csv", writeCSV},
	}
}

// Formats lists the table formats of WriteScores (and WriteStats).
func Formats() []string {
	var out []string
	for _, w := range scoreWriters() {
		out = append(out, w.format)
	}
	return out
}

// column is one run as the writers see it.
type column struct {
	run  *report.Run
	figs *report.Figures
}

// WriteScores writes the score table of rep's runs to w in format (one of Formats). Runs are
// columns named by Run.Name (the run id), with subject and model alongside.
func WriteScores(w io.Writer, format string, rep *report.Report) error {
	i := slices.IndexFunc(scoreWriters(), func(w scoreWriter) bool { return w.format == format })
	if i < 0 {
		return fmt.Errorf("unknown score format %q: use one of %s", format, strings.Join(Formats(), ", "))
	}
	cols, err := columns(rep)
	if err != nil {
		return fmt.Errorf("write scores: %w", err)
	}
	ms := report.Metrics()
	var b bytes.Buffer // writes to a buffer never fail: one error check at the end
	err = scoreWriters()[i].write(&b, rep, ms, cols)
	if err == nil {
		_, err = w.Write(b.Bytes())
	}
	if err != nil {
		return fmt.Errorf("write %s scores: %w", format, err)
	}
	return nil
}

func columns(rep *report.Report) ([]column, error) {
	if rep == nil || len(rep.Runs) == 0 {
		return nil, fmt.Errorf("no run to write")
	}
	seen := map[string]bool{}
	cols := make([]column, len(rep.Runs))
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
		cols[i] = column{run: r, figs: f}
	}
	return cols, nil
}

// table is one block of a text or Markdown score table; note is printed under it.
type table struct {
	header []string
	rows   [][]string
	note   string
}

// tables lays out the text and Markdown tables, section by section, from the metric table: a
// row for every labelled metric that some run has.
func tables(ms []report.Metric, cols []column) []table {
	names := make([]string, len(cols))
	figs := make([]*report.Figures, len(cols))
	for i, c := range cols {
		names[i] = columnName(c, len(cols))
		figs[i] = c.figs
	}
	var ts []table
	for _, sec := range report.Sections() {
		if sec.PerName {
			ts = append(ts, familyTables(sec, ms, cols, names)...)
			continue
		}
		if sec.Name == report.SecVEXMatrix {
			ts = append(ts, matrixTables(sec, ms, cols, names)...)
			continue
		}
		t := table{header: append([]string{sec.Title}, names...)}
		if sec.Name == report.SecSummary {
			t.rows = identity(cols)
		}
		for i := range ms {
			m := &ms[i]
			if m.Section != sec.Name || m.Label == "" || m.Family != nil {
				continue
			}
			row := []string{m.Label}
			any := false
			for _, c := range cols {
				v, ok := m.Get(c.figs, "")
				any = any || ok
				row = append(row, cell(m, c.figs, v, ok))
			}
			if any {
				t.rows = append(t.rows, row)
			}
		}
		if len(t.rows) == 0 {
			continue
		}
		if sec.Note != nil {
			t.note = sec.Note(names, figs)
		}
		ts = append(ts, t)
	}
	return ts
}

// identity is the subject and model rows of the summary, when some run has them.
func identity(cols []column) [][]string {
	var rows [][]string
	for _, f := range []struct {
		label string
		get   func(r *report.Run) string
	}{{"subject", func(r *report.Run) string { return r.Subject }}, {"model", func(r *report.Run) string { return r.Model }}} {
		row := []string{f.label}
		any := false
		for _, c := range cols {
			v := f.get(c.run)
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
func familyTables(sec report.Section, ms []report.Metric, cols []column, names []string) []table {
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
		for _, w := range fam[0].Family.Names(c.figs) {
			if !slices.Contains(cwes, w) {
				cwes = append(cwes, w)
			}
		}
	}
	if len(cwes) == 0 {
		return nil
	}
	slices.SortFunc(cwes, fam[0].Family.Compare)
	get := func(m *report.Metric, c column, w string) string {
		v, ok := m.Get(c.figs, w)
		return cell(m, c.figs, v, ok)
	}
	if len(cols) == 1 {
		t := table{header: []string{sec.Title}}
		for _, m := range fam {
			t.header = append(t.header, m.Label)
		}
		for _, w := range cwes {
			row := []string{w}
			for _, m := range fam {
				row = append(row, get(m, cols[0], w))
			}
			t.rows = append(t.rows, row)
		}
		return []table{t}
	}
	var ts []table
	count := fam[0] // the first labelled figure of a CWE is its case count
	for _, m := range fam {
		if m.Wide == "" {
			continue
		}
		t := table{header: append([]string{m.Wide, count.Label}, names...)}
		for _, w := range cwes {
			row := []string{w, get(count, cols[0], w)}
			for _, c := range cols {
				row = append(row, get(m, c, w))
			}
			t.rows = append(t.rows, row)
		}
		ts = append(ts, t)
	}
	return ts
}

// matrixTables is one table per run and Matrix metric of sec: a row per ground-truth label and a
// column per answer, keeping the labels whose row or column is not all zero.
func matrixTables(sec report.Section, ms []report.Metric, cols []column, names []string) []table {
	var ts []table
	for i := range ms {
		m := &ms[i]
		if m.Section != sec.Name || m.Format != report.Matrix || m.Label == "" {
			continue
		}
		for ci, c := range cols {
			v, ok := m.Get(c.figs, "")
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
			t := table{header: []string{title}}
			for _, k := range keep {
				t.header = append(t.header, v.Labels[k])
			}
			for _, k := range keep {
				row := []string{v.Labels[k]}
				for _, j := range keep {
					row = append(row, text(report.Count, report.Value{Stat: v.Cells[k][j]}, c.figs.Agg))
				}
				t.rows = append(t.rows, row)
			}
			if len(keep) > 0 {
				ts = append(ts, t)
			}
		}
	}
	return ts
}

func columnName(c column, ncols int) string {
	if c.run.Name == "" && ncols == 1 {
		return "value"
	}
	return c.run.Name
}

// cell formats a figure for text and Markdown; "-" (or the metric's Missing) when the run lacks it.
func cell(m *report.Metric, f *report.Figures, v report.Value, ok bool) string {
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
	s := text(m.Format, v, f.Agg)
	if m.Suffix != nil {
		s += m.Suffix(f)
	}
	return s
}

func text(format report.Format, v report.Value, agg bool) string {
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

// footer names the scorer and the vulnbench that computed a table.
func footer(rep *report.Report) string {
	return fmt.Sprintf("scorer %d, vulnbench %s", rep.Scorer, rep.Vulnbench)
}

func writeText(b *bytes.Buffer, rep *report.Report, ts []table) error {
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
		line(t.header)
		for _, r := range t.rows {
			line(r)
		}
		if t.note != "" {
			fmt.Fprintln(tw, t.note)
		}
	}
	fmt.Fprintln(tw, "\n"+footer(rep))
	return tw.Flush()
}

func writeMarkdown(b *bytes.Buffer, rep *report.Report, ts []table) {
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
		line(t.header)
		b.WriteString("| :---")
		for range t.header[1:] {
			b.WriteString(" | ---:")
		}
		b.WriteString(" |\n")
		for _, r := range t.rows {
			line(r)
		}
		if t.note != "" {
			b.WriteString("\n" + t.note + "\n")
		}
	}
	b.WriteString("\n" + footer(rep) + "\n")
}

// writeJSON writes the score object of one run, or {"runs": [{"run": ID, "subject": ..,
// "model": .., ...}]} for several; both open with the scorer and vulnbench's version. A family's
// members (CWEs, score sources) are ordered by name, as encoding/json orders map keys.
func writeJSON(b *bytes.Buffer, rep *report.Report, ms []report.Metric, cols []column) error {
	var c bytes.Buffer
	c.WriteString(`{"scorer":` + strconv.Itoa(rep.Scorer) + `,"vulnbench":`)
	if err := marshal(&c, rep.Vulnbench); err != nil {
		return err
	}
	if len(cols) == 1 {
		n, err := figuresNode(ms, cols[0].figs)
		if err != nil {
			return err
		}
		n.members(&c)
	} else {
		c.WriteString(`,"runs":[`)
		for i, col := range cols {
			if i > 0 {
				c.WriteByte(',')
			}
			n, err := figuresNode(ms, col.figs)
			if err != nil {
				return err
			}
			c.WriteString(`{"run":`)
			_ = marshal(&c, col.run.Name)
			c.WriteString(`,"subject":`)
			_ = marshal(&c, col.run.Subject)
			if col.run.Model != "" {
				c.WriteString(`,"model":`)
				_ = marshal(&c, col.run.Model)
			}
			n.members(&c)
			c.WriteByte('}')
		}
		c.WriteByte(']')
	}
	c.WriteByte('}')
	if err := json.Indent(b, c.Bytes(), "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	return nil
}

func marshal(b *bytes.Buffer, v any) error {
	j, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.Write(j)
	return nil
}

// node is a JSON object whose members keep the order they were set in.
type node struct {
	keys []string
	kids map[string]*node
	raw  map[string][]byte
}

func (n *node) set(path []string, raw []byte) {
	for len(path) > 1 {
		k := path[0]
		if n.kids == nil {
			n.kids = map[string]*node{}
		}
		kid := n.kids[k]
		if kid == nil {
			kid = &node{}
			n.kids[k] = kid
			n.keys = append(n.keys, k)
		}
		n, path = kid, path[1:]
	}
	if n.raw == nil {
		n.raw = map[string][]byte{}
	}
	if _, ok := n.raw[path[0]]; !ok {
		n.keys = append(n.keys, path[0])
	}
	n.raw[path[0]] = raw
}

// members writes ,"key":value for each member.
func (n *node) members(b *bytes.Buffer) {
	for _, k := range n.keys {
		b.WriteByte(',')
		_ = marshal(b, k)
		b.WriteByte(':')
		if kid, ok := n.kids[k]; ok {
			b.WriteByte('{')
			var inner bytes.Buffer
			kid.members(&inner)
			b.Write(bytes.TrimPrefix(inner.Bytes(), []byte(",")))
			b.WriteByte('}')
			continue
		}
		b.Write(n.raw[k])
	}
}

func figuresNode(ms []report.Metric, f *report.Figures) (*node, error) {
	n := &node{}
	err := report.Each(ms, f, strings.Compare, func(x report.Figure) error {
		raw, err := jsonValue(x.Metric.Format, x.Value, f.Agg)
		if err != nil {
			return fmt.Errorf("%s: %w", x.Metric.CSVKey(x.Name), err)
		}
		n.set(x.Metric.JSONPath(x.Name), raw)
		return nil
	})
	return n, err
}

func jsonValue(format report.Format, v report.Value, agg bool) ([]byte, error) {
	switch format {
	case report.Count, report.Fraction, report.Threshold, report.Points:
		if v.Null {
			return []byte("null"), nil
		}
		if agg {
			return json.Marshal(v.Stat)
		}
		return json.Marshal(v.Stat.Mean)
	case report.Flag:
		return json.Marshal(v.Flag)
	case report.Interval:
		return json.Marshal([2]float64{v.Lo, v.Hi})
	case report.Number:
		return []byte(v.Text), nil
	case report.Matrix:
		out := struct {
			Labels []string `json:"labels"`
			Matrix any      `json:"matrix"`
		}{Labels: v.Labels}
		if agg {
			out.Matrix = v.Cells
		} else {
			m := make([][]float64, len(v.Cells))
			for i, row := range v.Cells {
				m[i] = make([]float64, len(row))
				for j, c := range row {
					m[i][j] = c.Mean
				}
			}
			out.Matrix = m
		}
		return json.Marshal(out)
	}
	return json.Marshal(v.Text)
}

// writeCSV writes run,subject,model,metric,value (and std when a run is aggregated), one row per
// figure, after a scorer and a vulnbench row per run. Fractions stay in [0,1]; a nil VD-S
// threshold has no row; an interval has a :lo and a :hi row.
func writeCSV(b *bytes.Buffer, rep *report.Report, ms []report.Metric, cols []column) error {
	withStd := slices.ContainsFunc(cols, func(c column) bool { return c.figs.Agg })
	cw := csv.NewWriter(b)
	header := []string{"run", "subject", "model", "metric", "value"}
	if withStd {
		header = append(header, "std")
	}
	_ = cw.Write(header)
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	for _, c := range cols {
		row := func(key, value, std string) {
			rec := []string{c.run.Name, c.run.Subject, c.run.Model, key, value}
			if withStd {
				rec = append(rec, std)
			}
			_ = cw.Write(rec)
		}
		row("scorer", strconv.Itoa(rep.Scorer), "")
		row("vulnbench", rep.Vulnbench, "")
		_ = report.Each(ms, c.figs, nil, func(x report.Figure) error {
			key, v := x.Metric.CSVKey(x.Name), x.Value
			switch x.Metric.Format {
			case report.Interval:
				row(key+":lo", num(v.Lo), "")
				row(key+":hi", num(v.Hi), "")
			case report.Flag:
				row(key, strconv.FormatBool(v.Flag), "")
			case report.Text, report.Number:
				row(key, v.Text, "")
			case report.Matrix: // one row per cell: KEY:TRUTH:ANSWER
				for i, r := range v.Cells {
					for j, x := range r {
						std := ""
						if c.figs.Agg {
							std = num(x.Std)
						}
						row(key+":"+v.Labels[i]+":"+v.Labels[j], num(x.Mean), std)
					}
				}
			default:
				if v.Null {
					return nil
				}
				std := ""
				if c.figs.Agg {
					std = num(v.Stat.Std)
				}
				row(key, num(v.Stat.Mean), std)
			}
			return nil
		})
	}
	cw.Flush()
	return cw.Error()
}
