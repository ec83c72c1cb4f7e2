package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/store/pgtest"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

var ctx = context.Background()

func newRun(t *testing.T, st *store.Store, id string) *store.Run {
	t.Helper()
	r := &store.Run{ID: id, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), State: store.StateRunning,
		SuitePath: "s.jsonl", SuiteHash: "abc", Subject: "random", Repeats: 2, Units: 4, Manifest: json.RawMessage(`{"seed":42}`), Queue: store.QueueLocal}
	if err := st.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRuns(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		r1 := newRun(t, st, "r1")
		if err := st.CreateRun(ctx, r1); !errors.Is(err, store.ErrExists) {
			t.Errorf("creating r1 twice: err = %v, want ErrExists", err)
		}
		r2 := *r1
		r2.ID, r2.CreatedAt = "r0", r1.CreatedAt.Add(time.Nanosecond) // later, though its id sorts first
		if err := st.CreateRun(ctx, &r2); err != nil {
			t.Fatal(err)
		}
		runs, err := st.Runs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]store.Run{*r1, r2}, runs); d != "" {
			t.Errorf("runs, oldest first (-want +got):\n%s", d)
		}

		_, err = st.GetRun(ctx, "nope")
		if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "vulnbench runs --db") {
			t.Errorf("GetRun(nope) = %v, want ErrNotFound saying how to list runs", err)
		}

		for _, tc := range []struct {
			state    string
			finished bool
		}{
			{store.StateStopping, false},
			{store.StateInterrupted, true},
			{store.StateRunning, false}, // resumed
			{store.StateCancelled, true},
			{store.StateDone, true},
		} {
			if err := st.SetState(ctx, "r1", tc.state); err != nil {
				t.Fatal(err)
			}
			r, err := st.GetRun(ctx, "r1")
			if err != nil {
				t.Fatal(err)
			}
			if r.State != tc.state || r.FinishedAt.IsZero() == tc.finished {
				t.Errorf("after SetState(%s): state %s, finished at %v", tc.state, r.State, r.FinishedAt)
			}
		}
		if err := st.SetState(ctx, "r1", "paused"); err == nil {
			t.Error("SetState accepted an unknown state")
		}
		if err := st.SetState(ctx, "nope", store.StateDone); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("SetState of an unknown run: err = %v, want ErrNotFound", err)
		}
		st.Close()

		// Reopening runs no migration twice and keeps everything.
		st = store.OpenT(t, dsn)
		r, err := st.GetRun(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if r.State != store.StateDone || r.FinishedAt.IsZero() || !r.CreatedAt.Equal(r1.CreatedAt) || string(r.Manifest) != `{"seed":42}` {
			t.Errorf("run after reopen = %+v", r)
		}
	})
}

// attempt builds an attempt of unit (id, repeat) with a one-event trace that cost cost.
func attempt(id string, repeat, n int, status verdict.Status, cost float64) store.Attempt {
	start := time.Date(2026, 3, 1, 10, 0, n, 123456789, time.UTC)
	v := verdict.Verdict{CaseID: id, Repeat: repeat, Attempt: n, Status: status, Usage: verdict.Usage{CostUSD: verdict.Float(cost), Calls: 1}}
	switch status {
	case verdict.OK:
		v.Label = suite.Vul
		v.Score = verdict.Float(0.75)
	case verdict.Failed:
		v.Reason, v.Raw = "no answer marker", "I think so"
	case verdict.Error:
		v.Reason = "timeout"
	}
	return store.Attempt{Verdict: v, Started: start, Finished: start.Add(time.Second),
		Events: []trace.Event{{Seq: 0, Time: start, Kind: trace.ModelResponse, Name: "openai:gpt", CostUSD: verdict.Float(cost), LatencyMS: 900}}}
}

