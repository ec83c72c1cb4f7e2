// Package board is the leaderboard of a store: one table per suite, one row per run of it, with
// the suite kind's headline figures, their intervals, cost and tokens per case, sorted by any
// column and ranked with ties where intervals overlap.
//
// Every row is scored by report.Build with the run alone, as `score --run` scores it, and its
// figures are read from the report's own metric table (report.Metrics) by key, so a board and
// `score --run` print the same numbers by construction. Board prints nothing.
package board

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/version"
)

// Store is what a board reads: the runs, their reports' inputs, and each run's spend.
type Store interface {
	report.Store
	report.SpendStore
	Runs(ctx context.Context) ([]store.Run, error)
}

// The suite kinds a board knows, each with its headline figures.
const (
	KindPrimeVul = "primevul" // function cases
	KindJitVul   = "jitvul"   // jit cases
	KindVEX      = "vex"      // vex cases (VEX-Bench)
	KindAppSec   = "appsec"   // appsec cases (AppSecBench)
)

// Column is one figure of a board.
type Column struct {
	Key   string `json:"key"`   // what --sort names, and the JSON member of each row's cells
	Label string `json:"label"` // the text header
	// Metric is the report.Metrics key the figure is read from ("" for cost and tokens).
	Metric string `json:"metric,omitempty"`
	// Unit says how to write it: "fraction" (in [0,1]), "points" (a fraction of 100 points,
	// written "N.N of 100" in text), "count", "usd", "tokens".
	Unit string `json:"unit"`
	// Lower marks a figure where lower is better (VD-S's FNR, cost, tokens).
	Lower bool `json:"lower_is_better,omitempty"`
	// CI is the report.Metrics key of the figure's bootstrap interval ("" for none).
	CI string `json:"ci,omitempty"`
}

// Cell is one figure of one run: the value (the mean over repeats), the std over repeats, and
// its 95% bootstrap interval (over cases, and repeats) when one was computed.
type Cell struct {
	OK   bool     `json:"ok"` // false: the run lacks the figure
	Mean float64  `json:"mean"`
	Std  float64  `json:"std"`
	Lo   *float64 `json:"lo,omitempty"`
	Hi   *float64 `json:"hi,omitempty"`
	// Note qualifies the figure: NoteDegenerate (VD-S of scores that take at most two values),
	// NoteUnpriced (a cost not known: never a number).
	Note string `json:"note,omitempty"`
}

// The notes of a cell.
const (
	NoteDegenerate = "degenerate"
	NoteUnpriced   = "unpriced"
)

// Row is one run.
type Row struct {
	Run     string `json:"run"`
	State   string `json:"state"`
	Subject string `json:"subject"`
	Model   string `json:"model"`
	Prompt  string `json:"prompt"`  // the prompting strategy; "" where none applies
	Harness string `json:"harness"` // the agent CLI a model ran in, at its pinned version
	Effort  string `json:"effort"`  // the harness's reasoning effort
	Repeats int    `json:"repeats"`
	Cases   int    `json:"cases"`
	// Rank is 1 + the number of rows whose interval of the sort column lies wholly better than
	// this row's: rows whose intervals overlap share a rank, and Tied says it shares its rank.
	Rank  int    `json:"rank"`
	Tied  bool   `json:"tied,omitempty"`
	Cells []Cell `json:"cells"` // as Table.Columns
}

// Table is the board of one suite.
type Table struct {
	Suite   string   `json:"suite"` // the path the runs recorded (the first run's)
	Hash    string   `json:"sha256"`
	Kind    string   `json:"kind"`
	Cases   int      `json:"cases"`
	Sort    string   `json:"sort"`
	Columns []Column `json:"columns"`
	Rows    []Row    `json:"rows"`
	// RankNote says how ranks were given.
	RankNote string `json:"rank_note"`
}

// Board is every table.
type Board struct {
	Scorer    int     `json:"scorer"`
	Vulnbench string  `json:"vulnbench"`
	Tables    []Table `json:"tables"`
	// Notes are what the reports of the rows noted (warnings of unknown verdicts, resamples).
	Notes []report.Note `json:"-"`
}

// Options say what to build.
type Options struct {
	// Suite keeps the runs of one suite: its path as runs recorded it, that path's base name, or
	// a prefix (at least 6 hex digits) of its sha256. "": every suite, one table each.
	Suite string
	// Sort is a column key; "": the kind's first headline figure.
	Sort  string
	Score score.Options
	// CI asks for bootstrap intervals (over cases, and repeats; nil: none, and ranks then tie
	// on mean ± std over repeats, else on equal values only).
	CI *score.CIOptions
	// AppSec grades AppSecBench answers, as score does (nil: the automatic parts).
	AppSec *grade.Grader
}

