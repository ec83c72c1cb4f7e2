package osv

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// WriteFile writes the built cases to the suite file out, replaced atomically.
func (res *Result) WriteFile(out string) error {
	return suite.WriteFileAtomic(out, func(w io.Writer) error {
		sw := suite.NewWriter(w)
		if err := res.Write(sw); err != nil {
			return err
		}
		return sw.Flush()
	})
}

// WriteJSONFile writes the report as indented JSON to path, replaced atomically.
func (rep Report) WriteJSONFile(path string) error {
	return suite.WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	})
}

// WriteText writes every dropped record and left-out function, then the counts.
func (rep Report) WriteText(w io.Writer) {
	if len(rep.Dropped) > 0 {
		fmt.Fprintf(w, "dropped %d of %d records:\n", len(rep.Dropped), rep.Records)
		for _, d := range rep.Dropped {
			fmt.Fprintf(w, "  %s (%s): %s: %s\n", d.Source, d.ID, d.Reason, d.Detail)
		}
	}
	if len(rep.Functions) > 0 {
		fmt.Fprintf(w, "left out %d functions of records that gave pairs:\n", len(rep.Functions))
		for _, d := range rep.Functions {
			fmt.Fprintf(w, "  %s (%s) %s: %s: %s\n", d.Source, d.ID, d.Function, d.Reason, d.Detail)
		}
	}
	counts := func(title string, m map[string]int) {
		if len(m) == 0 {
			return
		}
		parts := make([]string, 0, len(m))
		for k, n := range m {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(parts)
		fmt.Fprintf(w, "%s: %s\n", title, strings.Join(parts, ", "))
	}
	byReason := map[string]int{}
	for r, n := range rep.ByReason {
		byReason[string(r)] = n
	}
	counts("dropped by reason", byReason)
	counts("pairs by narrowing", rep.Narrowing)
	counts("records that gave pairs only through", rep.Saved)
	stops := map[string]int{}
	for s, n := range rep.Stops {
		stops[string(s)] = n
	}
	counts("walks ended", stops)
}

// studyColumn is a column of the study table and how to read it from a row.
type studyColumn struct {
	name string
	get  func(r VICRow) string
}

// studyColumns are the study table's columns.
func studyColumns() []studyColumn {
	return []studyColumn{
		{"project", func(r VICRow) string { return r.Project }},
		{"records", func(r VICRow) string { return fmt.Sprint(r.Records) }},
		{"checked", func(r VICRow) string { return fmt.Sprint(r.Checked) }},
		{"harness-only", func(r VICRow) string { return fmt.Sprint(r.HarnessOnly) }},
		{"compared", func(r VICRow) string { return fmt.Sprint(r.Compared) }},
		{"exact", func(r VICRow) string { return fmt.Sprint(r.Exact) }},
		{"rule earlier", func(r VICRow) string { return withMedian(r.Earlier, r.EarlierMedian) }},
		{"rule later", func(r VICRow) string { return withMedian(r.Later, r.LaterMedian) }},
		{"inside range", func(r VICRow) string { return fmt.Sprint(r.InRange) }},
		{"open range", func(r VICRow) string { return fmt.Sprint(r.Open) }},
		{"not comparable", func(r VICRow) string { return fmt.Sprint(r.Unrelated) }},
	}
}

func withMedian(n int, med float64) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (median %g)", n, med)
}

// Kind names a study among the documents commands write (output.Document): `vulnbench suite
// osv-vic`'s.
func (st *Study) Kind() string { return "osv-vic" }

// rows are the study's rows: one per project, the records not checked, the total.
func (st *Study) rows() []VICRow {
	rows := append([]VICRow{}, st.Projects...)
	if st.Unchecked.Records > 0 {
		rows = append(rows, st.Unchecked)
	}
	return append(rows, st.Total)
}

const studyNote = "Pairs, by project. rule earlier / later: median first-parent distance in commits, to the nearest end of a bisected range. harness-only: the bisected commit changes only fuzzing harnesses, tests, build files or docs (not compared). open range: bisection found no start of the range and the rule's commit is before its end."

// WriteMarkdown writes the study's headline and its Markdown table with its note.
func (st *Study) WriteMarkdown(w io.Writer) error {
	cols := studyColumns()
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**\n\n", st.Headline.Text)
	for i, c := range cols {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(c.name)
	}
	fmt.Fprintf(&b, "\n%s\n", strings.TrimSuffix(strings.Repeat("---|", len(cols)), "|"))
	for _, r := range st.rows() {
		for i, c := range cols {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(strings.ReplaceAll(c.get(r), "|", `\|`))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n" + studyNote + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteText writes the study's headline and its table as aligned columns.
func (st *Study) WriteText(w io.Writer) error {
	cols := studyColumns()
	fmt.Fprintf(w, "%s\n\npairs by project:\n", st.Headline.Text)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, c := range cols {
		if i > 0 {
			fmt.Fprint(tw, "\t")
		}
		fmt.Fprint(tw, c.name)
	}
	fmt.Fprintln(tw)
	for _, r := range st.rows() {
		for i, c := range cols {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, c.get(r))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
