package board

import (
	"encoding/csv"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
)

// Kind names a board among the documents commands write (output.Document).
func (*Board) Kind() string { return "board" }

// JSONValue is what the json format writes: the board as schema/board.schema.json describes.
func (b *Board) JSONValue() (any, error) { return b, nil }

// Blocks is the board as general formats lay it out: a table per suite, every cell as text
// writes it, the rank rule under it, then the scorer's line.
func (b *Board) Blocks() ([]output.Block, error) {
	var bs []output.Block
	for i := range b.Tables {
		bs = append(bs, output.Block{Title: title(&b.Tables[i]), Table: b.Tables[i].Output()})
	}
	return append(bs, output.Block{Lines: []string{fmt.Sprintf("scorer %d, vulnbench %s", b.Scorer, b.Vulnbench)}}), nil
}

// Output is the table as general formats and the HTML report show it: every cell as text writes
// it, the rank rule as its note.
func (t *Table) Output() *output.Table {
	ht := HTMLTables(&Board{Tables: []Table{*t}})[0]
	return &output.Table{Header: ht.Header, Rows: ht.Rows, Note: ht.Note}
}

// Text is how text, Markdown and HTML write a cell: a figure as score writes it (output.Text:
// fractions as percentages with one decimal, points as "N.N of 100", a std over repeats after ±),
// its interval in brackets as score writes intervals, its note in parentheses; cost in dollars,
// tokens as a whole number; "-" when missing, the note alone (unpriced) when it has one.
func (c Column) Text(cell Cell) string {
	if !cell.OK {
		if cell.Note != "" {
			return cell.Note
		}
		return "-"
	}
	v := report.Value{Stat: score.Stat{Mean: cell.Mean, Std: cell.Std}}
	var s string
	switch c.Unit {
	case "fraction":
		s = output.Text(report.Fraction, v, cell.Std != 0)
	case "points":
		s = output.Text(report.Points, v, cell.Std != 0)
	case "usd":
		s = "$" + strconv.FormatFloat(cell.Mean, 'f', 4, 64)
	case "tokens":
		s = strconv.FormatFloat(cell.Mean, 'f', 0, 64)
	default:
		s = output.Text(report.Count, v, cell.Std != 0)
	}
	if cell.Lo != nil && cell.Hi != nil {
		iv := report.Value{Lo: *cell.Lo, Hi: *cell.Hi}
		if c.Unit == "points" {
			s += " " + output.Text(report.PointsInterval, iv, false)
		} else {
			s += " " + output.Text(report.Interval, iv, false)
		}
	}
	if cell.Note != "" {
		s += " (" + cell.Note + ")"
	}
	return s
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// header is the text header and one row's leading cells.
var header = []string{"rank", "run", "subject", "model", "prompt", "harness", "effort", "repeats"}

// rankText is a row's rank, "=N" when it shares it.
func rankText(r Row) string {
	if r.Tied {
		return "=" + strconv.Itoa(r.Rank)
	}
	return strconv.Itoa(r.Rank)
}

func lead(r Row) []string {
	return []string{rankText(r), r.Run, r.Subject, dash(r.Model), dash(r.Prompt), dash(r.Harness), dash(r.Effort), strconv.Itoa(r.Repeats)}
}

func title(t *Table) string {
	return fmt.Sprintf("%s board: %s (sha256 %.12s, %d cases), sorted by %s", t.Kind, t.Suite, t.Hash, t.Cases, t.Sort)
}

// WriteText writes each table aligned, with its rank rule under it.
func (b *Board) WriteText(w io.Writer) error {
	for i := range b.Tables {
		t := &b.Tables[i]
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, title(t))
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		hs := slices.Clone(header)
		for _, c := range t.Columns {
			hs = append(hs, c.Label)
		}
		fmt.Fprintln(tw, strings.Join(hs, "\t"))
		for _, r := range t.Rows {
			cells := lead(r)
			for k, c := range t.Columns {
				cells = append(cells, c.Text(r.Cells[k]))
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w, t.RankNote)
	}
	fmt.Fprintf(w, "scorer %d, vulnbench %s\n", b.Scorer, b.Vulnbench)
	return nil
}

// WriteMarkdown writes each table as a GitHub Markdown table.
func (b *Board) WriteMarkdown(w io.Writer) error {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for i := range b.Tables {
		t := &b.Tables[i]
		fmt.Fprintf(w, "### %s\n\n", esc(title(t)))
		hs := slices.Clone(header)
		for _, c := range t.Columns {
			hs = append(hs, esc(c.Label))
		}
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(hs, " | "), strings.Repeat("---|", len(hs)))
		for _, r := range t.Rows {
			cells := lead(r)
			for k, c := range t.Columns {
				cells = append(cells, c.Text(r.Cells[k]))
			}
			for k := range cells {
				cells[k] = esc(cells[k])
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
		fmt.Fprintf(w, "\n%s\n\n", t.RankNote)
	}
	fmt.Fprintf(w, "scorer %d, vulnbench %s\n", b.Scorer, b.Vulnbench)
	return nil
}

// WriteCSV writes one line per run and figure: suite hash, kind, rank, run, subject, model,
// prompt, harness, effort, repeats, figure key, mean, std, lo, hi (fractions in [0,1], points
// as a fraction of 100; empty where the run lacks the figure or the interval), note
// (degenerate, unpriced), tied (the rank is shared).
func (b *Board) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"suite_sha256", "kind", "rank", "run", "subject", "model", "prompt", "harness", "effort", "repeats", "figure", "mean", "std", "lo", "hi", "note", "tied"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, t := range b.Tables {
		for _, r := range t.Rows {
			for k, c := range t.Columns {
				cell := r.Cells[k]
				rec := []string{t.Hash, t.Kind, strconv.Itoa(r.Rank), r.Run, r.Subject, r.Model, r.Prompt, r.Harness, r.Effort, strconv.Itoa(r.Repeats), c.Key, "", "", "", "", cell.Note, strconv.FormatBool(r.Tied)}
				if cell.OK {
					rec[11], rec[12] = f(cell.Mean), f(cell.Std)
				}
				if cell.Lo != nil && cell.Hi != nil {
					rec[13], rec[14] = f(*cell.Lo), f(*cell.Hi)
				}
				_ = cw.Write(rec)
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

var htmlBoard = template.Must(template.New("board").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>vulnbench board</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.2em .5em;text-align:right}th:nth-child(-n+7),td:nth-child(-n+7){text-align:left}.note{color:#444;font-size:.9em}</style></head><body>
{{range .Tables}}<section class="board">
<h2>{{.Title}}</h2>
<table><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</tbody></table>
<p class="note">{{.Note}}</p>
</section>
{{end}}<p class="note">scorer {{.Scorer}}, vulnbench {{.Vulnbench}}</p>
</body></html>
`))

// HTMLTable is a table as HTML shows it: every cell as text shows it.
type HTMLTable struct {
	Title  string
	Header []string
	Rows   [][]string
	Note   string
	Runs   []string // the run of each row
}

// HTMLTables are the tables of b as the HTML board and the viewer's runs page show them.
func HTMLTables(b *Board) []HTMLTable {
	var ts []HTMLTable
	for i := range b.Tables {
		t := &b.Tables[i]
		ht := HTMLTable{Title: title(t), Header: slices.Clone(header), Note: t.RankNote}
		for _, c := range t.Columns {
			ht.Header = append(ht.Header, c.Label)
		}
		for _, r := range t.Rows {
			cells := lead(r)
			for k, c := range t.Columns {
				cells = append(cells, c.Text(r.Cells[k]))
			}
			ht.Rows = append(ht.Rows, cells)
			ht.Runs = append(ht.Runs, r.Run)
		}
		ts = append(ts, ht)
	}
	return ts
}

// WriteHTML writes the board as one self-contained HTML page (no script, nothing fetched).
func (b *Board) WriteHTML(w io.Writer) error {
	return htmlBoard.Execute(w, struct {
		Tables    []HTMLTable
		Scorer    int
		Vulnbench string
	}{HTMLTables(b), b.Scorer, b.Vulnbench})
}
