package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/stats"
)

// WriteComparison writes a comparison of two runs of rep in format: text, md or json (the
// compare contract: mcnemar {b, c, p_value} and delta {f1, pacc} with their intervals, opening
// with the scorer and vulnbench's version).
func WriteComparison(w io.Writer, format string, rep *report.Report, c *report.Comparison) error {
	return writeCompare(w, format, "comparison", struct {
		Scorer    int    `json:"scorer"`
		Vulnbench string `json:"vulnbench"`
		*report.Comparison
	}{rep.Scorer, rep.Vulnbench, c}, func(b *bytes.Buffer) { comparisonTable(b, format, rep, c) })
}

// writeCompare writes doc as indented JSON, or table's text or Markdown, to w; what names the
// output in errors.
func writeCompare(w io.Writer, format, what string, doc any, table func(b *bytes.Buffer)) error {
	var b bytes.Buffer
	switch format {
	case "json":
		j, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return fmt.Errorf("write %s: %w", what, err)
		}
		b.Write(j)
		b.WriteByte('\n')
	case "text", "md":
		table(&b)
	default:
		return fmt.Errorf("unknown comparison format %q: use text, md or json", format)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write %s: %w", what, err)
	}
	return nil
}

func comparisonTable(b *bytes.Buffer, format string, rep *report.Report, c *report.Comparison) {
	iv := func(i stats.Interval) string { return "[" + points(i[0]) + ", " + points(i[1]) + "]" }
	rows := [][]string{{"metric", "A", "B", "A - B (points)", fmt.Sprintf("%g%% CI", 100*c.Delta.Level)}}
	rows = append(rows, []string{"F1", percent(c.ScoresA.F1), percent(c.ScoresB.F1), points(c.Delta.F1.Value), iv(c.Delta.F1.CI)})
	if c.Delta.PAcc != nil && c.ScoresA.PAcc != nil && c.ScoresB.PAcc != nil {
		rows = append(rows, []string{"pAcc", percent(*c.ScoresA.PAcc), percent(*c.ScoresB.PAcc), points(c.Delta.PAcc.Value), iv(c.Delta.PAcc.CI)})
	}
	rows = append(rows, []string{"accuracy", percent(c.ScoresA.Accuracy), percent(c.ScoresB.Accuracy), points(c.Delta.Accuracy.Value), iv(c.Delta.Accuracy.CI)})
	rows = append(rows, []string{"Youden (mean over CWEs)", percent(c.Youden.A), percent(c.Youden.B), points(c.Youden.Delta), "-"})
	fmt.Fprintf(b, "A: %s\nB: %s\n\n", c.A, c.B)
	writeRows(b, format, rows)
	m := c.McNemar
	verdict := "no significant difference at 5%"
	if m.PValue < 0.05 {
		verdict = "significant at 5%"
	}
	fmt.Fprintf(b, "\nMcNemar exact: %d cases judged by both; only A right %d, only B right %d; p = %.4g (%s)\n", m.N, m.B, m.C, m.PValue, verdict)
	fmt.Fprintf(b, "bootstrap: %d resamples of %d %s units, seed %d\n", c.Delta.Resamples, c.Delta.Units, c.Delta.By, c.Delta.Seed)
	fmt.Fprintf(b, "Youden: %d CWEs with vul and ben cases (%d skipped)\n", c.Youden.CWEs, c.Youden.Skipped)
	cwes := make([]string, 0, len(c.Youden.ByCWE))
	for w := range c.Youden.ByCWE {
		cwes = append(cwes, w)
	}
	slices.Sort(cwes)
	for _, w := range cwes {
		y := c.Youden.ByCWE[w]
		fmt.Fprintf(b, "  %-12s n=%-6d A %6s  B %6s\n", w, y.N, percent(y.A), percent(y.B))
	}
	b.WriteString("\n" + Footer(rep) + "\n")
}

// WriteUnion writes what several runs of rep add together in format: text, md or json (opening
// with the scorer and vulnbench's version).
func WriteUnion(w io.Writer, format string, rep *report.Report, u *report.Union) error {
	return writeCompare(w, format, "union", struct {
		Scorer    int    `json:"scorer"`
		Vulnbench string `json:"vulnbench"`
		*report.Union
	}{rep.Scorer, rep.Vulnbench, u}, func(b *bytes.Buffer) { unionTables(b, format, rep, u) })
}

func unionTables(b *bytes.Buffer, format string, rep *report.Report, u *report.Union) {
	rows := [][]string{{"run", "found", "recall", "only it finds", "marginal (points)"}}
	for _, r := range u.Runs {
		rows = append(rows, []string{r.Run, strconv.Itoa(r.Found), percent(r.Recall), strconv.Itoa(r.Only), points(r.Marginal)})
	}
	rows = append(rows, []string{"all together", strconv.Itoa(u.Found), percent(u.Recall), "-", "-"})
	fmt.Fprintf(b, "What %d runs find together among %d vul cases (recall over every vul case: an error or no verdict finds nothing):\n\n", len(u.Runs), u.Vul)
	writeRows(b, format, rows)
	b.WriteString("\n")
	pairs := [][]string{{"pair", "only A", "only B", "both", "recall together"}}
	for _, p := range u.Pairs {
		pairs = append(pairs, []string{p.A + " + " + p.B, strconv.Itoa(p.OnlyA), strconv.Itoa(p.OnlyB), strconv.Itoa(p.Both), percent(p.Recall)})
	}
	writeRows(b, format, pairs)
	for _, r := range u.Runs {
		if len(r.OnlyCases) > 0 {
			fmt.Fprintf(b, "\nonly %s finds: %s", r.Run, strings.Join(r.OnlyCases, ", "))
		}
	}
	b.WriteString("\n\n" + Footer(rep) + "\n")
}

// writeRows writes rows (the first the header) as a Markdown table or aligned text.
func writeRows(b *bytes.Buffer, format string, rows [][]string) {
	if format == "md" {
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