func TestAttempts(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		newRun(t, st, "r1")
		full := attempt("a", 0, 1, verdict.OK, 0.2)
		full.Verdict = verdict.Verdict{CaseID: "a", Repeat: 0, Attempt: 1, Status: verdict.OK, Label: suite.Vul,
			Score: verdict.Float(0.25), ScoreSource: verdict.FromLogprob, Confidence: verdict.Float(0.9),
			CWE: []string{"CWE-787", "CWE-119"}, Category: "memory", Explanation: "strcpy into a fixed buffer",
			Findings: []verdict.Finding{{File: "a.c", StartLine: 3, EndLine: 4, Function: "f", Rule: "r1", CWE: []string{"CWE-787"}, Severity: "high", Message: "overflow"}},
			VEX:      &verdict.VEX{Category: "affected", Status: "affected", Impact: "reachable"},
			AppSec:   &verdict.AppSec{OWASP: "A03:2021", Severity: "high", CVSSVector: "CVSS:3.1/AV:N", Exploit: "x", Fix: "y"},
			Usage: verdict.Usage{InputTokens: 10, CachedInputTokens: 4, CacheWriteTokens: 3, OutputTokens: 5, ReasoningTokens: 2,
				CostUSD: verdict.Float(0.2), WallMS: 7, ToolCalls: 3, Calls: 2, Retries: 1, CacheHits: 1, WaitMS: 9}}
		full.Events = []trace.Event{
			{Seq: 0, Time: full.Started, Kind: trace.ModelRequest, Name: "openai:gpt", Content: "is it vulnerable?"},
			{Seq: 1, Time: full.Started.Add(time.Millisecond), Kind: trace.ToolCall, Name: "get_callers", CallID: "c1", Args: `{"function":"f"}`},
			{Seq: 2, Time: full.Started.Add(2 * time.Millisecond), Kind: trace.ToolResult, CallID: "c1", Content: "g"},
			{Seq: 3, Time: full.Finished, Kind: trace.ModelResponse, Content: "yes", LatencyMS: 12, Cached: true, CostUSD: verdict.Float(0.2),
				Usage: trace.Usage{InputTokens: 10, CachedInputTokens: 4, CacheWriteTokens: 3, OutputTokens: 5, ReasoningTokens: 2}},
		}
		units := [][]store.Attempt{
			{attempt("a", 0, 0, verdict.Error, 0.1), full},                                                                   // a retried error: the ok one is scored
			{attempt("a", 1, 0, verdict.Failed, 0.01)},                                                                       // failed is a real outcome
			{attempt("b", 0, 0, verdict.Error, 0.02), attempt("b", 0, 1, verdict.Error, 0.03)},                               // all errors: the latest is shown
			{attempt("c", 0, 0, verdict.OK, 0.04), attempt("c", 0, 1, verdict.Error, 0.05)},                                  // a later error does not hide the answer
			{attempt("d", 0, 0, verdict.OK, 0.06), attempt("d", 0, 1, verdict.Failed, 0.07)},                                 // the latest answer wins
			{attempt("b", 1, 0, verdict.Failed, 0), attempt("b", 1, 1, verdict.Error, 0), attempt("b", 1, 2, verdict.OK, 0)}, // across an error
		}
		// Stored in several batches, out of order.
		for _, batch := range [][]store.Attempt{
			{units[2][1], units[0][0], units[3][0]},
			{units[0][1], units[1][0], units[2][0]},
			{units[3][1], units[4][0], units[4][1]},
			units[5],
		} {
			if err := st.PutAttempts(ctx, "r1", batch); err != nil {
				t.Fatal(err)
			}
		}

		verdictsOf := func(as ...store.Attempt) []verdict.Verdict {
			var vs []verdict.Verdict
			for _, a := range as {
				vs = append(vs, a.Verdict)
			}
			return vs
		}
		wantScored := verdictsOf(full, units[1][0], units[2][1], units[5][2], units[3][0], units[4][1])
		var got []verdict.Verdict
		if err := st.Verdicts(ctx, "r1", func(v verdict.Verdict) error { got = append(got, v); return nil }); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(wantScored, got); d != "" {
			t.Errorf("scored verdicts (-want +got):\n%s", d)
		}

		var wantLabels []verdict.Verdict
		for _, v := range wantScored {
			wantLabels = append(wantLabels, verdict.Verdict{CaseID: v.CaseID, Repeat: v.Repeat, Attempt: v.Attempt, Status: v.Status,
				Label: v.Label, Score: v.Score, ScoreSource: v.ScoreSource, Confidence: v.Confidence, CWE: v.CWE,
				Usage: verdict.Usage{ToolCalls: v.Usage.ToolCalls}})
		}
		got = nil
		if err := st.Labels(ctx, "r1", func(v verdict.Verdict) error { got = append(got, v); return nil }); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(wantLabels, got); d != "" {
			t.Errorf("labels (-want +got):\n%s", d)
		}

		got = nil
		if err := st.AllAttempts(ctx, "r1", func(v verdict.Verdict) error { got = append(got, v); return nil }); err != nil {
			t.Fatal(err)
		}
		all := verdictsOf(append(append(append(append(append(append([]store.Attempt(nil), units[0]...), units[1]...), units[2]...), units[5]...), units[3]...), units[4]...)...)
		if d := cmp.Diff(all, got); d != "" {
			t.Errorf("all attempts (-want +got):\n%s", d)
		}

		as, err := st.Attempts(ctx, "r1", "b", 0)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(verdictsOf(units[2]...), as); d != "" {
			t.Errorf("attempts of b/0 (-want +got):\n%s", d)
		}
		if as, err := st.Attempts(ctx, "r1", "zz", 0); err != nil || len(as) != 0 {
			t.Errorf("attempts of an unknown unit = %v, %v; want none", as, err)
		}

		evs, err := st.TraceEvents(ctx, "r1", "a", 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(full.Events, evs); d != "" {
			t.Errorf("trace of a/0/1 (-want +got):\n%s", d)
		}
		evs, err = st.TraceEvents(ctx, "r1", "a", 0, 0) // the error's trace is kept apart
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(units[0][0].Events, evs); d != "" {
			t.Errorf("trace of a/0/0 (-want +got):\n%s", d)
		}

		var states []store.UnitState
		if err := st.Units(ctx, "r1", func(u store.UnitState) { states = append(states, u) }); err != nil {
			t.Fatal(err)
		}
		wantStates := []store.UnitState{
			{CaseID: "a", Repeat: 0, Attempts: 2, Scored: true, LastStatus: verdict.OK},
			{CaseID: "a", Repeat: 1, Attempts: 1, Scored: true, LastStatus: verdict.Failed},
			{CaseID: "b", Repeat: 0, Attempts: 2, Scored: false, LastStatus: verdict.Error},
			{CaseID: "b", Repeat: 1, Attempts: 3, Scored: true, LastStatus: verdict.OK},
			{CaseID: "c", Repeat: 0, Attempts: 2, Scored: true, LastStatus: verdict.Error},
			{CaseID: "d", Repeat: 0, Attempts: 2, Scored: true, LastStatus: verdict.Failed},
		}
		if d := cmp.Diff(wantStates, states); d != "" {
			t.Errorf("units (-want +got):\n%s", d)
		}

		spent, err := spentOf(st, ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if want := 0.1 + 0.2 + 0.01 + 0.02 + 0.03 + 0.04 + 0.05 + 0.06 + 0.07; fmt.Sprintf("%.6f", spent) != fmt.Sprintf("%.6f", want) {
			t.Errorf("spent = %v, want %v (every attempt, errors included)", spent, want)
		}

		// Per case and repeat, the same spend, over every attempt: one row per unit.
		var units2 [][2]any
		perCase := 0.0
		if err := st.CaseUsages(ctx, "r1", func(u store.CaseUsage) error {
			units2 = append(units2, [2]any{u.CaseID, u.Repeat})
			if u.Cost != nil {
				perCase += *u.Cost
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		var wantUnits [][2]any
		for _, u := range wantStates {
			wantUnits = append(wantUnits, [2]any{u.CaseID, u.Repeat})
		}
		if d := cmp.Diff(wantUnits, units2); d != "" {
			t.Errorf("usage per case: units (-want +got):\n%s", d)
		}
		if fmt.Sprintf("%.6f", perCase) != fmt.Sprintf("%.6f", spent) {
			t.Errorf("usage per case sums to $%v, the run spent $%v", perCase, spent)
		}

		// "Verdicts claiming CWE-119" is a SQL query.
		claims, err := st.QueryStrings(ctx, `SELECT case_id FROM attempt_cwes WHERE run_id = ? AND cwe = ?`, "r1", "CWE-119")
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"a"}, claims); d != "" {
			t.Errorf("attempts claiming CWE-119 (-want +got):\n%s", d)
		}

		// fn's error stops the walk and comes back as it is.
		stop := errors.New("stop")
		n := 0
		for name, walk := range map[string]func(context.Context, string, func(verdict.Verdict) error) error{
			"Verdicts": st.Verdicts, "Labels": st.Labels, "AllAttempts": st.AllAttempts} {
			n = 0
			if err := walk(ctx, "r1", func(verdict.Verdict) error { n++; return stop }); err != stop || n != 1 {
				t.Errorf("%s with a failing fn: err = %v after %d calls, want stop after 1", name, err, n)
			}
		}
	})
}

func TestPutAttemptsNeverOverwrites(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		newRun(t, st, "r1")
		first := attempt("a", 0, 0, verdict.OK, 0.5)
		if err := st.PutAttempts(ctx, "r1", []store.Attempt{first}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name  string
			batch []store.Attempt
		}{
			{"a stored attempt again", []store.Attempt{attempt("b", 0, 0, verdict.OK, 1), attempt("a", 0, 0, verdict.Error, 1)}},
			{"twice in one batch", []store.Attempt{attempt("c", 0, 0, verdict.OK, 1), attempt("c", 0, 0, verdict.OK, 1)}},
		} {
			err := st.PutAttempts(ctx, "r1", tc.batch)
			if !errors.Is(err, store.ErrExists) {
				t.Errorf("%s: err = %v, want ErrExists", tc.name, err)
			}
		}
		// Nothing of the refused batches stayed, not even their trace events; the first is intact.
		var all []verdict.Verdict
		if err := st.AllAttempts(ctx, "r1", func(v verdict.Verdict) error { all = append(all, v); return nil }); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]verdict.Verdict{first.Verdict}, all); d != "" {
			t.Errorf("attempts after refused batches (-want +got):\n%s", d)
		}
		if evs, err := st.TraceEvents(ctx, "r1", "b", 0, 0); err != nil || len(evs) != 0 {
			t.Errorf("trace of a refused attempt = %v, %v", evs, err)
		}
		if spent, err := spentOf(st, ctx, "r1"); err != nil || spent != 0.5 {
			t.Errorf("spent = %v, %v; want 0.5", spent, err)
		}

		// A bad event (a duplicate seq) takes its whole batch with it.
		bad := attempt("e", 0, 0, verdict.OK, 1)
		bad.Events = append(bad.Events, bad.Events[0])
		if err := st.PutAttempts(ctx, "r1", []store.Attempt{attempt("d", 0, 0, verdict.OK, 1), bad}); err == nil {
			t.Error("an attempt with two events of seq 0 was stored")
		}
		if as, err := st.Attempts(ctx, "r1", "d", 0); err != nil || len(as) != 0 {
			t.Errorf("attempts of d/0 after a failed batch = %v, %v; want none", as, err)
		}

		// Attempts of an unknown run are refused.
		if err := st.PutAttempts(ctx, "r2", []store.Attempt{attempt("a", 0, 0, verdict.OK, 1)}); err == nil {
			t.Error("attempts of an unknown run were stored")
		}
		if err := st.PutAttempts(ctx, "r1", []store.Attempt{{Verdict: verdict.Verdict{Status: verdict.OK}}}); err == nil {
			t.Error("an attempt without a case id was stored")
		}

		// Events without a time take the attempt's end, or the time they are stored.
		before := time.Now()
		untimed := []store.Attempt{
			{Verdict: verdict.Verdict{CaseID: "t1", Status: verdict.OK}, Finished: before.Add(-time.Hour), Events: []trace.Event{{Kind: trace.Note}}},
			{Verdict: verdict.Verdict{CaseID: "t2", Status: verdict.OK}, Events: []trace.Event{{Kind: trace.Note}}},
		}
		if err := st.PutAttempts(ctx, "r1", untimed); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			id   string
			want func(time.Time) bool
		}{
			{"t1", func(tm time.Time) bool { return tm.Equal(untimed[0].Finished) }},
			{"t2", func(tm time.Time) bool { return !tm.Before(before) && !tm.After(time.Now()) }},
		} {
			evs, err := st.TraceEvents(ctx, "r1", tc.id, 0, 0)
			if err != nil || len(evs) != 1 || !tc.want(evs[0].Time) {
				t.Errorf("events of %s = %+v, %v", tc.id, evs, err)
			}
		}
	})
}

