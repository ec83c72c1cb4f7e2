package queue_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/queue"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/store/pgtest"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/builtin"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childWorker())
	}
	pgtest.Main(m)
}

const demo = "../../suites/demo/demo.jsonl" // 66 cases

// configured is the kind's factory and config with its flags at their defaults but for set.
func configured(t *testing.T, kind string, set map[string]string) (subject.Factory, subject.Config, subject.TextValues) {
	t.Helper()
	fac, arg, err := builtin.Registry().Lookup(kind)
	if err != nil {
		t.Fatal(err)
	}
	flags := subject.TextValues{}
	for _, f := range fac.Flags {
		flags[f.Name] = fmt.Sprint(f.Default)
	}
	maps.Copy(flags, set)
	cfg, err := fac.Configure(arg, flags)
	if err != nil {
		t.Fatal(err)
	}
	return fac, cfg, flags
}

// plan is a run of the seeded random subject on the demo suite.
func plan(t *testing.T, id string) runner.Spec {
	t.Helper()
	fac, cfg, flags := configured(t, "random", map[string]string{"seed": "7"})
	s := runSpec(id, fac, cfg, flags, demo)
	s.Repeats, s.Host.Concurrency, s.Timeout = 2, 4, 5*time.Second
	return s
}

// runSpec is run id of a configured kind on the suite at path: one repeat, one at a time.
func runSpec(id string, fac subject.Factory, cfg subject.Config, flags map[string]string, path string) runner.Spec {
	return runner.Spec{Version: "test", RunID: id, Suite: path, Subject: runner.Subject{Factory: fac, Spec: fac.Name, Config: cfg, Flags: flags},
		Repeats: 1, Host: runner.Host{Concurrency: 1}}
}

// start creates the run s: with q, its units are queued there; without, done on the local pool.
func start(ctx context.Context, st *store.Store, s runner.Spec, q runner.Queue) (*runner.Outcome, error) {
	r, err := runner.Create(ctx, st, s)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if q != nil {
		return r.Enqueue(ctx, q)
	}
	return r.Execute(ctx, runner.Local{})
}

// resume resumes run id (its subject from the builtin kinds) and queues what it has left on q.
func resume(ctx context.Context, st *store.Store, id string, host runner.Host, q runner.Queue) (*runner.Outcome, error) {
	r, err := runner.Resume(ctx, st, id, runner.Overrides{Registry: builtin.Registry(), Host: host})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Enqueue(ctx, q)
}

func verdicts(t *testing.T, st *store.Store, id string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := st.AllAttempts(context.Background(), id, func(v verdict.Verdict) error {
		key := fmt.Sprintf("%s/%d/%d", v.CaseID, v.Repeat, v.Attempt)
		if _, dup := out[key]; dup {
			t.Errorf("%s stored twice", key)
		}
		out[key] = fmt.Sprintf("%s %s %.6f", v.Status, v.Label, *v.Score)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// work runs one in-process worker until the run ends, and stops it.
func work(t *testing.T, st *store.Store, dsn, id string) queue.Progress {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- queue.Work(ctx, st, queue.WorkerOptions{Options: queue.Options{DSN: dsn}, ID: "w-" + id, Host: "test", PID: 1,
			Concurrency: 4, Beat: 50 * time.Millisecond,
			Open:   runner.OpenOptions{Registry: builtin.Registry(), Deps: subject.Deps{Cache: st}},
			OnNote: func(s string) { t.Log(s) }})
	}()
	q, err := queue.Open(context.Background(), st, queue.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	fctx, fcancel := context.WithTimeout(context.Background(), time.Minute)
	defer fcancel()
	p, err := q.Follow(fctx, id, 20*time.Millisecond, nil)
	cancel()
	if werr := <-done; werr != nil {
		t.Fatal(werr)
	}
	if err != nil {
		t.Fatal(err)
	}
	// The worker's last heartbeat, as it stopped, has its final counts.
	if p.Workers, err = st.WorkerRuns(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	return p
}

// onBothBackends runs fn as a subtest on a SQLite store and on a Postgres one.
func onBothBackends(t *testing.T, fn func(t *testing.T, st *store.Store, dsn string)) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dsn := filepath.Join(t.TempDir(), "v.db")
			if backend == "postgres" {
				dsn = pgtest.DSN(t)
			}
			st, err := store.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			fn(t, st, dsn)
		})
	}
}

