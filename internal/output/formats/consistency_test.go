package formats_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	stdhtml "html"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/board"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/output/formats"
	"github.com/vulnbench/vulnbench/internal/output/html"
	"github.com/vulnbench/vulnbench/internal/report"
)

// Every figure is written one way: one run (and several side by side) rendered in every format
// gives the same values. The score tables of text, Markdown, TSV, the HTML report and the
// viewer's page (html.Fragment, what it embeds) hold the same cells; JSON and CSV hold the same
// numbers; every fraction, points figure and count of those tables is the JSON's value as text
// writes it (a percentage with one decimal, N.N of 100); the board's cells of a run are the
// score's, in text and in JSON.
func TestOneWayEachFigureIsWritten(t *testing.T) {
	reg := formats.All()
	for name, rep := range fixtures() {
		if rep.Truth == nil {
			rep.Truth = &report.Truth{Source: "suite.jsonl"} // the HTML pages name it
		}
		t.Run(name, func(t *testing.T) {
			render := func(format string) string {
				var b bytes.Buffer
				if err := reg.Present(&b, format, rep); err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				return b.String()
			}
			tables, err := output.Tables(rep)
			if err != nil {
				t.Fatal(err)
			}
			var want [][]string
			for _, tb := range tables {
				want = append(want, trimmed(tb.Header))
				for _, r := range tb.Rows {
					want = append(want, trimmed(r))
				}
			}
			var frag bytes.Buffer
			if err := (html.Fragment{}).Present(&frag, rep); err != nil {
				t.Fatal(err)
			}
			for format, got := range map[string][][]string{
				"text": textRows(render("text")), "md": mdRows(render("md")), "tsv": tsvRows(render("tsv")),
				"html": htmlRows(render("html")), "viewer": htmlRows(frag.String()),
			} {
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%s's score tables differ from the layout (-layout +%s):\n%s", format, format, d)
				}
			}

			// JSON and CSV: the same numbers, and the tables' text is theirs.
			var doc map[string]any
			if err := json.Unmarshal([]byte(render("json")), &doc); err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(strings.NewReader(render("csv"))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			csvOf := map[string]string{}
			for _, r := range recs[1:] {
				csvOf[r[0]+"\x00"+r[3]] = r[4]
			}
			cols, err := output.Columns(rep)
			if err != nil {
				t.Fatal(err)
			}
			ms := report.Metrics()
			checked := 0
			for ci, col := range cols {
				runDoc := doc
				if len(cols) > 1 {
					runDoc = doc["runs"].([]any)[ci].(map[string]any)
				}
				for i := range ms {
					m := &ms[i]
					if m.Family != nil || m.Label == "" || (m.Format != report.Fraction && m.Format != report.Points && m.Format != report.Count) {
						continue
					}
					v, ok := m.Get(col.Figs, "")
					if !ok || v.Null || v.Blank {
						continue
					}
					jv, jok := jsonMean(runDoc, m.JSONPath(""))
					cv, err := strconv.ParseFloat(csvOf[col.Run.Name+"\x00"+m.CSVKey("")], 64)
					if !jok || err != nil || jv != cv {
						t.Errorf("%s %s: JSON %v (%v), CSV %v (%v)", col.Run.Name, m.Key, jv, jok, csvOf[col.Run.Name+"\x00"+m.CSVKey("")], err)
						continue
					}
					cell := cellOf(tables, m, ci)
					tv, unit := leadingNumber(cell)
					want := jv
					switch m.Format {
					case report.Fraction:
						want, unit = 100*jv, strings.TrimSuffix(unit, "%")+"%"
					case report.Points:
						want = 100 * jv
					}
					if math.Abs(tv-want) > 0.05+1e-9 || (m.Format == report.Fraction && unit != "%") || (m.Format == report.Points && !strings.HasSuffix(cell, "of 100")) {
						t.Errorf("%s %s: the tables write %q, JSON %v", col.Run.Name, m.Key, cell, jv)
					}
					checked++
				}
			}
			if checked < 5 {
				t.Errorf("%d figures checked", checked)
			}

			// The board of the same runs writes each headline figure as score does.
			bt, err := board.TableOf(rep, "run")
			if err != nil {
				t.Fatal(err)
			}
			var bj bytes.Buffer
			if err := reg.Present(&bj, "json", &board.Board{Tables: []board.Table{*bt}}); err != nil {
				t.Fatal(err)
			}
			var bdoc struct {
				Tables []struct {
					Rows []struct {
						Run   string
						Cells []struct {
							OK   bool
							Mean float64
						}
					}
				}
			}
			if err := json.Unmarshal(bj.Bytes(), &bdoc); err != nil {
				t.Fatal(err)
			}
			for _, row := range bt.Rows {
				ci := indexOfRun(cols, row.Run)
				for k, c := range bt.Columns {
					if c.Metric == "" || !row.Cells[k].OK {
						continue
					}
					m := metricOf(ms, c.Metric)
					scoreCell := cellOf(tables, m, ci)
					if got := c.Text(row.Cells[k]); !strings.HasPrefix(got, scoreCell) && !strings.HasPrefix(scoreCell, strings.TrimSuffix(got, " (degenerate)")) {
						t.Errorf("%s %s: the board writes %q, score %q", row.Run, c.Key, got, scoreCell)
					}
					jv, _ := jsonMean(pick(doc, len(cols), ci), m.JSONPath(""))
					for _, br := range bdoc.Tables[0].Rows {
						if br.Run == row.Run && br.Cells[k].Mean != jv {
							t.Errorf("%s %s: board JSON %v, score JSON %v", row.Run, c.Key, br.Cells[k].Mean, jv)
						}
					}
				}
			}
		})
	}
}