func TestCases(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		newRun(t, st, "r1")
		newRun(t, st, "r2")
		cases := []suite.Case{
			{ID: "z-1", Kind: suite.KindFunction, Label: suite.Vul, Pair: "p1", Language: "c", CWE: []string{"CWE-787", "CWE-119"}, Code: "int f() {}",
				Source: map[string]any{"idx": 12.0}, Meta: map[string]any{"note": "x"}},
			{ID: "a-2", Kind: suite.KindFunction, Label: suite.Ben, Pair: "p1", Language: "c", CWE: []string{"CWE-787"}, Code: "int f() { }"},
			{ID: "m-3", Kind: suite.KindJIT, Label: suite.Vul, Repo: &suite.Repo{URL: "https://h/o/n", Commit: "abc"},
				Target: &suite.Target{File: "a.c", Function: "f", Line: 3}, CWE: []string{"CWE-79"}},
			{ID: "b-4", Kind: suite.KindVEX, Label: suite.Ben, VEX: &suite.VEX{Category: "code_not_reachable", Package: "p"}, CVE: "CVE-1"},
		}
		// Two batches, as a streamed suite arrives.
		if err := st.PutCases(ctx, "r1", 0, cases[:3]); err != nil {
			t.Fatal(err)
		}
		if err := st.PutCases(ctx, "r1", 3, cases[3:]); err != nil {
			t.Fatal(err)
		}
		if err := st.PutCases(ctx, "r2", 0, cases[1:2]); err != nil {
			t.Fatal(err)
		}
		var got []suite.Case
		if err := st.Cases(ctx, "r1", func(c *suite.Case) error { got = append(got, *c); return nil }); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(cases, got); d != "" {
			t.Errorf("cases in suite order (-want +got):\n%s", d)
		}
		if n, err := st.CaseCount(ctx, "r1"); err != nil || n != 4 {
			t.Errorf("CaseCount = %d, %v; want 4", n, err)
		}
		c, err := st.Case(ctx, "r1", "m-3")
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(&cases[2], c); d != "" {
			t.Errorf("Case(m-3) (-want +got):\n%s", d)
		}
		if _, err := st.Case(ctx, "r1", "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Case(nope): err = %v, want ErrNotFound", err)
		}
		// Reads at once (a River worker's units) are grouped: each still gets its own case, of
		// its own run, and a missing one alone is refused.
		type read struct {
			run, id string
			want    *suite.Case
		}
		var reads []read
		for i := range 40 {
			r := read{run: "r1", id: cases[i%4].ID, want: &cases[i%4]}
			switch i % 10 {
			case 3:
				r = read{run: "r2", id: "a-2", want: &cases[1]}
			case 7:
				r = read{run: "r2", id: "z-1"} // stored with r1 only
			}
			reads = append(reads, r)
		}
		var wg sync.WaitGroup
		for _, r := range reads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := st.Case(ctx, r.run, r.id)
				if r.want == nil {
					if !errors.Is(err, store.ErrNotFound) {
						t.Errorf("Case(%s, %s): %v, want ErrNotFound", r.run, r.id, err)
					}
					return
				}
				if err != nil {
					t.Errorf("Case(%s, %s): %v", r.run, r.id, err)
				} else if d := cmp.Diff(r.want, c); d != "" {
					t.Errorf("Case(%s, %s) read at once with others (-want +got):\n%s", r.run, r.id, d)
				}
			}()
		}
		wg.Wait()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := st.Case(cctx, "r1", "m-3"); !errors.Is(err, context.Canceled) {
			t.Errorf("Case with a cancelled context: %v, want context.Canceled", err)
		}
		for _, tc := range []struct {
			run, cwe string
			want     []string
		}{
			{"r1", "CWE-787", []string{"z-1", "a-2"}},
			{"r1", "CWE-79", []string{"m-3"}},
			{"r1", "CWE-119", []string{"z-1"}},
			{"r1", "CWE-1", nil},
			{"r2", "CWE-787", []string{"a-2"}},
		} {
			// "Cases of CWE-787" is a SQL query.
			ids, err := st.QueryStrings(ctx, `SELECT w.case_id FROM case_cwes w
				JOIN run_cases c ON c.run_id = w.run_id AND c.case_id = w.case_id
				WHERE w.run_id = ? AND w.cwe = ? ORDER BY c.ordinal`, tc.run, tc.cwe)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, ids); d != "" {
				t.Errorf("cases of %s in %s (-want +got):\n%s", tc.cwe, tc.run, d)
			}
		}
		// A case or an ordinal already stored is refused, and its batch with it.
		for _, tc := range []struct {
			name  string
			first int
			batch []suite.Case
		}{
			{"same id", 10, []suite.Case{{ID: "new", Kind: suite.KindFunction, Label: suite.Vul}, cases[0]}},
			{"same ordinal", 3, []suite.Case{{ID: "new", Kind: suite.KindFunction, Label: suite.Vul}}},
		} {
			if err := st.PutCases(ctx, "r1", tc.first, tc.batch); !errors.Is(err, store.ErrExists) {
				t.Errorf("%s: err = %v, want ErrExists", tc.name, err)
			}
		}
		if n, err := st.CaseCount(ctx, "r1"); err != nil || n != 4 {
			t.Errorf("CaseCount after refused batches = %d, %v; want 4", n, err)
		}
	})
}

