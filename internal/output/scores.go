// Package output writes score tables for the CLI: aligned text, GitHub Markdown, JSON (the score
// contract of DESIGN.md section 3) and CSV. Text and Markdown show fractions as percentages with one
// decimal; JSON and CSV keep fractions in [0,1].
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

	"github.com/vulnbench/vulnbench/internal/score"
)

// Column is one run or subject in a score table: exactly one of Result (one repeat) and Agg (over
// repeats) is set. Several columns are printed side by side and need distinct, non-empty names.
type Column struct {
	Name   string
	Result *score.Result
	Agg    *score.Aggregated
}

// Formats lists the table formats of WriteScores (and WriteStats), in the order help texts show them.
// Treat it as read-only.
var Formats = []string{"text", "md", "json", "csv"}

// WriteScores writes the score table of cols to w in format (one of Formats).
func WriteScores(w io.Writer, format string, cols []Column) error {
	if !slices.Contains(Formats, format) {
		return fmt.Errorf("unknown score format %q: use one of %s", format, strings.Join(Formats, ", "))
	}
	if err := checkColumns(cols); err != nil {
		return err
	}
	var err error
	switch format {
	case "text":
		err = writeText(w, tables(cols))
	case "md":
		err = writeMarkdown(w, tables(cols))
	case "json":
		err = writeJSON(w, cols)
	case "csv":
		err = writeCSV(w, cols)
	}
	if err != nil {
		return fmt.Errorf("write %s scores: %w", format, err)
	}
	return nil
}

func checkColumns(cols []Column) error {
	if len(cols) == 0 {
		return fmt.Errorf("write scores: no column to write")
	}
	seen := map[string]bool{}
	for i, c := range cols {
		if (c.Result == nil) == (c.Agg == nil) {
			return fmt.Errorf("write scores: column %d (%q) needs exactly one of a result and an aggregate", i+1, c.Name)
		}
		if len(cols) > 1 {
			if c.Name == "" {
				return fmt.Errorf("write scores: column %d has no name (needed with several columns)", i+1)
			}
			if seen[c.Name] {
				return fmt.Errorf("write scores: two columns are named %q", c.Name)
			}
			seen[c.Name] = true
		}
	}
	return nil
}

// kind says how a figure is shown.
type kind uint8

const (
	kCount    kind = iota // a count (a mean over repeats)
	kFrac                 // a fraction in [0,1]
	kScore                // a score threshold
	kBool                 // a flag
	kInterval             // a confidence interval of fractions [lo, hi]
)

// fig is one figure of a column: key is its CSV metric name.
type fig struct {
	key  string
	kind kind
	v    score.Stat // Std is meaningful only when agg
	agg  bool
	null bool // a nil threshold
	flag bool // the value of a kBool
	lo   float64
	hi   float64 // a kInterval's bounds
}

// figures flattens a column into its figures, in a fixed order; CWEs in cweLess order.
func figures(c Column) []fig {
	if c.Agg != nil {
		id := func(s score.Stat) score.Stat { return s }
		fs := []fig{{key: "repeats", kind: kCount, v: score.Stat{Mean: float64(c.Agg.Repeats)}}}
		return flatten(fs, &c.Agg.ResultOf, id, id, true)
	}
	return flatten(nil, c.Result,
		func(n int) score.Stat { return score.Stat{Mean: float64(n)} },
		func(f float64) score.Stat { return score.Stat{Mean: f} }, false)
}

