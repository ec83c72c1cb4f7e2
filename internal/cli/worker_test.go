package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/store/pgtest"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// paying answers every case right after latency and counts the answers paid per case.
type paying struct {
	latency time.Duration
	mu      sync.Mutex
	paid    map[string]int
}

func (f *paying) handle(r llmtest.Request) llmtest.Reply {
	m := caseRE.FindStringSubmatch(r.Prompt())
	if m == nil {
		return llmtest.Reply{Status: 400, ErrorMessage: "no case in the prompt"}
	}
	n := 0
	fmt.Sscanf(m[1], "c%d", &n)
	f.mu.Lock()
	f.paid[m[1]]++
	f.mu.Unlock()
	return llmtest.Reply{Text: fmt.Sprintf(`{"vulnerable": %v}`, n%2 == 0), InputTokens: 1000, OutputTokens: 100, Latency: f.latency}
}

func (f *paying) counts() (cases, calls, twice, most int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range f.paid {
		cases++
		calls += n
		if n > 1 {
			twice++
		}
		most = max(most, n)
	}
	return
}

// workerProc is a vulnbench worker process and its River client id.
type workerProc struct {
	cmd    *exec.Cmd
	id     string
	stderr *bytes.Buffer
	done   chan struct{}
}

// startWorker starts a worker and waits for the line that names it.
func startWorker(t *testing.T, bin, dir string, env []string, db string, concurrency int) *workerProc {
	t.Helper()
	cmd := exec.Command(bin, "worker", "--db", db, "--concurrency", fmt.Sprint(concurrency))
	cmd.Dir, cmd.Env = dir, env
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workerProc{cmd: cmd, stderr: &bytes.Buffer{}, done: make(chan struct{})}
	r := bufio.NewReader(pipe)
	line, err := r.ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("worker: %v", err)
	}
	// "worker ID: N at once from queue Q of DB"
	w.id = strings.TrimSuffix(strings.Fields(line)[1], ":")
	w.stderr.WriteString(line)
	go func() {
		io.Copy(w.stderr, r)
		cmd.Wait()
		close(w.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-w.done
	})
	return w
}

