package fixcheck_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/grade/fixcheck"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// counting is a fix checker that records what it was asked: the checks' outcome is the
// item's case and repeat, so a stored check read back is traceable to its attempt.
type counting struct {
	mu    sync.Mutex
	asked []string
	stop  func(n int) // called after each check with the number made
}

func (c *counting) CheckFix(_ context.Context, it *grade.Item) grade.FixCheck {
	c.mu.Lock()
	c.asked = append(c.asked, key(it.Vul))
	n := len(c.asked)
	c.mu.Unlock()
	if c.stop != nil {
		c.stop(n)
	}
	syntax := grade.SyntaxOK
	if it.Record.Language == "go" {
		syntax = grade.SyntaxError
	}
	return grade.FixCheck{Syntax: syntax, Scanner: grade.ScannerClean, Detail: key(it.Vul)}
}

func key(v *verdict.Verdict) string {
	return v.CaseID + "/" + string(rune('0'+v.Repeat)) + "/" + string(rune('0'+v.Attempt))
}

// appsecRun stores a run of three AppSecBench records, two repeats: a (python) and c (go)
// answered vul with a fix on both repeats, b answered ben (no fix to check); c's repeat 1 was
// tried twice, an error then an answer.
func appsecRun(t *testing.T) (*store.Store, string) {
	t.Helper()
	ctx := t.Context()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	run := &store.Run{ID: "r1", CreatedAt: time.Now(), State: store.StateDone, SuitePath: "app.jsonl", SuiteHash: "abc",
		Subject: "llm", Repeats: 2, Units: 12, Manifest: json.RawMessage(`{}`), Queue: store.QueueLocal}
	if err := st.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	var cases []suite.Case
	for _, r := range []struct{ id, lang string }{{"a", "python"}, {"b", "python"}, {"c", "go"}} {
		truth := map[string]any{"benchmark_id": r.id, "expected_cwe": "CWE-78", "language": r.lang, "difficulty": "beginner",
			"expected_owasp": "A03:2021", "expected_severity": "High", "metadata": map[string]any{"archetype": "os-command-injection"}}
		for _, l := range []suite.Label{suite.Vul, suite.Ben} {
			cases = append(cases, suite.Case{ID: r.id + "-" + string(l), Kind: suite.KindAppSec, Label: l, Pair: r.id, Language: r.lang,
				CWE: []string{"CWE-78"}, Code: r.id + " " + string(l) + " code", AppSec: truth})
		}
	}
	if err := st.PutCases(ctx, "r1", 0, cases); err != nil {
		t.Fatal(err)
	}
	fix := func(id string, repeat, attempt int) store.Attempt {
		return store.Attempt{Verdict: verdict.Verdict{CaseID: id, Repeat: repeat, Attempt: attempt, Status: verdict.OK, Label: suite.Vul,
			CWE: []string{"CWE-78"}, AppSec: &verdict.AppSec{FixCode: "fixed " + id}}}
	}
	ben := func(id string, repeat int) store.Attempt {
		return store.Attempt{Verdict: verdict.Verdict{CaseID: id, Repeat: repeat, Status: verdict.OK, Label: suite.Ben}}
	}
	errored := store.Attempt{Verdict: verdict.Verdict{CaseID: "c-vul", Repeat: 1, Status: verdict.Error, Reason: "timeout"}}
	var as []store.Attempt
	for r := range 2 {
		as = append(as, fix("a-vul", r, 0), ben("a-ben", r), ben("b-vul", r), ben("b-ben", r), ben("c-ben", r))
	}
	as = append(as, fix("c-vul", 0, 0), errored, fix("c-vul", 1, 1))
	if err := st.PutAttempts(ctx, "r1", as); err != nil {
		t.Fatal(err)
	}
	return st, "r1"
}