// Many goroutines store attempts at once, and on SQLite a second process's store too.
func TestConcurrentPutAttempts(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		other := store.OpenT(t, dsn) // another process's connection pool
		newRun(t, st, "r1")
		const workers, batches, per = 8, 20, 3
		var wg sync.WaitGroup
		errs := make(chan error, workers*batches)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := st
				if w%2 == 1 {
					s = other
				}
				for b := 0; b < batches; b++ {
					var batch []store.Attempt
					for i := 0; i < per; i++ {
						batch = append(batch, attempt(fmt.Sprintf("w%d-b%02d-%d", w, b, i), 0, 0, verdict.OK, 1))
					}
					errs <- s.PutAttempts(ctx, "r1", batch)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		n := 0
		if err := st.Units(ctx, "r1", func(store.UnitState) { n++ }); err != nil {
			t.Fatal(err)
		}
		if n != workers*batches*per {
			t.Errorf("%d units stored, want %d", n, workers*batches*per)
		}
		if spent, err := spentOf(st, ctx, "r1"); err != nil || spent != workers*batches*per {
			t.Errorf("spent = %v, %v; want %d", spent, err, workers*batches*per)
		}
	})
}

func TestResponseCache(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		if _, ok, err := st.GetResponse(ctx, "k"); ok || err != nil {
			t.Errorf("GetResponse of an empty cache = %v, %v", ok, err)
		}
		for _, v := range []string{`{"a":1}`, `{"a":2}`} {
			if err := st.PutResponse(ctx, "k", "openai", "gpt", []byte(v)); err != nil {
				t.Fatal(err)
			}
			got, ok, err := st.GetResponse(ctx, "k")
			if err != nil || !ok || string(got) != v {
				t.Errorf("GetResponse = %q, %v, %v; want %q", got, ok, err, v)
			}
		}
		// Another store (another worker) reads what this one stored, many reads at once (on
		// Postgres, grouped in one statement): each gets its own answer, a missing key none.
		for i := range 20 {
			if err := st.PutResponse(ctx, fmt.Sprintf("k%d", i), "openai", "gpt", []byte(fmt.Sprintf(`{"i":%d}`, i))); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Close(); err != nil { // stores the waiting rows
			t.Fatal(err)
		}
		other := store.OpenT(t, dsn)
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, ok, err := other.GetResponse(ctx, fmt.Sprintf("k%d", i%25))
				want := fmt.Sprintf(`{"i":%d}`, i%25)
				switch {
				case err != nil:
					t.Errorf("GetResponse(k%d): %v", i%25, err)
				case i%25 >= 20 && ok:
					t.Errorf("GetResponse(k%d) = %q, found; want none", i%25, got)
				case i%25 < 20 && (!ok || string(got) != want):
					t.Errorf("GetResponse(k%d) = %q, %v; want %q", i%25, got, ok, want)
				}
			}()
		}
		wg.Wait()
	})
}

