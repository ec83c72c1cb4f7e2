package store

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pressly/goose/v3"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// rawDB opens dsn's database without migrating it, with a goose provider of its dialect.
func rawDB(t *testing.T, dsn string) (*sql.DB, dialect, *goose.Provider) {
	t.Helper()
	d, driver, gd, source := sqliteDialect, "sqlite", goose.DialectSQLite3, "file:"+dsn+"?_pragma=foreign_keys(ON)"
	if strings.HasPrefix(dsn, "postgres") {
		d, driver, gd, source = postgresDialect, "pgx", goose.DialectPostgres, dsn
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p, err := goose.NewProvider(gd, db, migrationsFS(d))
	if err != nil {
		t.Fatal(err)
	}
	return db, d, p
}

// A wave-1 store (migrations 00001 and 00002, one verdict per unit) opens with the new code: its
// verdicts are attempt 0 of their units, its trace text a note event, its cache kept.
func TestMigrateWave1Store(t *testing.T) {
	ForEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, d, p := rawDB(t, dsn)
		if _, err := p.UpTo(ctx, 2); err != nil {
			t.Fatal(err)
		}
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.ExecContext(ctx, d.rebind(q), args...); err != nil {
				t.Fatal(err)
			}
		}
		// As wave 1 wrote them: RFC 3339 times with a variable fraction, comma-joined CWEs.
		exec(`INSERT INTO runs (id, created_at, state, suite_path, suite_hash, subject, repeats, units, manifest)
			VALUES ('r1', '2026-01-02T03:04:05.5Z', 'done', 's.jsonl', 'h', 'random', 2, 4, '{"seed":1}')`)
		const q = `INSERT INTO verdicts (run_id, case_id, repeat_idx, status, label, score, cwe, category, explanation, reason, raw,
			input_tokens, cached_tokens, output_tokens, cost_usd, wall_ms, tool_calls, calls, retries, trace, created_at, cache_hits, wait_ms)
			VALUES ('r1', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
		exec(q, "a", 0, "ok", "vul", 0.25, "CWE-787,CWE-119", "memory", "strcpy", nil, nil, 10, 4, 3, 0.5, 7, 2, 1, 1, "step 1\nstep 2", "2026-01-02T03:04:06Z", 1, 9)
		exec(q, "a", 1, "failed", nil, nil, nil, nil, nil, "no marker", "I think so", 0, 0, 0, nil, 0, 0, 0, 0, nil, "2026-01-02T03:04:07Z", 0, 0)
		exec(q, "b", 0, "error", nil, nil, "", nil, nil, "timeout", nil, 0, 0, 0, 0.1, 0, 0, 1, 3, "", "2026-01-02T03:04:08Z", 0, 0)
		exec(`INSERT INTO llm_cache (key, provider, model, response, created_at) VALUES ('k', 'openai', 'gpt', '{"x":1}', '2026-01-02T03:04:05Z')`)

		st := OpenT(t, dsn)
		r, err := st.GetRun(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if !r.CreatedAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 5e8, time.UTC)) || r.State != StateDone || string(r.Manifest) != `{"seed":1}` {
			t.Errorf("run = %+v", r)
		}
		want := []verdict.Verdict{
			{CaseID: "a", Status: verdict.OK, Label: suite.Vul, Score: verdict.Float(0.25), CWE: []string{"CWE-787", "CWE-119"},
				Category: "memory", Explanation: "strcpy", Usage: verdict.Usage{InputTokens: 10, CachedInputTokens: 4, OutputTokens: 3,
					CostUSD: verdict.Float(0.5), WallMS: 7, ToolCalls: 2, Calls: 1, Retries: 1, CacheHits: 1, WaitMS: 9}},
			{CaseID: "a", Repeat: 1, Status: verdict.Failed, Reason: "no marker", Raw: "I think so"},
			{CaseID: "b", Status: verdict.Error, Reason: "timeout", Usage: verdict.Usage{CostUSD: verdict.Float(0.1), Calls: 1, Retries: 3}},
		}
		var got []verdict.Verdict
		if err := st.Verdicts(ctx, "r1", func(v verdict.Verdict) error { got = append(got, v); return nil }); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("verdicts of a wave-1 store (-want +got):\n%s", d)
		}
		evs, err := st.TraceEvents(ctx, "r1", "a", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		wantEvents := []trace.Event{{Time: time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC), Kind: trace.Note, Name: "wave-1 trace", Content: "step 1\nstep 2"}}
		if d := cmp.Diff(wantEvents, evs); d != "" {
			t.Errorf("trace of a wave-1 verdict (-want +got):\n%s", d)
		}
		if evs, err := st.TraceEvents(ctx, "r1", "b", 0, 0); err != nil || len(evs) != 0 {
			t.Errorf("an empty wave-1 trace became events %v, %v", evs, err)
		}
		claims, err := st.QueryStrings(ctx, `SELECT cwe FROM attempt_cwes WHERE run_id = 'r1' ORDER BY cwe`)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"CWE-119", "CWE-787"}, claims); d != "" {
			t.Errorf("attempt_cwes (-want +got):\n%s", d)
		}
		if sp, err := st.RunSpend(ctx, "r1"); err != nil || sp.Cost != 0.6 {
			t.Errorf("spent = %v, %v; want 0.6", sp.Cost, err)
		}
		if v, ok, err := st.GetResponse(ctx, "k"); err != nil || !ok || string(v) != `{"x":1}` {
			t.Errorf("cached response = %q, %v, %v", v, ok, err)
		}
		if err := st.Exec(ctx, `SELECT 1 FROM verdicts`); err == nil {
			t.Error("the wave-1 verdicts table is still there")
		}

		// The error unit is retried: attempt 1 joins it.
		if err := st.PutAttempts(ctx, "r1", []Attempt{{Verdict: verdict.Verdict{CaseID: "b", Attempt: 1, Status: verdict.OK, Label: suite.Ben}}}); err != nil {
			t.Fatal(err)
		}
		st.Close()

		// Down to wave 1 keeps each unit's scored verdict; up again works.
		if _, err := p.DownTo(ctx, 2); err != nil {
			t.Fatal(err)
		}
		rows, err := db.QueryContext(ctx, `SELECT case_id, repeat_idx, status FROM verdicts ORDER BY case_id, repeat_idx`)
		if err != nil {
			t.Fatal(err)
		}
		var down []string
		for rows.Next() {
			var id, status string
			var rep int
			if err := rows.Scan(&id, &rep, &status); err != nil {
				t.Fatal(err)
			}
			down = append(down, id+"/"+status)
		}
		rows.Close()
		if d := cmp.Diff([]string{"a/ok", "a/failed", "b/ok"}, down); d != "" {
			t.Errorf("verdicts after migrating down (-want +got):\n%s", d)
		}
		st = OpenT(t, dsn)
		if n, err := st.Attempts(ctx, "r1", "b", 0); err != nil || len(n) != 1 || n[0].Status != verdict.OK {
			t.Errorf("after down and up: attempts of b = %+v, %v", n, err)
		}
	})
}