func pick(doc map[string]any, n, i int) map[string]any {
	if n == 1 {
		return doc
	}
	return doc["runs"].([]any)[i].(map[string]any)
}

func indexOfRun(cols []output.Column, name string) int {
	for i, c := range cols {
		if c.Run.Name == name || c.Run.ID == name {
			return i
		}
	}
	return -1
}

func metricOf(ms []report.Metric, key string) *report.Metric {
	for i := range ms {
		if ms[i].Key == key && ms[i].Family == nil {
			return &ms[i]
		}
	}
	return nil
}

// cellOf is the text of metric m for run column i in the score tables.
func cellOf(tables []output.Table, m *report.Metric, i int) string {
	title := ""
	for _, s := range report.Sections() {
		if s.Name == m.Section {
			title = s.Title
		}
	}
	for _, tb := range tables {
		if tb.Header[0] != title {
			continue
		}
		for _, r := range tb.Rows {
			if r[0] == m.Label {
				return r[1+i]
			}
		}
	}
	return ""
}

// jsonMean is the number at path of a score JSON document: a value, or a {"mean", "std"}'s mean.
func jsonMean(doc map[string]any, path []string) (float64, bool) {
	var v any = doc
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return 0, false
		}
		if v, ok = m[p]; !ok {
			return 0, false
		}
	}
	switch x := v.(type) {
	case float64:
		return x, true
	case map[string]any:
		f, ok := x["mean"].(float64)
		return f, ok
	}
	return 0, false
}

var number = regexp.MustCompile(`^-?\d+(\.\d+)?(%?)`)

// leadingNumber is the number a cell starts with, and its % if it has one.
func leadingNumber(cell string) (float64, string) {
	m := number.FindStringSubmatch(cell)
	if m == nil {
		return math.NaN(), ""
	}
	f, _ := strconv.ParseFloat(strings.TrimSuffix(m[0], "%"), 64)
	return f, m[2]
}

// textRows are the rows of the aligned tables of text output: cells two spaces apart or more
// (tabwriter's padding), blank lines and notes (a single cell) left out.
func textRows(s string) [][]string {
	sep := regexp.MustCompile(`\s{2,}`)
	var rows [][]string
	for _, line := range strings.Split(s, "\n") {
		if f := sep.Split(strings.TrimSpace(line), -1); len(f) >= 2 {
			rows = append(rows, f)
		}
	}
	return rows
}

func mdRows(s string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| :---") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | ") {
			cells = append(cells, strings.ReplaceAll(c, `\|`, "|"))
		}
		rows = append(rows, trimmed(cells))
	}
	return rows
}

// trimmed is cells without the spaces round each (the layout indents some labels).
func trimmed(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.TrimSpace(c)
	}
	return out
}

func tsvRows(s string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(s, "\n") {
		if line == "" || strings.HasPrefix(line, "# ") {
			continue
		}
		rows = append(rows, trimmed(strings.Split(line, "\t")))
	}
	return rows
}

var (
	scoresSection = regexp.MustCompile(`(?s)<section id="scores">(.*?)</section>`)
	trRe          = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRe        = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
)

// htmlRows are the rows of the score tables of an HTML page (its scores section).
func htmlRows(page string) [][]string {
	sec := scoresSection.FindStringSubmatch(page)
	if sec == nil {
		return nil
	}
	var rows [][]string
	for _, r := range trRe.FindAllStringSubmatch(sec[1], -1) {
		var cells []string
		for _, c := range cellRe.FindAllStringSubmatch(r[1], -1) {
			cells = append(cells, stdhtml.UnescapeString(c[1]))
		}
		rows = append(rows, trimmed(cells))
	}
	return rows
}
