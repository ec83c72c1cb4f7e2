package board_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/board"
	"github.com/vulnbench/vulnbench/internal/output/formats"
)

func ci(mean, lo, hi float64) board.Cell { return board.Cell{OK: true, Mean: mean, Lo: &lo, Hi: &hi} }

// table is a PrimeVul board of five runs: a and b overlap, c lies wholly below both, d has no
// figure, e is a run of repeats (mean ± std).
func table() *board.Table {
	cols := board.Columns(board.KindPrimeVul)
	row := func(run string, f1, vds board.Cell) board.Row {
		cells := make([]board.Cell, len(cols))
		cells[0], cells[2] = f1, vds
		return board.Row{Run: run, Subject: "llm", Repeats: 1, Cells: cells}
	}
	return &board.Table{Kind: board.KindPrimeVul, RankNote: board.RankNote, Suite: "s.jsonl", Hash: strings.Repeat("a", 64), Columns: cols, Rows: []board.Row{
		row("c", ci(0.30, 0.25, 0.35), board.Cell{OK: true, Mean: 0.9}),
		row("a", ci(0.60, 0.50, 0.70), board.Cell{OK: true, Mean: 0.5}),
		row("d", board.Cell{}, board.Cell{}),
		row("b", ci(0.55, 0.45, 0.65), board.Cell{OK: true, Mean: 0.7}),
		row("e", board.Cell{OK: true, Mean: 0.40, Std: 0.02}, board.Cell{OK: true, Mean: 0.7, Std: 0.01}),
	}}
}

func TestSortAndRank(t *testing.T) {
	type rr struct {
		Run  string
		Rank int
	}
	ranks := func(t *board.Table) []rr {
		var out []rr
		for _, r := range t.Rows {
			out = append(out, rr{r.Run, r.Rank})
		}
		return out
	}
	for _, tc := range []struct {
		sort string
		want []rr
	}{
		// F1, higher first: a and b overlap (rank 1); e (0.38-0.42) lies below both; c below a, b
		// and e; d has no F1: below every run that has one.
		{"f1", []rr{{"a", 1}, {"b", 1}, {"e", 3}, {"c", 4}, {"d", 5}}},
		// VD-S's FNR, lower first: no intervals, so equal values tie (b and e: 0.7 ± 0.01 reaches 0.7).
		{"vds", []rr{{"a", 1}, {"b", 2}, {"e", 2}, {"c", 4}, {"d", 5}}},
		{"run", []rr{{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}, {"e", 5}}},
	} {
		tb := table()
		if err := tb.SortBy(tc.sort); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, ranks(tb)); d != "" {
			t.Errorf("--sort %s (-want +got):\n%s", tc.sort, d)
		}
	}
	if err := table().SortBy("nosuch"); err == nil || !strings.Contains(err.Error(), "f1, pacc, vds") {
		t.Errorf("unknown column: %v", err)
	}
}

func TestWriters(t *testing.T) {
	tb := table()
	if err := tb.SortBy(""); err != nil {
		t.Fatal(err)
	}
	b := &board.Board{Scorer: 6, Vulnbench: "v", Tables: []board.Table{*tb}}
	for format, want := range map[string][]string{
		"text": {"primevul board: s.jsonl", "60.0% [50.0%, 70.0%]", "40.0% ± 2.0%", "rank  run", "runs whose intervals overlap share a rank"},
		"md":   {"| rank | run |", "| =1 | a | llm |", "| 3 | e | llm |"},
		"csv":  {"suite_sha256,kind,rank,run", ",primevul,1,a,llm,,,,,1,f1,0.6,0,0.5,0.7,,true"},
		"json": {`"kind": "primevul"`, `"lower_is_better": true`},
		"html": {"<!DOCTYPE html>", "<td>60.0% [50.0%, 70.0%]</td>"},
	} {
		var out bytes.Buffer
		if err := formats.All().Present(&out, format, b); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s lacks %q:\n%s", format, w, out.String())
			}
		}
	}
	if err := formats.All().Present(&bytes.Buffer{}, "xml", b); err == nil {
		t.Error("xml accepted")
	}
}

func TestPointsColumn(t *testing.T) {
	c := board.Columns(board.KindAppSec)[0]
	if got := c.Text(board.Cell{OK: true, Mean: 0.1}); got != "10.0 of 100" {
		t.Errorf("points: %q", got)
	}
}

// A cost that is not known is written "unpriced" in every format, never a number; a degenerate
// VD-S says so beside its figure.
func TestCellNotes(t *testing.T) {
	cols := board.Columns(board.KindPrimeVul)
	cells := make([]board.Cell, len(cols))
	cells[2] = board.Cell{OK: true, Mean: 0.9, Note: board.NoteDegenerate}
	cells[3] = board.Cell{Note: board.NoteUnpriced}
	b := &board.Board{Tables: []board.Table{{Kind: board.KindPrimeVul, Hash: strings.Repeat("b", 64), Columns: cols,
		Rows: []board.Row{{Run: "r", Rank: 1, Repeats: 1, Cells: cells}}}}}
	for format, want := range map[string][]string{
		"text": {"90.0% (degenerate)", "unpriced"},
		"md":   {"| 90.0% (degenerate) |", "| unpriced |"},
		"csv":  {",vds,0.9,0,,,degenerate", ",cost_per_case,,,,,unpriced"},
		"json": {`"note": "unpriced"`},
		"html": {"<td>unpriced</td>"},
	} {
		var out bytes.Buffer
		if err := formats.All().Present(&out, format, b); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s lacks %q:\n%s", format, w, out.String())
			}
		}
		if strings.Contains(out.String(), "$0") {
			t.Errorf("%s writes an unpriced cost as a number:\n%s", format, out.String())
		}
	}
}