// The same job path on both backends: a run queued on River and done by a worker stores the
// same verdicts as the local pool, one attempt per unit; on SQLite (riversqlite) too.
func TestRiverRunMatchesTheLocalPool(t *testing.T) {
	onBothBackends(t, func(t *testing.T, st *store.Store, dsn string) {
		ctx := context.Background()
		if _, err := start(ctx, st, plan(t, "local"), nil); err != nil {
			t.Fatal(err)
		}
		q, err := queue.Open(ctx, st, queue.Options{DSN: dsn})
		if err != nil {
			t.Fatal(err)
		}
		out, err := start(ctx, st, plan(t, "river"), q)
		q.Close()
		if err != nil {
			t.Fatal(err)
		}
		if out.Queued != 132 || out.Run.Queue != store.QueueRiver {
			t.Fatalf("%d units queued on %q, want 132 on river", out.Queued, out.Run.Queue)
		}
		if n, _ := st.CaseCount(ctx, "river"); n != 66 {
			t.Fatalf("%d cases stored with the queued run, want 66", n)
		}
		prog := work(t, st, dsn, "river")
		if prog.State != store.StateDone || prog.Stored != 132 || len(prog.Workers) != 1 || prog.Workers[0].Done != 132 {
			t.Errorf("progress at the end %+v", prog)
		}
		local, river := verdicts(t, st, "local"), verdicts(t, st, "river")
		if diff := cmp.Diff(local, river); diff != "" || len(river) != 132 {
			t.Errorf("River's verdicts differ from the local pool's (-local +river):\n%s", diff)
		}
	})
}