// running counts the River jobs a worker holds.
func running(t *testing.T, db *sql.DB, worker string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM river_job WHERE state = 'running' AND attempted_by[array_length(attempted_by, 1)] = $1`, worker).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func waitState(t *testing.T, st *store.Store, id string, limit time.Duration, states ...string) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		r, err := st.GetRun(context.Background(), id)
		if err == nil {
			for _, s := range states {
				if r.State == s {
					return s
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s is %v after %s, want one of %v", id, r, limit, states)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func units(st *store.Store, id string) int {
	n := 0
	st.Units(context.Background(), id, func(store.UnitState) { n++ })
	return n
}

// The acceptance test of issue 14: a run of 2,000 units on River and Postgres, three worker
// processes (the real binary), one of them SIGKILLed twice while it holds jobs and restarted.
// Every unit ends with exactly one attempt and one scored verdict, none is lost, and the fake
// provider was paid twice only for the calls in flight at the kills (their answers never
// reached the cache); River rescued the killed worker's jobs within the bound documented.
func TestRiverWorkersSurviveKills(t *testing.T) {
	bin := buildBinary(t)
	dsn := pgtest.DSN(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
	const cases, conc = 2000, 8
	suitePath := writeLLMSuite(t, dir, cases)
	fake := &paying{latency: 60 * time.Millisecond, paid: map[string]int{}}
	srv := llmtest.NewOpenAI(fake.handle)
	defer srv.Close()
	env := append(os.Environ(), "OPENAI_API_KEY=test-key")
	start := time.Now()
	run := exec.Command(bin, llmArgs(suitePath, dsn, srv.BaseURL(), "k", "--queue", "river", "--detach", "--timeout", "3s")...)
	run.Dir, run.Env = dir, env
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("run --queue river --detach: %v\n%s", err, out)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.CaseCount(ctx, "k"); err != nil || n != cases {
		t.Fatalf("%d cases stored with the run (%v), want %d", n, err, cases)
	}

	ws := []*workerProc{startWorker(t, bin, dir, env, dsn, conc), startWorker(t, bin, dir, env, dsn, conc), startWorker(t, bin, dir, env, dsn, conc)}
	var kills []time.Time
	for round, at := range []int{300, 900} {
		for units(st, "k") < at {
			if time.Since(start) > time.Minute {
				t.Fatalf("fewer than %d units stored after a minute", at)
			}
			time.Sleep(10 * time.Millisecond)
		}
		victim := ws[round]
		held := running(t, st.DB(), victim.id)
		victim.cmd.Process.Kill() // SIGKILL: no chance to give its jobs back
		<-victim.done
		kills = append(kills, time.Now())
		if held == 0 {
			t.Errorf("kill %d: worker %s held no job", round+1, victim.id)
		}
		t.Logf("kill %d at %d units stored: worker %s held %d jobs", round+1, at, victim.id, held)
		ws[round] = startWorker(t, bin, dir, env, dsn, conc)
	}
	waitState(t, st, "k", 150*time.Second, store.StateDone)
	t.Logf("run done %.1f s after the second kill, %.1f s in all", time.Since(kills[1]).Seconds(), time.Since(start).Seconds())

	seen := map[string]int{}
	if err := st.Verdicts(ctx, "k", func(v verdict.Verdict) error {
		seen[v.CaseID]++
		n := 0
		fmt.Sscanf(v.CaseID, "c%d", &n)
		if want := map[bool]string{true: "vul", false: "ben"}[n%2 == 0]; v.Status != verdict.OK || string(v.Label) != want {
			t.Errorf("%s: %s %s (attempt %d), want ok %s", v.CaseID, v.Status, v.Label, v.Attempt, want)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	attempts := 0
	if err := st.AllAttempts(ctx, "k", func(verdict.Verdict) error { attempts++; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(seen) != cases || attempts != cases {
		t.Errorf("%d units with a scored verdict and %d attempts stored, want %d and %d", len(seen), attempts, cases, cases)
	}
	var rescued int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM river_job WHERE kind = 'vulnbench_unit' AND attempt > 1`).Scan(&rescued); err != nil {
		t.Fatal(err)
	}
	if rescued == 0 {
		t.Error("no job was tried twice: the killed workers' jobs were not rescued")
	}
	answered, calls, twice, most := fake.counts()
	t.Logf("%d jobs rescued; provider paid %d calls for %d cases, %d cases twice", rescued, calls, answered, twice)
	if answered != cases || most > 2 || twice > 2*conc {
		t.Errorf("%d cases answered (want %d), %d paid twice, most %d times; only the %d calls in flight at the kills may be paid again",
			answered, cases, twice, most, 2*conc)
	}
}

