package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func TestRoundTripResumeAndReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	run := &store.Run{ID: "r1", CreatedAt: created, State: store.StateRunning, SuitePath: "s.jsonl", SuiteHash: "abc",
		Subject: "random", Repeats: 2, Units: 4, Manifest: json.RawMessage(`{"seed":42}`)}
	if err := st.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateRun(ctx, run); err == nil {
		t.Error("creating the same run twice succeeded")
	}
	in := []verdict.Verdict{
		{CaseID: "a", Repeat: 0, Status: verdict.OK, Label: suite.Vul, Score: verdict.Float(0.25), CWE: []string{"CWE-787", "CWE-119"},
			Explanation: "strcpy", Usage: verdict.Usage{InputTokens: 10, OutputTokens: 3, CostUSD: verdict.Float(0.5), WallMS: 7, Calls: 1}},
		{CaseID: "a", Repeat: 1, Status: verdict.Failed, Reason: "no marker", Raw: "I think so"},
		{CaseID: "b", Repeat: 0, Status: verdict.Error, Reason: "timeout"},
	}
	if err := st.PutVerdicts(ctx, "r1", in); err != nil {
		t.Fatal(err)
	}
	var got []verdict.Verdict
	if err := st.Verdicts(ctx, "r1", func(v verdict.Verdict) error { got = append(got, v); return nil }); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(in, got); d != "" {
		t.Errorf("verdicts (-stored +read):\n%s", d)
	}

	var labels []verdict.Verdict
	if err := st.Labels(ctx, "r1", func(v verdict.Verdict) error { labels = append(labels, v); return nil }); err != nil {
		t.Fatal(err)
	}
	wantLabels := []verdict.Verdict{
		{CaseID: "a", Repeat: 0, Status: verdict.OK, Label: suite.Vul, Score: verdict.Float(0.25)},
		{CaseID: "a", Repeat: 1, Status: verdict.Failed},
		{CaseID: "b", Repeat: 0, Status: verdict.Error},
	}
	if d := cmp.Diff(wantLabels, labels); d != "" {
		t.Errorf("labels (-want +got):\n%s", d)
	}

	units := func(skipErrors bool) []store.Unit {
		var us []store.Unit
		if err := st.Done(ctx, "r1", skipErrors, func(u store.Unit) { us = append(us, u) }); err != nil {
			t.Fatal(err)
		}
		sort.Slice(us, func(i, j int) bool {
			return us[i].CaseID+string(rune(us[i].Repeat)) < us[j].CaseID+string(rune(us[j].Repeat))
		})
		return us
	}
	if d := cmp.Diff([]store.Unit{{"a", 0}, {"a", 1}}, units(true)); d != "" {
		t.Errorf("done without errors (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]store.Unit{{"a", 0}, {"a", 1}, {"b", 0}}, units(false)); d != "" {
		t.Errorf("done with errors (-want +got):\n%s", d)
	}

	// A retried error replaces its row rather than adding one.
	if err := st.PutVerdicts(ctx, "r1", []verdict.Verdict{{CaseID: "b", Status: verdict.OK, Label: suite.Ben}}); err != nil {
		t.Fatal(err)
	}
	if n := len(units(true)); n != 3 {
		t.Errorf("after retry: %d units done, want 3", n)
	}
	if err := st.SetState(ctx, "r1", store.StateDone); err != nil {
		t.Fatal(err)
	}
	st.Close()

	// Reopening runs no migration twice and keeps everything.
	st, err = store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.GetRun(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if r.State != store.StateDone || r.FinishedAt.IsZero() || !r.CreatedAt.Equal(created) || string(r.Manifest) != `{"seed":42}` {
		t.Errorf("run after reopen = %+v", r)
	}
	if _, err := st.GetRun(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetRun(nope) = %v, want ErrNotFound", err)
	}
}

func TestBatchIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.CreateRun(ctx, &store.Run{ID: "r1", CreatedAt: time.Now(), State: store.StateRunning, SuitePath: "s.jsonl",
		SuiteHash: "h", Subject: "random", Repeats: 1, Units: 2, Manifest: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	// A trigger refuses the batch's second verdict, after the first was inserted: the first must
	// not stay either.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.ExecContext(ctx, `CREATE TRIGGER refuse BEFORE INSERT ON verdicts WHEN NEW.case_id = 'bad'
		BEGIN SELECT RAISE(ABORT, 'refused'); END`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	err = st.PutVerdicts(ctx, "r1", []verdict.Verdict{{CaseID: "a", Status: verdict.OK, Label: suite.Vul}, {CaseID: "bad", Status: verdict.OK, Label: suite.Ben}})
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err = %v, want the trigger's refusal", err)
	}
	n := 0
	if err := st.Verdicts(ctx, "r1", func(verdict.Verdict) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d verdicts of a failed batch were kept", n)
	}

	// Verdicts of an unknown run are refused by the foreign key.
	if err := st.PutVerdicts(ctx, "r2", []verdict.Verdict{{CaseID: "a", Status: verdict.OK, Label: suite.Vul}}); err == nil {
		t.Error("verdicts of an unknown run were stored")
	}
}

func TestPostgresDSNIsRefusedClearly(t *testing.T) {
	_, err := store.Open(context.Background(), "postgres://localhost/x")
	if err == nil || !strings.Contains(err.Error(), "SQLite file path") {
		t.Errorf("err = %v, want a message pointing to a SQLite path", err)
	}
}