// A River run stopped before its workers came: its units are left, a resume enqueues only the
// missing ones (none twice), and one worker then does exactly those.
func TestResumeEnqueuesOnlyMissingUnits(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q, err := queue.Open(ctx, st, queue.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	p := plan(t, "r")
	if _, err := start(ctx, st, p, q); err != nil {
		t.Fatal(err)
	}
	// Half the units are stored (as another worker would have), then the run is stopped.
	var as []store.Attempt
	n := 0
	if err := st.Cases(ctx, "r", func(c *suite.Case) error {
		if n%2 == 0 {
			as = append(as, store.Attempt{Verdict: verdict.Verdict{CaseID: c.ID, Repeat: 0, Status: verdict.OK, Label: "vul", Score: verdict.Float(1)}})
		}
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutAttempts(ctx, "r", as); err != nil {
		t.Fatal(err)
	}
	if err := runner.Stop(ctx, st, "r"); err != nil {
		t.Fatal(err)
	}
	// Resumed while its first jobs still wait: nothing is enqueued twice.
	out, err := resume(ctx, st, "r", p.Host, q)
	if err != nil {
		t.Fatal(err)
	}
	if want := 132 - len(as); out.Queued != want {
		t.Errorf("resume queued %d units, want the %d missing", out.Queued, want)
	}
	prog := work(t, st, dsn, "r")
	got := verdicts(t, st, "r")
	if prog.State != store.StateDone || len(got) != 132 || prog.Workers[0].Done != 132-len(as) {
		t.Errorf("after the resume: %d attempts, progress %+v; want 132 attempts, %d by the worker", len(got), prog, 132-len(as))
	}
}

// vulnerable answers every prompt after 200 ms.
func vulnerable(llmtest.Request) llmtest.Reply {
	return llmtest.Reply{Text: `{"vulnerable": true}`, InputTokens: 10, OutputTokens: 5, Latency: 200 * time.Millisecond}
}

// vulnbench cancel on a River run: the worker abandons its units in flight (nothing half-done
// is stored) and takes no new unit of it; a resume then does exactly what is missing.
func TestCancelAbandonsUnitsInFlight(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := llmtest.NewOpenAI(vulnerable)
	defer srv.Close()
	fac, cfg, flags := configured(t, "llm", map[string]string{"model": "openai:fake", "base-url": srv.BaseURL()})
	getenv := func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "test-key"
		}
		return ""
	}
	deps := subject.Deps{Cache: st, Getenv: getenv}
	q, err := queue.Open(ctx, st, queue.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	p := runSpec("c", fac, cfg, flags, demo)
	p.Host.Deps, p.Timeout = deps, 5*time.Second
	if _, err := start(ctx, st, p, q); err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() {
		done <- queue.Work(wctx, st, queue.WorkerOptions{Options: queue.Options{DSN: dsn}, ID: "w-c", Host: "test", PID: 1,
			Concurrency: 4, Beat: 20 * time.Millisecond, Open: runner.OpenOptions{Registry: builtin.Registry(), Deps: deps}})
	}()
	for {
		n, _, _, err := st.UnitCounts(ctx, "c")
		if err != nil {
			t.Fatal(err)
		}
		if n >= 8 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := runner.Cancel(ctx, st, "c"); err != nil {
		t.Fatal(err)
	}
	// Within a couple of heartbeats the units in flight are abandoned: nothing more is stored.
	time.Sleep(300 * time.Millisecond)
	at, _, _, _ := st.UnitCounts(ctx, "c")
	time.Sleep(600 * time.Millisecond) // three answers' time
	after, _, _, _ := st.UnitCounts(ctx, "c")
	if after != at || at >= 66 {
		t.Errorf("%d units stored at the cancel's effect, %d later: a cancelled run must store nothing more", at, after)
	}
	if r, _ := st.GetRun(ctx, "c"); r.State != store.StateCancelled {
		t.Errorf("run is %s, want cancelled", r.State)
	}
	// A resume enqueues what is missing; the same worker finishes it.
	out, err := resume(ctx, st, "c", p.Host, q)
	if err != nil {
		t.Fatal(err)
	}
	if out.Queued != 66-after {
		t.Errorf("resume queued %d units, want the %d missing", out.Queued, 66-after)
	}
	fctx, fcancel := context.WithTimeout(ctx, time.Minute)
	defer fcancel()
	prog, err := q.Follow(fctx, "c", 20*time.Millisecond, nil)
	if err != nil || prog.State != store.StateDone || prog.Stored != 66 {
		t.Errorf("after the resume: %+v, %v", prog, err)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(verdictsOK(t, st, "c")); n != 66 {
		t.Errorf("%d attempts stored, want one per case", n)
		logJobs(t, st, "c")
	}
}

// logJobs logs the River jobs of run id that did not complete, with their errors (Postgres).
func logJobs(t *testing.T, st *store.Store, id string) {
	t.Helper()
	rows, err := st.DB().Query(`SELECT args->>'case', args->>'repeat', state, attempt, COALESCE(errors::text, '') FROM river_job
		WHERE args->>'run' = $1 AND state <> 'completed' ORDER BY id`, id)
	if err != nil {
		t.Logf("jobs of %s: %v", id, err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var c, r, state, errs string
		var attempt int
		if err := rows.Scan(&c, &r, &state, &attempt, &errs); err != nil {
			t.Logf("jobs of %s: %v", id, err)
			return
		}
		t.Logf("job %s/%s: %s after %d tries: %.300s", c, r, state, attempt, errs)
	}
}

func verdictsOK(t *testing.T, st *store.Store, id string) []string {
	t.Helper()
	var out []string
	if err := st.AllAttempts(context.Background(), id, func(v verdict.Verdict) error {
		if v.Status != verdict.OK {
			t.Errorf("%s: %s %s", v.CaseID, v.Status, v.Reason)
		}
		out = append(out, v.CaseID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}