// Fill checks each proposed fix once and stores it with its attempt; a second Fill checks
// nothing; a Fill cut short keeps what it stored and the next one makes only the rest; the
// report reads the stored checks and never checks.
func TestFill(t *testing.T) {
	ctx := t.Context()
	st, run := appsecRun(t)
	want := []string{"a-vul/0/0", "a-vul/1/0", "c-vul/0/0", "c-vul/1/1"}

	// Cut short after two checks: those two are stored, the next Fill makes the other two.
	cctx, cancel := context.WithCancel(ctx)
	c := &counting{stop: func(n int) {
		if n == 2 {
			cancel()
		}
	}}
	if _, err := fixcheck.Fill(cctx, st, run, c, 1, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled Fill: %v", err)
	}
	c2 := &counting{}
	f, err := fixcheck.Fill(ctx, st, run, c2, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Proposed != 4 || f.Checked+f.Stored != 4 || f.Stored < 1 {
		t.Errorf("after a cut: %+v", f)
	}
	all := append(append([]string{}, c.asked...), c2.asked...)
	sort.Strings(all)
	// the check in flight when Fill was cut is made again, never stored twice
	all = compact(all)
	if d := cmp.Diff(want, all); d != "" {
		t.Errorf("checks made (-want +got):\n%s", d)
	}
	c3 := &counting{}
	f, err = fixcheck.Fill(ctx, st, run, c3, 4, nil)
	if err != nil || f.Checked != 0 || f.Stored != 4 || len(c3.asked) != 0 {
		t.Errorf("a second Fill: %+v, %v, asked %v", f, err, c3.asked)
	}
	var stored []string
	if err := st.Grades(ctx, run, grade.FixCheckPart, grade.FixCheckVersion, func(g store.Grade) error {
		var fc grade.FixCheck
		if err := json.Unmarshal(g.Result, &fc); err != nil {
			return err
		}
		if fc.Detail != g.CaseID+"/"+string(rune('0'+g.Repeat))+"/"+string(rune('0'+g.Attempt)) {
			t.Errorf("stored check %+v is not its attempt's", g)
		}
		stored = append(stored, fc.Detail)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, stored); d != "" {
		t.Errorf("stored (-want +got):\n%s", d)
	}

	// The report reads them: a (python) parses, c (go) does not, on each repeat; the grader's
	// own checker is never asked for a stored run.
	live := &counting{}
	g, err := grade.NewGrader()
	if err != nil {
		t.Fatal(err)
	}
	g.Fix = live
	rep, err := report.Build(ctx, st, report.Request{Runs: []string{run}, AppSec: g})
	if err != nil {
		t.Fatal(err)
	}
	if len(live.asked) != 0 {
		t.Errorf("the report checked fixes itself: %v", live.asked)
	}
	for i, res := range rep.Runs[0].Results {
		fx := res.AppSec.Fix
		if fx == nil || fx.Proposed != 2 || fx.SyntaxOK != 1 || fx.SyntaxError != 1 || fx.ScannerClean != 2 || fx.NotStored != 0 {
			t.Errorf("repeat %d: fix checks %+v", i, fx)
		}
	}
	if len(rep.Notes()) != 0 {
		t.Errorf("notes %v", rep.Notes())
	}

	// With fix checks skipped the report says so and counts none.
	g.SkipFix = true
	rep, err = report.Build(ctx, st, report.Request{Runs: []string{run}, AppSec: g})
	if err != nil {
		t.Fatal(err)
	}
	if a := rep.Runs[0].Results[0].AppSec; a.Fix != nil || !a.FixSkipped {
		t.Errorf("skipped: %+v, %v", a.Fix, a.FixSkipped)
	}
}

// A stored run whose checks are not stored counts its fixes as not stored, and says how to
// make them.
func TestNotStored(t *testing.T) {
	st, run := appsecRun(t)
	rep, err := report.Build(t.Context(), st, report.Request{Runs: []string{run}})
	if err != nil {
		t.Fatal(err)
	}
	fx := rep.Runs[0].Results[0].AppSec.Fix
	if fx == nil || fx.Proposed != 2 || fx.NotStored != 2 || fx.SyntaxOK+fx.SyntaxError+fx.SyntaxUnchecked != 0 {
		t.Errorf("fix checks %+v", fx)
	}
	if n := rep.Notes(); len(n) != 1 || !n[0].Warning || !strings.Contains(n[0].Text, "vulnbench grade --run r1") {
		t.Errorf("notes %+v", n)
	}
}

func compact(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