// Postgres refuses NUL bytes and invalid UTF-8 in text; both stores keep such text the same way.
func TestTextThatPostgresRefuses(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		newRun(t, st, "r1")
		a := attempt("a", 0, 0, verdict.Failed, 0)
		a.Verdict.Raw = "nul\x00 and \xff latin-1 \xe9t\xe9"
		a.Events[0].Content = "\x00"
		if err := st.PutAttempts(ctx, "r1", []store.Attempt{a}); err != nil {
			t.Fatal(err)
		}
		as, err := st.Attempts(ctx, "r1", "a", 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := "nul\uFFFD and \uFFFD latin-1 \uFFFDt\uFFFD"; len(as) != 1 || as[0].Raw != want {
			t.Errorf("attempts = %+v, want one with raw %q", as, want)
		}
		evs, err := st.TraceEvents(ctx, "r1", "a", 0, 0)
		if err != nil || len(evs) != 1 || evs[0].Content != "\uFFFD" {
			t.Errorf("events = %v, %v", evs, err)
		}
	})
}

func TestDSN(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.db")
	st := store.OpenT(t, "sqlite://"+path)
	if st.DSN() != path {
		t.Errorf("DSN() = %q, want %q", st.DSN(), path)
	}
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		// The test cluster trusts its socket, so any password opens it; none is shown.
		withPassword := strings.Replace(dsn, "postgres:///", "postgres://postgres:s3cret@/", 1) + "&password=s3cret2"
		st := store.OpenT(t, withPassword)
		if strings.Contains(st.DSN(), "s3cret") || !strings.HasPrefix(st.DSN(), "postgres://postgres@/") {
			t.Errorf("DSN() = %q, want it without the password", st.DSN())
		}
		_, err := st.GetRun(ctx, "nope")
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "--db 'postgres://") {
			t.Errorf("GetRun(nope) = %v, want a quoted DSN without the password", err)
		}
	})
	if _, err := store.Open(ctx, "postgres://%zz"); err == nil {
		t.Error("a malformed Postgres URL was accepted")
	}
}