// DefaultOptions are the board `vulnbench board` and the viewer's runs page show alike: every
// suite, sorted by its kind's first figure, with 95% bootstrap intervals (DefaultResamples,
// seed 1) and VD-S at PrimeVul's r.
func DefaultOptions() Options {
	return Options{Score: score.Options{VDSFPR: score.DefaultVDSFPR}, CI: &score.CIOptions{Resamples: score.DefaultResamples, Seed: 1}}
}

// RankNote is how every table ranks.
const RankNote = "rank: 1 + the runs whose interval of the sorted figure lies wholly better (its 95% bootstrap CI over cases and repeats, else mean ± std over repeats, else the value): runs whose intervals overlap share a rank, marked ="

// Build assembles the board of st.
func Build(ctx context.Context, st Store, opt Options) (*Board, error) {
	runs, err := st.Runs(ctx)
	if err != nil {
		return nil, err
	}
	groups, order := groupBySuite(runs, opt.Suite)
	if len(order) == 0 {
		if opt.Suite != "" {
			return nil, fmt.Errorf("board: no run of suite %q in the store", opt.Suite)
		}
		return nil, errors.New("board: the store holds no run")
	}
	b := &Board{Scorer: score.Version, Vulnbench: version.String()}
	scans := score.NewInjectionMemo() // the runs of a suite share their cases' code: scanned once
	for _, hash := range order {
		t, notes, err := buildTable(ctx, st, groups[hash], opt, scans)
		if err != nil {
			return nil, err
		}
		b.Notes = append(b.Notes, notes...)
		b.Tables = append(b.Tables, *t)
	}
	return b, nil
}

// groupBySuite keeps the runs of the suite named (every run when "") by suite hash, in the order
// of each suite's first run.
func groupBySuite(runs []store.Run, name string) (map[string][]store.Run, []string) {
	groups := map[string][]store.Run{}
	var order []string
	for _, r := range runs {
		if name != "" && !suiteMatches(r, name) {
			continue
		}
		if _, ok := groups[r.SuiteHash]; !ok {
			order = append(order, r.SuiteHash)
		}
		groups[r.SuiteHash] = append(groups[r.SuiteHash], r)
	}
	return groups, order
}

func suiteMatches(r store.Run, name string) bool {
	return r.SuitePath == name || filepath.Base(r.SuitePath) == name ||
		(len(name) >= 6 && strings.HasPrefix(r.SuiteHash, strings.ToLower(name)))
}

func buildTable(ctx context.Context, st Store, runs []store.Run, opt Options, scans *score.InjectionMemo) (*Table, []report.Note, error) {
	t := &Table{Suite: runs[0].SuitePath, Hash: runs[0].SuiteHash, RankNote: RankNote}
	var notes []report.Note
	for _, r := range runs {
		rep, err := report.Build(ctx, st, report.Request{Runs: []string{r.ID}, Score: opt.Score, CI: opt.CI, AppSec: opt.AppSec, Scans: scans})
		if err != nil {
			return nil, nil, fmt.Errorf("board: run %s: %w", r.ID, err)
		}
		notes = append(notes, rep.Notes()...)
		if t.Columns == nil {
			t.Kind = KindOf(rep.Truth)
			t.Columns = Columns(t.Kind)
			t.Cases = len(rep.Truth.Cases)
		}
		sp, err := st.RunSpend(ctx, r.ID)
		if err != nil {
			return nil, nil, err
		}
		row, err := rowOf(rep, rep.Runs[0], t.Columns, &sp)
		if err != nil {
			return nil, nil, err
		}
		t.Rows = append(t.Rows, row)
	}
	if err := t.SortBy(opt.Sort); err != nil {
		return nil, nil, err
	}
	return t, notes, nil
}

// caseKind is the kind of the cases a board of t ranks (suite.Kind's names): what a prompting
// strategy applies to.
func caseKind(t *report.Truth) string {
	switch KindOf(t) {
	case KindAppSec:
		return "appsec"
	case KindVEX:
		return "vex"
	case KindJitVul:
		return "jit"
	}
	return "function"
}

// KindOf is the kind of a suite's truth: appsec or vex when it has such cases, jitvul when some
// case is a jit case, else primevul.
func KindOf(t *report.Truth) string {
	switch {
	case t.HasAppSec():
		return KindAppSec
	case t.HasVEX():
		return KindVEX
	}
	for i := range t.Cases {
		if t.Cases[i].JIT {
			return KindJitVul
		}
	}
	return KindPrimeVul
}

