package output

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/stats"
)

// Comparison is two runs of a report compared (report.Comparison), the document `vulnbench
// compare` writes for two runs: McNemar, paired bootstrap deltas, Youden per CWE. Its JSON is the
// compare contract (mcnemar {b, c, p_value} and delta {f1, pacc} with their intervals), opening
// with the scorer and vulnbench's version.
type Comparison struct {
	Report *report.Report
	Cmp    *report.Comparison
}

// Kind implements Document.
func (Comparison) Kind() string { return "comparison" }

// JSONValue implements JSONValue.
func (c Comparison) JSONValue() (any, error) {
	return struct {
		Scorer    int    `json:"scorer"`
		Vulnbench string `json:"vulnbench"`
		*report.Comparison
	}{c.Report.Scorer, c.Report.Vulnbench, c.Cmp}, nil
}

// WriteText implements TextWriter.
func (c Comparison) WriteText(w io.Writer) error { return c.write(w, false) }

// WriteMarkdown implements MarkdownWriter.
func (c Comparison) WriteMarkdown(w io.Writer) error { return c.write(w, true) }

// Blocks implements Blocker: the table of figures, then the tests' lines.
func (c Comparison) Blocks() ([]Block, error) {
	rows, lines := comparisonRows(c.Report, c.Cmp)
	return []Block{{Title: "A: " + c.Cmp.A + "; B: " + c.Cmp.B, Table: &Table{Header: rows[0], Rows: rows[1:]}, Lines: lines}}, nil
}

func (c Comparison) write(w io.Writer, md bool) error {
	var b bytes.Buffer
	comparisonTable(&b, md, c.Report, c.Cmp)
	_, err := w.Write(b.Bytes())
	return err
}

func comparisonTable(b *bytes.Buffer, md bool, rep *report.Report, c *report.Comparison) {
	rows, lines := comparisonRows(rep, c)
	fmt.Fprintf(b, "A: %s\nB: %s\n\n", c.A, c.B)
	writeRows(b, md, rows)
	b.WriteString("\n" + strings.Join(lines, "\n") + "\n")
}

// comparisonRows are a comparison's table (its header first) and the lines under it.
func comparisonRows(rep *report.Report, c *report.Comparison) (rows [][]string, lines []string) {
	iv := func(i stats.Interval) string { return "[" + points(i[0]) + ", " + points(i[1]) + "]" }
	rows = [][]string{{"metric", "A", "B", "A - B (points)", fmt.Sprintf("%g%% CI", 100*c.Delta.Level)}}
	rows = append(rows, []string{"F1", percent(c.ScoresA.F1), percent(c.ScoresB.F1), points(c.Delta.F1.Value), iv(c.Delta.F1.CI)})
	if c.Delta.PAcc != nil && c.ScoresA.PAcc != nil && c.ScoresB.PAcc != nil {
		rows = append(rows, []string{"pAcc", percent(*c.ScoresA.PAcc), percent(*c.ScoresB.PAcc), points(c.Delta.PAcc.Value), iv(c.Delta.PAcc.CI)})
	}
	rows = append(rows, []string{"accuracy", percent(c.ScoresA.Accuracy), percent(c.ScoresB.Accuracy), points(c.Delta.Accuracy.Value), iv(c.Delta.Accuracy.CI)})
	rows = append(rows, []string{"Youden (mean over CWEs)", percent(c.Youden.A), percent(c.Youden.B), points(c.Youden.Delta), "-"})
	var vexLines []string
	if v := c.VEX; v != nil {
		type delta struct {
			name string
			x    score.VEXDelta
		}
		ds := []delta{{"VEX status F1", v.StatusF1}, {"VEX justification macro-F1", v.MacroF1}}
		if v.MacroF1Lenient != nil {
			ds = append(ds, delta{"VEX justification macro-F1 (lenient)", *v.MacroF1Lenient})
		}
		for _, d := range ds {
			rows = append(rows, []string{d.name, percent(d.x.A), percent(d.x.B), points(d.x.Value), iv(d.x.CI)})
		}
		names := make([]string, 0, len(v.PerClass))
		for n := range v.PerClass {
			names = append(names, n)
		}
		slices.SortFunc(names, report.VEXCompare)
		for _, n := range names {
			k := v.PerClass[n]
			rows = append(rows, []string{fmt.Sprintf("  F1 %s (support %g)", n, k.Support), percent(k.A), percent(k.B), points(k.Delta), "-"})
		}
		vm := v.McNemar
		vexLines = append(vexLines,
			fmt.Sprintf("VEX: every repeat (A %d, B %d), paired by case; bootstrap: %d resamples of %d cases and of each run's repeats, seed %d",
				v.RepeatsA, v.RepeatsB, v.Resamples, v.Units, v.Seed),
			fmt.Sprintf("McNemar exact on the category (right in most repeats): %d cases judged by both; only A right %d, only B right %d; p = %.4g",
				vm.N, vm.B, vm.C, vm.PValue))
	}
	m := c.McNemar
	verdict := "no significant difference at 5%"
	if m.PValue < 0.05 {
		verdict = "significant at 5%"
	}
	lines = append(lines,
		fmt.Sprintf("McNemar exact: %d cases judged by both; only A right %d, only B right %d; p = %.4g (%s)", m.N, m.B, m.C, m.PValue, verdict),
		fmt.Sprintf("bootstrap: %d resamples of %d %s units, seed %d", c.Delta.Resamples, c.Delta.Units, c.Delta.By, c.Delta.Seed),
		fmt.Sprintf("Youden: %d CWEs with vul and ben cases (%d skipped)", c.Youden.CWEs, c.Youden.Skipped))
	lines = append(lines, vexLines...)
	cwes := make([]string, 0, len(c.Youden.ByCWE))
	for w := range c.Youden.ByCWE {
		cwes = append(cwes, w)
	}
	slices.Sort(cwes)
	for _, w := range cwes {
		y := c.Youden.ByCWE[w]
		lines = append(lines, fmt.Sprintf("  %-12s n=%-6d A %6s  B %6s", w, y.N, percent(y.A), percent(y.B)))
	}
	lines = append(lines, "", Footer(rep))
	return rows, lines
}