func flatten[C, F any](fs []fig, r *score.ResultOf[C, F], cv func(C) score.Stat, fv func(F) score.Stat, agg bool) []fig {
	count := func(key string, x C) { fs = append(fs, fig{key: key, kind: kCount, v: cv(x), agg: agg}) }
	frac := func(key string, x F) { fs = append(fs, fig{key: key, kind: kFrac, v: fv(x), agg: agg}) }

	count("n", r.N)
	count("status:ok", r.Status.OK)
	count("status:failed", r.Status.Failed)
	count("status:error", r.Status.Error)
	count("status:missing", r.Status.Missing)
	b := &r.Binary
	count("binary:tp", b.TP)
	count("binary:fp", b.FP)
	count("binary:tn", b.TN)
	count("binary:fn", b.FN)
	count("binary:failed_vul", b.FailedVul)
	count("binary:failed_ben", b.FailedBen)
	frac("binary:accuracy", b.Accuracy)
	frac("binary:precision", b.Precision)
	frac("binary:recall", b.Recall)
	frac("binary:f1", b.F1)
	frac("binary:fpr", b.FPR)
	frac("binary:fnr", b.FNR)
	frac("binary:tnr", b.TNR)
	if p := r.Pairwise; p != nil {
		count("pairwise:pairs", p.Pairs)
		count("pairwise:incomplete", p.Incomplete)
		frac("pairwise:p_c", p.PC)
		frac("pairwise:p_v", p.PV)
		frac("pairwise:p_b", p.PB)
		frac("pairwise:p_r", p.PR)
		frac("pairwise:pacc", p.PAcc)
	}
	if v := r.VDS; v != nil {
		frac("vds:fpr_tolerance", v.FPRTolerance)
		frac("vds:fnr", v.FNR)
		t := fig{key: "vds:threshold", kind: kScore, agg: agg, null: v.Threshold == nil}
		if v.Threshold != nil {
			t.v = fv(*v.Threshold)
		}
		fs = append(fs, t, fig{key: "vds:degenerate", kind: kBool, flag: v.Degenerate})
		count("vds:n", v.N)
	}
	if ci := r.CI; ci != nil {
		iv := func(key string, x [2]float64) { fs = append(fs, fig{key: key, kind: kInterval, lo: x[0], hi: x[1]}) }
		iv("ci:f1", ci.F1)
		if ci.PAcc != nil {
			iv("ci:pacc", *ci.PAcc)
		}
		iv("ci:accuracy", ci.Accuracy)
		fs = append(fs, fig{key: "ci:level", kind: kFrac, v: score.Stat{Mean: ci.Level}},
			fig{key: "ci:resamples", kind: kCount, v: score.Stat{Mean: float64(ci.Resamples)}},
			fig{key: "ci:units", kind: kCount, v: score.Stat{Mean: float64(ci.Units)}})
	}
	names := make([]string, 0, len(r.ByCWE))
	for w := range r.ByCWE {
		names = append(names, w)
	}
	slices.SortFunc(names, cweCompare)
	for _, w := range names {
		c := r.ByCWE[w]
		p := "cwe:" + w + ":"
		count(p+"n", c.N)
		count(p+"tp", c.TP)
		count(p+"fn", c.FN)
		count(p+"fp", c.FP)
		count(p+"tn", c.TN)
		frac(p+"recall", c.Recall)
		frac(p+"f1", c.F1)
		count(p+"pairs", c.Pairs)
		frac(p+"pacc", c.PAcc)
	}
	return fs
}

// ciBy names the units a column's intervals resampled.
func ciBy(c Column) string {
	if c.Result != nil && c.Result.CI != nil {
		return c.Result.CI.By
	}
	return ""
}