// Columns are a kind's figures: its headline figures, then cost and tokens per case.
func Columns(kind string) []Column {
	var cs []Column
	switch kind {
	case KindPrimeVul:
		cs = []Column{
			{Key: "f1", Label: "F1", Metric: "binary.f1", Unit: "fraction", CI: "ci.f1"},
			{Key: "pacc", Label: "pAcc", Metric: "pairwise.pacc", Unit: "fraction", CI: "ci.pacc"},
			{Key: "vds", Label: "VD-S (FNR at FPR <= r)", Metric: "vds.fnr", Unit: "fraction", Lower: true},
		}
	case KindJitVul:
		cs = []Column{
			{Key: "f1", Label: "F1", Metric: "binary.f1", Unit: "fraction", CI: "ci.f1"},
			{Key: "pacc", Label: "pAcc", Metric: "pairwise.pacc", Unit: "fraction", CI: "ci.pacc"},
			{Key: "tool_calls_vul", Label: "tool calls (vul)", Metric: "jit.tool_calls.vul.mean", Unit: "count"},
			{Key: "tool_calls_ben", Label: "tool calls (ben)", Metric: "jit.tool_calls.ben.mean", Unit: "count"},
		}
	case KindVEX:
		cs = []Column{
			{Key: "status_f1", Label: "status F1", Metric: "vex.status_f1", Unit: "fraction", CI: "ci.status_f1"},
			{Key: "justification_macro_f1", Label: "justification macro-F1", Metric: "vex.justification_macro_f1", Unit: "fraction", CI: "ci.justification_macro_f1"},
			{Key: "justification_macro_f1_lenient", Label: "justification macro-F1 (lenient)", Metric: "vex.justification_macro_f1_lenient", Unit: "fraction", CI: "ci.justification_macro_f1_lenient"},
			{Key: "completion_rate", Label: "completion rate", Metric: "vex.completion_rate", Unit: "fraction"},
			// units a cap stopped: failed answers counted in every figure, shown apart
			{Key: "stopped", Label: "stopped", Metric: "status.stopped", Unit: "count", Lower: true},
		}
	case KindAppSec:
		cs = []Column{
			{Key: "mean_points", Label: "mean points", Metric: "appsec.mean_score", Unit: "points", CI: "ci.mean_score"},
			{Key: "pass_rate", Label: "pass rate (>= 70)", Metric: "appsec.pass_rate", Unit: "fraction", CI: "ci.pass_rate"},
		}
	}
	return append(cs,
		Column{Key: "cost_per_case", Label: "cost/case", Unit: "usd", Lower: true},
		Column{Key: "tokens_per_case", Label: "tokens/case", Unit: "tokens", Lower: true})
}

// TableOf is the ranking of the runs of one report (its runs judged one suite), as a board table
// sorted by sortKey ("": the kind's first figure): what `vulnbench report` shows of several
// runs, ranked as the board ranks them. Each run's spend is its Spend (nil: not known).
func TableOf(rep *report.Report, sortKey string) (*Table, error) {
	kind := KindOf(rep.Truth)
	t := &Table{Suite: rep.Truth.Source, Kind: kind, Columns: Columns(kind), Cases: len(rep.Truth.Cases), RankNote: RankNote}
	for _, run := range rep.Runs {
		if run.Stored != nil && t.Hash == "" {
			t.Hash = run.Stored.SuiteHash
		}
		row, err := rowOf(rep, run, t.Columns, run.Spend)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row)
	}
	if err := t.SortBy(sortKey); err != nil {
		return nil, err
	}
	return t, nil
}

// Headline is the headline figures of one run of rep, as the board shows them (its kind's
// columns, cost and tokens aside): what `score --by` lays out per group.
func Headline(rep *report.Report, run *report.Run) ([]Column, []Cell, error) {
	cols := Columns(KindOf(rep.Truth))
	cols = cols[:len(cols)-2] // cost and tokens: a group's spend is its run's
	row, err := rowOf(rep, run, cols, nil)
	if err != nil {
		return nil, nil, err
	}
	return cols, row.Cells, nil
}

// rowOf reads a row's figures from run, one of rep's runs; sp is its spend (nil: not known).
func rowOf(rep *report.Report, run *report.Run, cols []Column, sp *store.Spend) (Row, error) {
	f, err := run.Figures()
	if err != nil {
		return Row{}, err
	}
	row := Row{Run: run.ID, Subject: run.Subject, Model: run.Model, Repeats: len(run.Repeats), Cases: len(rep.Truth.Cases)}
	if run.Stored != nil { // a predictions file has no state
		row.State = run.Stored.State
	}
	if m := run.Manifest; m != nil {
		set := m.Settings()
		row.Prompt, row.Harness, row.Effort = set.PromptOn(caseKind(rep.Truth)), set.Harness, set.Effort
	}
	metrics := map[string]report.Metric{}
	for _, m := range report.Metrics() {
		if m.Family == nil {
			metrics[m.Key] = m
		}
	}
	spent := spendOf(sp, len(rep.Truth.Cases)*max(1, len(run.Repeats)))
	degenerate := f.VDS != nil && f.VDS.Degenerate
	for _, c := range cols {
		var cell Cell
		switch c.Key {
		case "cost_per_case":
			cell = spent.cost
		case "tokens_per_case":
			cell = spent.tokens
		case "stopped": // 0 where no unit stopped (the report leaves its row out then)
			cell = Cell{OK: true, Mean: f.Status.Stopped.Mean, Std: f.Status.Stopped.Std}
		default:
			cell = cellOf(metrics, f, c)
			if c.Key == "vds" && cell.OK && degenerate {
				cell.Note = NoteDegenerate
			}
		}
		row.Cells = append(row.Cells, cell)
	}
	return row, nil
}