// Union is what several runs of a report find together (report.Union), the document `vulnbench
// compare` writes for more than two runs; its JSON opens with the scorer and vulnbench's version.
type Union struct {
	Report *report.Report
	U      *report.Union
}

// Kind implements Document.
func (Union) Kind() string { return "union" }

// JSONValue implements JSONValue.
func (u Union) JSONValue() (any, error) {
	return struct {
		Scorer    int    `json:"scorer"`
		Vulnbench string `json:"vulnbench"`
		*report.Union
	}{u.Report.Scorer, u.Report.Vulnbench, u.U}, nil
}

// WriteText implements TextWriter.
func (u Union) WriteText(w io.Writer) error { return u.write(w, false) }

// WriteMarkdown implements MarkdownWriter.
func (u Union) WriteMarkdown(w io.Writer) error { return u.write(w, true) }

// Blocks implements Blocker: the text layout's lines (unionTables) as one block.
func (u Union) Blocks() ([]Block, error) {
	var b bytes.Buffer
	unionTables(&b, false, u.Report, u.U)
	return []Block{{Title: "union", Lines: strings.Split(strings.TrimRight(b.String(), "\n"), "\n")}}, nil
}

func (u Union) write(w io.Writer, md bool) error {
	var b bytes.Buffer
	unionTables(&b, md, u.Report, u.U)
	_, err := w.Write(b.Bytes())
	return err
}

func unionTables(b *bytes.Buffer, md bool, rep *report.Report, u *report.Union) {
	rows := [][]string{{"run", "found", "recall", "only it finds", "marginal (points)"}}
	for _, r := range u.Runs {
		rows = append(rows, []string{r.Run, strconv.Itoa(r.Found), percent(r.Recall), strconv.Itoa(r.Only), points(r.Marginal)})
	}
	rows = append(rows, []string{"all together", strconv.Itoa(u.Found), percent(u.Recall), "-", "-"})
	fmt.Fprintf(b, "What %d runs find together among %d vul cases (recall over every vul case: an error or no verdict finds nothing):\n\n", len(u.Runs), u.Vul)
	writeRows(b, md, rows)
	b.WriteString("\n")
	pairs := [][]string{{"pair", "only A", "only B", "both", "recall together"}}
	for _, p := range u.Pairs {
		pairs = append(pairs, []string{p.A + " + " + p.B, strconv.Itoa(p.OnlyA), strconv.Itoa(p.OnlyB), strconv.Itoa(p.Both), percent(p.Recall)})
	}
	writeRows(b, md, pairs)
	for _, r := range u.Runs {
		if len(r.OnlyCases) > 0 {
			fmt.Fprintf(b, "\nonly %s finds: %s", r.Run, strings.Join(r.OnlyCases, ", "))
		}
	}
	b.WriteString("\n\n" + Footer(rep) + "\n")
}

// writeRows writes rows (the first the header) as a Markdown table or aligned text.
func writeRows(b *bytes.Buffer, md bool, rows [][]string) {
	if md {
		for i, r := range rows {
			b.WriteString("| " + strings.Join(r, " | ") + " |\n")
			if i == 0 {
				b.WriteString("| :---" + strings.Repeat(" | ---:", len(r)-1) + " |\n")
			}
		}
		return
	}
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, x := range r {
			width[i] = max(width[i], len(x))
		}
	}
	for _, r := range rows {
		for i, x := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			if i == len(r)-1 {
				b.WriteString(x)
			} else {
				b.WriteString(x + strings.Repeat(" ", width[i]-len(x)))
			}
		}
		b.WriteString("\n")
	}
}

// points is a fraction in percentage points with one decimal; percent adds the sign.
func points(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) }

func percent(x float64) string { return points(x) + "%" }