// cweCompare orders CWE-79 before CWE-119 (by number), and other names after, by text.
func cweCompare(a, b string) int {
	na, oka := cweNumber(a)
	nb, okb := cweNumber(b)
	switch {
	case oka && okb && na != nb:
		return na - nb
	case oka != okb:
		if oka {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

func cweNumber(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "CWE-"))
	return n, err == nil && strings.HasPrefix(s, "CWE-")
}

// table is one block of a text or Markdown score table; note is printed under it.
type table struct {
	header []string
	rows   [][]string
	note   string
}

// row names a table row and the figure it shows.
type row struct{ label, key string }

// tables lays out the text and Markdown tables: summary, pairwise, VD-S, per CWE.
func tables(cols []Column) []table {
	idx := make([]map[string]fig, len(cols))
	anyAgg := false
	var cwes []string
	seenCWE := map[string]bool{}
	for i, c := range cols {
		idx[i] = map[string]fig{}
		for _, f := range figures(c) {
			idx[i][f.key] = f
			if w, ok := strings.CutPrefix(f.key, "cwe:"); ok && strings.HasSuffix(w, ":n") {
				w = strings.TrimSuffix(w, ":n")
				if !seenCWE[w] {
					seenCWE[w] = true
					cwes = append(cwes, w)
				}
			}
		}
		if c.Result != nil {
			idx[i]["repeats"] = fig{key: "repeats", kind: kCount, v: score.Stat{Mean: 1}}
		}
		anyAgg = anyAgg || c.Agg != nil
	}
	slices.SortFunc(cwes, cweCompare)
	has := func(key string) bool {
		for _, m := range idx {
			if _, ok := m[key]; ok {
				return true
			}
		}
		return false
	}
	header := func(first string) []string {
		h := []string{first}
		for _, c := range cols {
			h = append(h, columnName(c, len(cols)))
		}
		return h
	}
	block := func(first string, rows []row) table {
		t := table{header: header(first)}
		for _, r := range rows {
			line := []string{r.label}
			for _, m := range idx {
				f, ok := m[r.key]
				line = append(line, cell(f, ok))
			}
			t.rows = append(t.rows, line)
		}
		return t
	}

	var summary []row
	if anyAgg {
		summary = append(summary, row{"repeats", "repeats"})
	}
	summary = append(summary,
		row{"n", "n"}, row{"ok", "status:ok"}, row{"failed", "status:failed"},
		row{"error", "status:error"}, row{"missing", "status:missing"},
		row{"tp", "binary:tp"}, row{"fp", "binary:fp"}, row{"tn", "binary:tn"}, row{"fn", "binary:fn"},
		row{"accuracy", "binary:accuracy"}, row{"precision", "binary:precision"},
		row{"recall", "binary:recall"}, row{"F1", "binary:f1"}, row{"FPR", "binary:fpr"},
		row{"FNR", "binary:fnr"}, row{"TNR", "binary:tnr"})
	if has("ci:f1") {
		summary = append(summary, row{"F1 95% CI", "ci:f1"}, row{"accuracy 95% CI", "ci:accuracy"})
		if has("ci:pacc") {
			summary = append(summary, row{"pAcc 95% CI", "ci:pacc"})
		}
	}
	ts := []table{block("metric", summary)}
	if has("ci:f1") {
		ts[0].note = "95% CI: percentile bootstrap"
		for i, m := range idx {
			if f, ok := m["ci:resamples"]; ok {
				ts[0].note += fmt.Sprintf("; %s: %g resamples of %g units (by %s)", columnName(cols[i], len(cols)), f.v.Mean, m["ci:units"].v.Mean, ciBy(cols[i]))
			}
		}
	}

	if has("pairwise:pairs") {
		t := block("pairwise", []row{
			{"pairs", "pairwise:pairs"}, {"incomplete", "pairwise:incomplete"},
			{"P-C", "pairwise:p_c"}, {"P-V", "pairwise:p_v"}, {"P-B", "pairwise:p_b"},
			{"P-R", "pairwise:p_r"}, {"pAcc", "pairwise:pacc"},
		})
		t.note = "random guessing: P-C = 25.0%"
		ts = append(ts, t)
	}

	if has("vds:fnr") {
		t := block("VD-S", []row{
			{"FPR tolerance r", "vds:fpr_tolerance"}, {"FNR at FPR <= r", "vds:fnr"},
			{"threshold", "vds:threshold"}, {"cases", "vds:n"},
		})
		for i, m := range idx {
			if m["vds:degenerate"].flag {
				t.rows[1][i+1] += " (degenerate: scores take <= 2 values)"
			}
		}
		ts = append(ts, t)
	}

	if len(cwes) > 0 && len(cols) == 1 {
		metrics := []row{{"n", ":n"}, {"recall", ":recall"}, {"F1", ":f1"}, {"pAcc", ":pacc"}}
		t := table{header: []string{"CWE"}}
		for _, m := range metrics {
			t.header = append(t.header, m.label)
		}
		for _, w := range cwes {
			line := []string{w}
			for _, x := range metrics {
				line = append(line, cweCell(idx[0], w, x.key))
			}
			t.rows = append(t.rows, line)
		}
		ts = append(ts, t)
	}
	if len(cwes) > 0 && len(cols) > 1 {
		// Side by side, one table per figure keeps the width readable: subjects as columns.
		for _, x := range []row{{"F1 by CWE", ":f1"}, {"pAcc by CWE", ":pacc"}} {
			t := table{header: []string{x.label, "n"}}
			for _, c := range cols {
				t.header = append(t.header, columnName(c, len(cols)))
			}
			for _, w := range cwes {
				line := []string{w, cweCell(idx[0], w, ":n")}
				for _, m := range idx {
					line = append(line, cweCell(m, w, x.key))
				}
				t.rows = append(t.rows, line)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// cweCell is one per-CWE figure; pAcc is "-" where the CWE has no pair.
func cweCell(m map[string]fig, w, key string) string {
	f, ok := m["cwe:"+w+key]
	if key == ":pacc" && ok && m["cwe:"+w+":pairs"].v.Mean == 0 {
		ok = false
	}
	return cell(f, ok)
}

func columnName(c Column, ncols int) string {
	if c.Name == "" && ncols == 1 {
		return "value"
	}
	return c.Name
}

// cell formats a figure for text and Markdown; "-" when the column lacks it.
func cell(f fig, ok bool) string {
	if !ok {
		return "-"
	}
	pct := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }
	switch f.kind {
	case kFrac:
		if f.agg {
			return pct(f.v.Mean) + " ± " + pct(f.v.Std)
		}
		return pct(f.v.Mean)
	case kCount:
		if f.agg {
			return strconv.FormatFloat(f.v.Mean, 'f', 1, 64) + " ± " + strconv.FormatFloat(f.v.Std, 'f', 1, 64)
		}
		return strconv.FormatFloat(f.v.Mean, 'f', -1, 64)
	case kInterval:
		return "[" + pct(f.lo) + ", " + pct(f.hi) + "]"
	case kScore:
		if f.null {
			return "none"
		}
		if f.agg {
			return strconv.FormatFloat(f.v.Mean, 'g', 4, 64) + " ± " + strconv.FormatFloat(f.v.Std, 'g', 2, 64)
		}
		return strconv.FormatFloat(f.v.Mean, 'g', 4, 64)
	}
	return strconv.FormatBool(f.flag)
}

func writeText(w io.Writer, ts []table) error {
	var b bytes.Buffer // writes to a buffer never fail: one error check at the end
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
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
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeMarkdown(w io.Writer, ts []table) error {
	var b bytes.Buffer
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
	_, err := w.Write(b.Bytes())
	return err
}

// writeJSON writes one column's score object, or {"name": object, ...} in column order.
func writeJSON(w io.Writer, cols []Column) error {
	obj := func(c Column, prefix string) ([]byte, error) {
		if c.Agg != nil {
			return json.MarshalIndent(c.Agg, prefix, "  ")
		}
		return json.MarshalIndent(c.Result, prefix, "  ")
	}
	var b bytes.Buffer
	if len(cols) == 1 {
		o, err := obj(cols[0], "")
		if err != nil {
			return err
		}
		b.Write(o)
	} else {
		b.WriteString("{")
		for i, c := range cols {
			if i > 0 {
				b.WriteString(",")
			}
			name, err := json.Marshal(c.Name)
			if err != nil {
				return err
			}
			o, err := obj(c, "  ")
			if err != nil {
				return err
			}
			b.WriteString("\n  ")
			b.Write(name)
			b.WriteString(": ")
			b.Write(o)
		}
		b.WriteString("\n}")
	}
	b.WriteString("\n")
	_, err := w.Write(b.Bytes())
	return err
}

// writeCSV writes subject,metric,value (and std when a column is aggregated), one row per figure.
// Fractions stay in [0,1]; a nil VD-S threshold has no row.
func writeCSV(w io.Writer, cols []Column) error {
	withStd := slices.ContainsFunc(cols, func(c Column) bool { return c.Agg != nil })
	cw := csv.NewWriter(w)
	header := []string{"subject", "metric", "value"}
	if withStd {
		header = append(header, "std")
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	for _, c := range cols {
		for _, f := range figures(c) {
			if f.null {
				continue
			}
			value, std := num(f.v.Mean), ""
			if f.agg {
				std = num(f.v.Std)
			}
			if f.kind == kBool {
				value = strconv.FormatBool(f.flag)
			}
			if f.kind == kInterval {
				for _, x := range []struct {
					suffix string
					v      float64
				}{{":lo", f.lo}, {":hi", f.hi}} {
					rec := []string{c.Name, f.key + x.suffix, num(x.v)}
					if withStd {
						rec = append(rec, "")
					}
					if err := cw.Write(rec); err != nil {
						return err
					}
				}
				continue
			}
			rec := []string{c.Name, f.key, value}
			if withStd {
				rec = append(rec, std)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
