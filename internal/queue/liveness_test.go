package queue_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/queue"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/store/pgtest"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/builtin"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// childEnv, set in a child's environment, makes the test binary a worker process (childWorker)
// instead of running tests: a worker that can be killed with SIGKILL.
const childEnv = "VULNBENCH_QUEUE_TEST_WORKER"

// childWorker is a worker process: VBQ_DSN, VBQ_ID and OPENAI_API_KEY from the environment,
// concurrency 4, until SIGTERM.
func childWorker() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	dsn, id := os.Getenv("VBQ_DSN"), os.Getenv("VBQ_ID")
	st, err := store.Open(ctx, dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	err = queue.Work(ctx, st, queue.WorkerOptions{Options: queue.Options{DSN: dsn, Log: os.Stderr}, ID: id, Host: "test",
		PID: os.Getpid(), Concurrency: 4,
		Open:   runner.OpenOptions{Registry: builtin.Registry(), Deps: subject.Deps{Cache: st, Getenv: os.Getenv}},
		OnNote: func(s string) { fmt.Fprintf(os.Stderr, "worker %s: %s\n", id, s) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// child is a worker process started from the test binary.
type child struct {
	id   string
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startChild(t *testing.T, dsn, id string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", "VBQ_DSN="+dsn, "VBQ_ID="+id, "OPENAI_API_KEY=test-key")
	c := &child{id: id, cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = c.out, c.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-c.done
		if t.Failed() {
			t.Logf("worker %s said:\n%s", id, c.out)
		}
	})
	return c
}

var caseRE = regexp.MustCompile(`case (c\d+)`)

// slowFake answers every case after 300 ms, and the case slow after slowFor; it counts the
// calls per case.
type slowFake struct {
	slow    string
	slowFor time.Duration
	mu      sync.Mutex
	calls   map[string]int
}

func (f *slowFake) handle(r llmtest.Request) llmtest.Reply {
	m := caseRE.FindStringSubmatch(r.Prompt())
	if m == nil {
		return llmtest.Reply{Status: 400, ErrorMessage: "no case in the prompt"}
	}
	f.mu.Lock()
	f.calls[m[1]]++
	f.mu.Unlock()
	lat := 300 * time.Millisecond
	if m[1] == f.slow {
		lat = f.slowFor
	}
	return llmtest.Reply{Text: `{"vulnerable": true}`, InputTokens: 10, OutputTokens: 5, Latency: lat}
}

func (f *slowFake) count(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[id]
}

func writeSuite(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"c%04d","kind":"function","label":%q,"pair":"p%d","cwe":["CWE-787"],"language":"c","code":"int f%d(char *s) {\n  /* case c%04d */\n  char b[8];\n  strcpy(b, s);\n  return 0;\n}"}`+"\n",
			i, []string{"vul", "ben"}[i%2], i/2, i, i)
	}
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// heldJobs returns the case of each running unit job, by the worker that holds it.
func heldJobs(t *testing.T, st *store.Store) map[string][]string {
	t.Helper()
	rows, err := st.DB().Query(`SELECT args->>'case', attempted_by[array_length(attempted_by, 1)] FROM river_job
		WHERE kind = 'vulnbench_unit' AND state = 'running' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var c, w string
		if err := rows.Scan(&c, &w); err != nil {
			t.Fatal(err)
		}
		out[w] = append(out[w], c)
	}
	return out
}

// holder waits until the unit slow runs on a worker and another worker holds units, and returns
// that other worker, its units, and the slow unit's worker.
func holder(t *testing.T, st *store.Store, slow string) (victim string, held []string, slowOn string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no worker besides the slow unit's held units within 30 s")
		}
		jobs := heldJobs(t, st)
		slowOn = ""
		for w, cs := range jobs {
			for _, c := range cs {
				if c == slow {
					slowOn = w
				}
			}
		}
		for w, cs := range jobs {
			if slowOn != "" && w != slowOn && len(cs) > 0 {
				return w, cs, slowOn
			}
		}
	}
}