// The response cache is written with the next batch of attempts, in its transaction: another
// process sees an answer once the attempts after it are stored, and never an attempt without the
// answers put before it. Answers of attempts still in flight are written on their own within a
// second, and by Close.
func TestResponseCacheRidesTheGroupCommit(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		other := store.OpenT(t, dsn) // another process
		newRun(t, st, "r1")
		store.SetCacheDelay(st, time.Hour) // only the attempts write answers, until the timer part
		seen := func(key string) bool {
			t.Helper()
			_, ok, err := other.GetResponse(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if err := st.PutResponse(ctx, "a", "openai", "gpt", []byte(`{"a":1}`)); err != nil {
			t.Fatal(err)
		}
		if err := st.PutAttempts(ctx, "r1", []store.Attempt{attempt("c1", 0, 0, verdict.OK, 1)}); err != nil {
			t.Fatal(err)
		}
		if !seen("a") {
			t.Error("an answer put before a stored attempt is not in the store")
		}

		// Through a transaction of the store (a River worker's): kept only when it commits.
		st.PutResponse(ctx, "b", "openai", "gpt", []byte(`{"b":1}`))
		boom := errors.New("boom")
		err := st.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.PutAttempts(ctx, "r1", []store.Attempt{attempt("c2", 0, 0, verdict.OK, 1)}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) || seen("b") {
			t.Fatalf("rolled back transaction: %v, answer seen %v; want boom and not seen", err, seen("b"))
		}
		if got, ok, _ := st.GetResponse(ctx, "b"); !ok || string(got) != `{"b":1}` {
			t.Errorf("after a rollback the store's own read gives %q, %v; want the answer kept for the next commit", got, ok)
		}
		if err := st.InTx(ctx, func(tx *store.Tx) error {
			return tx.PutAttempts(ctx, "r1", []store.Attempt{attempt("c2", 0, 0, verdict.OK, 1)})
		}); err != nil {
			t.Fatal(err)
		}
		if !seen("b") {
			t.Error("an answer put before a committed transaction of attempts is not in the store")
		}

		// No attempt follows: written on its own after the delay.
		store.SetCacheDelay(st, 50*time.Millisecond)
		st.PutResponse(ctx, "c", "openai", "gpt", []byte(`{"c":1}`))
		deadline := time.Now().Add(10 * time.Second)
		for !seen("c") {
			if time.Now().After(deadline) {
				t.Fatal("an answer with no attempt after it was not written within 10 s")
			}
			time.Sleep(50 * time.Millisecond)
		}

		// Close writes what waits.
		last, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		store.SetCacheDelay(last, time.Hour)
		last.PutResponse(ctx, "d", "openai", "gpt", []byte(`{"d":1}`))
		if err := last.Close(); err != nil {
			t.Fatal(err)
		}
		if !seen("d") {
			t.Error("Close did not write the waiting answer")
		}
	})
}

// spentOf is a run's summed cost (store.Spend.Cost).
func spentOf(st *store.Store, ctx context.Context, runID string) (float64, error) {
	sp, err := st.RunSpend(ctx, runID)
	return sp.Cost, err
}