// Budget test: four workers share a run's --max-cost through the store's ledger; the cap is
// reached mid-run and what all of them spent together is within one call's cost of it.
func TestRiverWorkersShareTheBudget(t *testing.T) {
	bin := buildBinary(t)
	dsn := pgtest.DSN(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
	const cases, call, limit = 600, 0.01, 2.005 // a case is one call of $0.01: 200 fit
	suitePath := writeLLMSuite(t, dir, cases)
	fake := &paying{latency: 20 * time.Millisecond, paid: map[string]int{}}
	srv := llmtest.NewOpenAI(fake.handle)
	defer srv.Close()
	env := append(os.Environ(), "OPENAI_API_KEY=test-key")
	for range 4 {
		startWorker(t, bin, dir, env, dsn, 8)
	}
	run := exec.Command(bin, llmArgs(suitePath, dsn, srv.BaseURL(), "b", "--queue", "river", "--max-cost", fmt.Sprint(limit), "--no-score")...)
	run.Dir, run.Env = dir, env
	out, err := run.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--max-cost $2.0050 reached") {
		t.Fatalf("run under a cap: %v, want the budget stop\n%s", err, out)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if r, _ := st.GetRun(ctx, "b"); r == nil || r.State != store.StateInterrupted {
		t.Errorf("run after the cap: %+v, want interrupted", r)
	}
	_, calls, _, _ := fake.counts()
	spent, err := spentOf(st, ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	paid := float64(calls) * call
	t.Logf("cap $%.4f: %d calls paid ($%.4f), attempts cost $%.4f, %d units stored", limit, calls, paid, spent, units(st, "b"))
	if paid > limit || paid < limit-call || spent > paid+1e-9 || spent < paid-1e-9 {
		t.Errorf("paid $%.4f, stored $%.4f: want both within $%.2f under the $%.4f cap", paid, spent, call, limit)
	}
	if n := units(st, "b"); n == 0 || n >= cases {
		t.Errorf("%d units stored: the cap must stop the run midway", n)
	}
}

// perSecond counts the calls the fake receives in each second of its own clock.
type perSecond struct {
	mu  sync.Mutex
	got map[int64]int
}

func (p *perSecond) handle(r llmtest.Request) llmtest.Reply {
	p.mu.Lock()
	p.got[time.Now().Unix()]++
	p.mu.Unlock()
	m := caseRE.FindStringSubmatch(r.Prompt())
	if m == nil {
		return llmtest.Reply{Status: 400, ErrorMessage: "no case in the prompt"}
	}
	n := 0
	fmt.Sscanf(m[1], "c%d", &n)
	return llmtest.Reply{Text: fmt.Sprintf(`{"vulnerable": %v}`, n%2 == 0), InputTokens: 10, OutputTokens: 5}
}

// Three workers share a run's --rpm through the store: together they send at most rpm/60 calls
// in a second, where each alone would send that many. A call taken in one second's window may
// reach the fake in a later second on a loaded machine, so the fake counts over spans of three
// seconds: at most three windows' calls and one window's more that came late (each worker alone
// would send three times the limit in a span).
func TestRiverWorkersShareTheRateLimit(t *testing.T) {
	bin := buildBinary(t)
	dsn := pgtest.DSN(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
	const cases, rpm, conc = 90, 600, 8 // 10 a second: 9 s for the run together, 3 s if each took 10
	suitePath := writeLLMSuite(t, dir, cases)
	fake := &perSecond{got: map[int64]int{}}
	srv := llmtest.NewOpenAI(fake.handle)
	defer srv.Close()
	env := append(os.Environ(), "OPENAI_API_KEY=test-key")
	for range 3 {
		startWorker(t, bin, dir, env, dsn, conc)
	}
	run := exec.Command(bin, llmArgs(suitePath, dsn, srv.BaseURL(), "rl", "--queue", "river", "--rpm", fmt.Sprint(rpm), "--no-score")...)
	run.Dir, run.Env = dir, env
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("run --rpm: %v\n%s", err, out)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	const span, limit = 3, rpm / 60
	total, most, first, last := 0, 0, int64(math.MaxInt64), int64(0)
	for sec, n := range fake.got {
		total += n
		first, last = min(first, sec), max(last, sec)
	}
	for sec := first; sec <= last; sec++ {
		n := 0
		for s := sec; s < sec+span; s++ {
			n += fake.got[s]
		}
		most = max(most, n)
	}
	t.Logf("per second: %v", fake.got)
	t.Logf("%d calls from second %d to %d, at most %d in %d seconds (limit %d a second)", total, first, last, most, span, limit)
	if total != cases || most > (span+1)*limit || last-first+1 < cases/limit {
		t.Errorf("%d calls over %d seconds, at most %d in %d seconds: want %d calls over at least %d seconds, at most %d in %d seconds",
			total, last-first+1, most, span, cases, cases/limit, (span+1)*limit, span)
	}
}
