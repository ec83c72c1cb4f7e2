package queue_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/store/pgtest"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Issue 25 finding 4: the Postgres server restarts twice in the middle of a run on the local
// pool (every session cut off, the server away for a second each time). The run rides it out:
// it finishes, every unit with exactly one attempt, none an error.
func TestRunRidesOutPostgresRestarts(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const cases = 400
	srv := llmtest.NewOpenAI(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: `{"vulnerable": true}`, InputTokens: 10, OutputTokens: 5, Latency: 40 * time.Millisecond}
	})
	defer srv.Close()
	fac, cfg, flags := configured(t, "llm", map[string]string{"model": "openai:fake", "base-url": srv.BaseURL()})
	p := runSpec("o", fac, cfg, flags, writeSuite(t, t.TempDir(), cases))
	p.Host.Deps, p.Host.Concurrency, p.Timeout = subject.Deps{Cache: st, Getenv: func(string) string { return "test-key" }}, 8, time.Minute
	restarts := make(chan error, 1)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		for _, at := range []int{60, 200} {
			for {
				n, _, _, err := st.UnitCounts(ctx, "o")
				if err == nil && n >= at {
					break
				}
				if rctx.Err() != nil {
					restarts <- fmt.Errorf("the run ended before %d units were stored", at)
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Logf("restarting Postgres at %d units stored", at)
			if err := pgtest.Restart(time.Second); err != nil {
				restarts <- err
				return
			}
		}
		restarts <- nil
	}()
	out, err := start(ctx, st, p, nil)
	stop()
	if err != nil {
		t.Fatalf("the run did not ride out the restarts: %v", err)
	}
	if err := <-restarts; err != nil {
		t.Fatal(err)
	}
	run, err := st.GetRun(ctx, "o")
	if err != nil || run.State != store.StateDone {
		t.Fatalf("run after the restarts: %+v, %v (outcome %+v), want done", run, err, out)
	}
	attempts := map[string]int{}
	if err := st.AllAttempts(ctx, "o", func(v verdict.Verdict) error {
		attempts[v.CaseID]++
		if v.Status == verdict.Error {
			t.Errorf("%s: error verdict: %s", v.CaseID, v.Reason)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for c, n := range attempts {
		if n != 1 {
			t.Errorf("%s has %d attempts, want exactly one", c, n)
		}
	}
	if len(attempts) != cases {
		t.Errorf("%d units stored, want %d", len(attempts), cases)
	}
}
