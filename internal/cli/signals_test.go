package cli_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/store/pgtest"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// waitUnits polls the store until at least n units of run id are stored.
func waitUnits(t *testing.T, db, id string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for storedUnits(db, id) < n {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d units of %s stored after 60 s", n, id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exitCode waits for cmd (at most limit: a failure bound, not a measure) and returns its code.
func exitCode(t *testing.T, cmd *exec.Cmd, done <-chan error, limit time.Duration) int {
	t.Helper()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(limit):
		cmd.Process.Kill()
		t.Fatalf("%s did not exit %s after the signals", cmd.Args[1], limit)
		return -1
	}
}

// paidAndStored are the calls the fake answered and the attempts the store holds for run id.
func paidAndStored(t *testing.T, f *paying, db, id string) (paid, stored int) {
	t.Helper()
	_, paid, _, _ = f.counts()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.AllAttempts(context.Background(), id, func(verdict.Verdict) error { stored++; return nil }); err != nil {
		t.Fatal(err)
	}
	return paid, stored
}

// `run` on the first SIGINT starts no new unit and finishes those in flight: every call the
// provider answered is stored, the run ends interrupted (exit 1) and a resume finishes it. On a
// second signal it abandons what is in flight and exits at once, though each call takes a minute.
func TestRunSignals(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
	db := filepath.Join(dir, "v.db")
	suitePath := writeLLMSuite(t, dir, 200)
	env := append(os.Environ(), "OPENAI_API_KEY=test-key")
	start := func(base, id string) (*exec.Cmd, *bytes.Buffer, chan error) {
		cmd := exec.Command(bin, llmArgs(suitePath, db, base, id, "--concurrency", "4", "--no-score")...)
		cmd.Dir, cmd.Env = dir, env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		return cmd, &stderr, done
	}

	t.Run("one signal finishes the units in flight", func(t *testing.T) {
		fake := &paying{latency: 150 * time.Millisecond, paid: map[string]int{}}
		srv := llmtest.NewOpenAI(fake.handle)
		defer srv.Close()
		cmd, stderr, done := start(srv.BaseURL(), "soft")
		waitUnits(t, db, "soft", 8)
		cmd.Process.Signal(syscall.SIGINT)
		if code := exitCode(t, cmd, done, 60*time.Second); code != 1 {
			t.Errorf("exit %d, want 1 (interrupted)\n%s", code, stderr)
		}
		for _, want := range []string{"stopping: finishing the cases in flight", "run soft: interrupted; resume with"} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		paid, stored := paidAndStored(t, fake, db, "soft")
		if stored == 0 || stored >= 200 || paid != stored {
			t.Errorf("the provider answered %d calls and %d attempts are stored: each answered call must be stored, and the run stopped early", paid, stored)
		}
		resume := exec.Command(bin, "run", "--resume", "soft", "--db", db, "--no-score")
		resume.Dir, resume.Env = dir, env
		if out, err := resume.CombinedOutput(); err != nil {
			t.Fatalf("resume: %v\n%s", err, out)
		}
		if paid, stored := paidAndStored(t, fake, db, "soft"); paid != 200 || stored != 200 {
			t.Errorf("after the resume %d calls paid and %d attempts stored, want 200 and 200", paid, stored)
		}
	})

	t.Run("a second signal abandons them", func(t *testing.T) {
		fake := &paying{latency: time.Minute, paid: map[string]int{}}
		srv := llmtest.NewOpenAI(fake.handle)
		defer srv.Close()
		cmd, stderr, done := start(srv.BaseURL(), "hard")
		// The run is under way once its 200 units are planned and stored with their cases.
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(stderr.String(), "run hard:") {
			if time.Now().After(deadline) {
				t.Fatalf("the run did not start:\n%s", stderr)
			}
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGINT)
		for !strings.Contains(stderr.String(), "stopping") {
			if time.Now().After(deadline) {
				t.Fatalf("the first signal was not taken:\n%s", stderr)
			}
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGINT)
		if code := exitCode(t, cmd, done, 30*time.Second); code == 0 {
			t.Errorf("exit 0 after two signals, want a failure\n%s", stderr)
		}
		if _, stored := paidAndStored(t, fake, db, "hard"); stored != 0 {
			t.Errorf("%d attempts stored; the calls in flight were abandoned, so none may be", stored)
		}
	})
}

// A worker stopped with SIGTERM finishes and stores the units it holds, gives the rest back
// (none is left running under its name) and exits 0; another worker then ends the run.
func TestWorkerSIGTERMFinishesItsUnits(t *testing.T) {
	bin := buildBinary(t)
	dsn := pgtest.DSN(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
	const cases = 120
	suitePath := writeLLMSuite(t, dir, cases)
	fake := &paying{latency: 200 * time.Millisecond, paid: map[string]int{}}
	srv := llmtest.NewOpenAI(fake.handle)
	defer srv.Close()
	env := append(os.Environ(), "OPENAI_API_KEY=test-key")
	run := exec.Command(bin, llmArgs(suitePath, dsn, srv.BaseURL(), "w", "--queue", "river", "--detach", "--timeout", "30s")...)
	run.Dir, run.Env = dir, env
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("run --queue river --detach: %v\n%s", err, out)
	}
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	w := startWorker(t, bin, dir, env, dsn, 4)
	waitUnits(t, dsn, "w", 8)
	// The signal comes while the worker holds units: a group commit completes the jobs of units
	// that finished together, and the worker fetches the next ones a moment later, so there are
	// instants when it holds none.
	held, deadline := 0, time.Now().Add(30*time.Second)
	for held = running(t, st.DB(), w.id); held == 0; held = running(t, st.DB(), w.id) {
		if time.Now().After(deadline) {
			t.Fatalf("the worker held no job for 30 s after 8 units were stored:\n%s", w.stderr)
		}
		time.Sleep(5 * time.Millisecond) // a poll's pause, as waitUnits's: not hammering Postgres
	}
	w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the worker did not stop 60 s after SIGTERM:\n%s", w.stderr)
	}
	if code := w.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("worker exit %d, want 0:\n%s", code, w.stderr)
	}
	for _, want := range []string{"stopping: finishing the units in flight", "worker " + w.id + ": stopped"} {
		if !strings.Contains(w.stderr.String(), want) {
			t.Errorf("worker stderr lacks %q:\n%s", want, w.stderr)
		}
	}
	if n := running(t, st.DB(), w.id); n != 0 {
		t.Errorf("%d jobs still running under the stopped worker", n)
	}
	paid, stored := paidAndStored(t, fake, dsn, "w")
	if held == 0 || stored == 0 || stored >= cases || paid != stored {
		t.Errorf("held %d jobs at SIGTERM; provider answered %d calls, %d attempts stored: every answered call must be stored, and the run must not be done",
			held, paid, stored)
	}

	startWorker(t, bin, dir, env, dsn, 8)
	waitState(t, st, "w", 90*time.Second, store.StateDone)
	if paid, stored := paidAndStored(t, fake, dsn, "w"); paid != cases || stored != cases {
		t.Errorf("after a second worker %d calls paid and %d attempts stored, want %d and %d", paid, stored, cases, cases)
	}
}