func cellOf(metrics map[string]report.Metric, f *report.Figures, c Column) Cell {
	m, ok := metrics[c.Metric]
	if !ok {
		return Cell{}
	}
	v, ok := m.Get(f, "")
	if !ok || v.Null {
		return Cell{}
	}
	cell := Cell{OK: true, Mean: v.Stat.Mean, Std: v.Stat.Std}
	if c.CI != "" {
		if m, ok := metrics[c.CI]; ok {
			if iv, ok := m.Get(f, ""); ok {
				lo, hi := iv.Lo, iv.Hi
				cell.Lo, cell.Hi = &lo, &hi
			}
		}
	}
	return cell
}

type spend struct{ cost, tokens Cell }

// spendOf is a run's cost and tokens per case and repeat: every attempt (retries too) summed
// (store.Store.RunSpend), over units, the cases of the truth times the repeats scored. The cost
// is NoteUnpriced when some attempt used a model whose price is not known, and missing when no
// attempt used a model.
func spendOf(sp *store.Spend, units int) spend {
	if sp == nil || units == 0 {
		return spend{}
	}
	s := spend{tokens: Cell{OK: true, Mean: float64(sp.Tokens) / float64(units)}}
	switch {
	case sp.Known():
		s.cost = Cell{OK: true, Mean: sp.Cost / float64(units)}
	case sp.Unpriced > 0:
		s.cost = Cell{Note: NoteUnpriced}
	}
	return s
}

// SortBy sorts the rows by the column key (best first; "": the first column; "run" by run id)
// and ranks them by it.
func (t *Table) SortBy(key string) error {
	if key == "" {
		key = t.Columns[0].Key
	}
	t.Sort = key
	if key == "run" {
		slices.SortStableFunc(t.Rows, func(a, b Row) int { return strings.Compare(a.Run, b.Run) })
		for i := range t.Rows {
			t.Rows[i].Rank, t.Rows[i].Tied = i+1, false
		}
		return nil
	}
	k := slices.IndexFunc(t.Columns, func(c Column) bool { return c.Key == key })
	if k < 0 {
		keys := []string{"run"}
		for _, c := range t.Columns {
			keys = append(keys, c.Key)
		}
		return fmt.Errorf("board: --sort %q is not a column of the %s board (%s)", key, t.Kind, strings.Join(keys, ", "))
	}
	lower := t.Columns[k].Lower
	better := func(a, b float64) bool { return (a > b) != lower && a != b }
	slices.SortStableFunc(t.Rows, func(a, b Row) int {
		ca, cb := a.Cells[k], b.Cells[k]
		switch {
		case ca.OK != cb.OK:
			if ca.OK {
				return -1
			}
			return 1
		case better(ca.Mean, cb.Mean):
			return -1
		case better(cb.Mean, ca.Mean):
			return 1
		}
		return cmp.Compare(a.Run, b.Run)
	})
	for i := range t.Rows {
		lo, hi := interval(t.Rows[i].Cells[k])
		rank := 1
		for j := range t.Rows {
			c := t.Rows[j].Cells[k]
			if j == i || !c.OK {
				continue
			}
			if !t.Rows[i].Cells[k].OK {
				rank++
				continue
			}
			jlo, jhi := interval(c)
			if (!lower && jlo > hi) || (lower && jhi < lo) {
				rank++
			}
		}
		t.Rows[i].Rank = rank
	}
	for i := range t.Rows {
		t.Rows[i].Tied = false
		for j := range t.Rows {
			if j != i && t.Rows[j].Rank == t.Rows[i].Rank {
				t.Rows[i].Tied = true
			}
		}
	}
	return nil
}

// interval is a cell's interval for ranking: its bootstrap CI, else mean ± std.
func interval(c Cell) (float64, float64) {
	if c.Lo != nil && c.Hi != nil {
		return *c.Lo, *c.Hi
	}
	return c.Mean - c.Std, c.Mean + c.Std
}