// Issue 25 finding 6: three worker processes, one killed with SIGKILL while it holds units. The
// survivors see its heartbeat stop and make its units available again: they are redone within
// 30 s of the kill, at the run's default --timeout (10 min, whose job timeout River's own rescuer
// waits for). A unit slower than the detection window, on a live worker, is never taken away.
// Every unit ends with exactly one attempt.
func TestDeadWorkersUnitsRedoneWithin30s(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const cases, slowFor = 90, 20 * time.Second // slowFor: longer than the detection window
	fake := &slowFake{slow: "c0000", slowFor: slowFor, calls: map[string]int{}}
	srv := llmtest.NewOpenAI(fake.handle)
	defer srv.Close()
	q, err := queue.Open(ctx, st, queue.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()

	ws := map[string]*child{}
	for i := range 3 {
		id := fmt.Sprintf("w%d", i)
		ws[id] = startChild(t, dsn, id)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if n, _ := st.LiveWorkers(ctx, time.Now().Add(-time.Minute)); n == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the 3 workers did not beat within a minute")
		}
	}

	fac, cfg, flags := configured(t, "llm", map[string]string{"model": "openai:fake", "base-url": srv.BaseURL()})
	p := runSpec("d", fac, cfg, flags, writeSuite(t, t.TempDir(), cases))
	p.Host.Deps, p.Timeout = subject.Deps{Cache: st, Getenv: func(string) string { return "test-key" }}, 10*time.Minute
	if _, err := start(ctx, st, p, q); err != nil {
		t.Fatal(err)
	}

	// Kill a worker that holds units once the slow one is running on another.
	victim, held, slowOn := holder(t, st, fake.slow)
	ws[victim].cmd.Process.Kill()
	<-ws[victim].done
	killed := time.Now()
	t.Logf("killed %s holding %v; the slow unit runs on %s", victim, held, slowOn)

	// Its units are redone by the others within 30 s.
	for {
		left := 0
		for _, c := range held {
			if n, err := st.NextAttempt(ctx, "d", c, 0); err != nil || n == 0 {
				left++
			}
		}
		if left == 0 {
			break
		}
		if time.Since(killed) > 40*time.Second {
			t.Fatalf("%d of the killed worker's %d units not redone %.0f s after the kill (want within 30 s)", left, len(held), time.Since(killed).Seconds())
		}
		time.Sleep(50 * time.Millisecond)
	}
	redone := time.Since(killed)
	t.Logf("the killed worker's units redone %.1f s after the kill", redone.Seconds())
	if redone > 30*time.Second {
		t.Errorf("the killed worker's units redone %.1f s after the kill, want within 30 s", redone.Seconds())
	}

	fctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	prog, err := q.Follow(fctx, "d", 50*time.Millisecond, nil)
	if err != nil || prog.State != store.StateDone || prog.Stored != cases {
		t.Fatalf("run at the end: %+v, %v; want done with %d units", prog, err, cases)
	}
	attempts := map[string]int{}
	if err := st.AllAttempts(ctx, "d", func(v verdict.Verdict) error {
		attempts[v.CaseID]++
		if v.Status != verdict.OK {
			t.Errorf("%s attempt %d: %s %s", v.CaseID, v.Attempt, v.Status, v.Reason)
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
		t.Errorf("%d units with an attempt, want %d", len(attempts), cases)
	}
	var notCompleted, slowTries int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM river_job WHERE kind = 'vulnbench_unit' AND state <> 'completed'`).Scan(&notCompleted); err != nil {
		t.Fatal(err)
	}
	if err := st.DB().QueryRow(`SELECT attempt FROM river_job WHERE kind = 'vulnbench_unit' AND args->>'case' = $1`, fake.slow).Scan(&slowTries); err != nil {
		t.Fatal(err)
	}
	if notCompleted != 0 {
		t.Errorf("%d unit jobs not completed", notCompleted)
	}
	// The slow unit, live on its worker for longer than the detection window, was never taken
	// away: one try of its job, one call paid.
	if slowTries != 1 || fake.count(fake.slow) != 1 {
		t.Errorf("the slow live unit was tried %d times and paid %d times, want once", slowTries, fake.count(fake.slow))
	}
}
