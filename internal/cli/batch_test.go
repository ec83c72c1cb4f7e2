package cli_test

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/store"
)

// TestBatchRunKilledTwice: a 2,000-unit llm run with --batch against the fake's Batch API,
// killed with SIGKILL twice while its batch is in flight and resumed each time: the units are
// submitted once (the fake counts per custom_id), answered once, stored as exactly one attempt
// each, at batch prices (half the list price), and no online call is made.
func TestBatchRunKilledTwice(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte("batch: 0.5\n"+prices), 0o644) // $0.01 a unit listed, $0.005 at batch prices
	suitePath := writeLLMSuite(t, dir, 2000)
	var answered atomic.Int64
	srv := llmtest.NewOpenAI(func(r llmtest.Request) llmtest.Reply {
		answered.Add(1)
		return llmtest.Reply{Text: `{"vulnerable": true, "cwe": "CWE-787", "confidence": 0.8, "reason": "unchecked copy"}`, InputTokens: 1000, OutputTokens: 100}
	}, llmtest.WithBatches(llmtest.BatchOptions{Polls: 150}), llmtest.WithoutLog())
	defer srv.Close()
	db := filepath.Join(dir, "v.db")
	env := append(os.Environ(), "OPENAI_API_KEY=test-key")
	start := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	killAtPolls := func(cmd *exec.Cmd, polls int) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for srv.BatchPolls() < polls {
			if time.Now().After(deadline) {
				t.Fatalf("the batch was polled %d times in 2 minutes, want %d", srv.BatchPolls(), polls)
			}
			time.Sleep(5 * time.Millisecond)
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
	killAtPolls(start(llmArgs(suitePath, db, srv.BaseURL(), "b1", "--batch", "--batch-poll", "10ms", "--no-score")...), 10)
	killAtPolls(start("run", "--resume", "b1", "--db", db, "--batch-poll", "10ms", "--no-score"), 60)
	if n := answered.Load(); n != 0 {
		t.Fatalf("the batch answered %d requests before its end", n)
	}
	last := start("run", "--resume", "b1", "--db", db, "--batch-poll", "10ms", "--no-score")
	if err := last.Wait(); err != nil {
		t.Fatalf("the last resume: %v", err)
	}

	subs, twice := submissions(srv)
	if len(subs) != 2000 || twice != 0 || srv.BatchesCreated() != 1 || answered.Load() != 2000 {
		t.Errorf("%d requests submitted (%d more than once) in %d batches, %d answered: want 2000 once each in 1 batch", len(subs), twice, srv.BatchesCreated(), answered.Load())
	}
	st, spent := oneScoredAttemptEach(t, db, "b1", 2000, 10)
	batches, err := st.Batches(context.Background(), "b1")
	if err != nil || len(batches) != 1 || !batches[0].Collected || batches[0].State != "completed" {
		t.Errorf("stored batches %+v, %v: want one, completed and collected", batches, err)
	}
	t.Logf("2,000 units, killed at %d and %d polls: %d submissions, %d batch, $%.4f", 10, 60, len(subs), srv.BatchesCreated(), spent)
}

// TestBatchRunKilledInCreate: the process SIGKILLed in the window where the provider has
// created the batch and vulnbench has not stored its id (the fake holds the create's answer
// until the kill), then resumed: the resume finds that batch on the provider (OpenAI: by the
// run and chunk nonce in its metadata; Anthropic: by its time and request count, confirmed by
// its custom ids) and polls it instead of submitting again: each custom id submitted once, in
// one batch, every unit one scored attempt, at batch prices, no intent left.
func TestBatchRunKilledInCreate(t *testing.T) {
	bin := buildBinary(t)
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			dir := t.TempDir()
			model := provider + ":fake-model"
			os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte("batch: 0.5\n"+model+": {input: 5, output: 50}\n"), 0o644)
			suitePath := writeLLMSuite(t, dir, 500)
			created, release := make(chan string, 1), make(chan struct{})
			var held atomic.Bool
			opts := []llmtest.Option{llmtest.WithBatches(llmtest.BatchOptions{Polls: 3, Created: func(id string) {
				if held.CompareAndSwap(false, true) {
					created <- id
					<-release
				}
			}}), llmtest.WithoutLog()}
			h := func(r llmtest.Request) llmtest.Reply {
				return llmtest.Reply{Text: `{"vulnerable": true, "cwe": "CWE-787", "confidence": 0.8, "reason": "unchecked copy"}`, InputTokens: 1000, OutputTokens: 100}
			}
			srv := llmtest.NewOpenAI(h, opts...)
			if provider == "anthropic" {
				srv = llmtest.NewAnthropic(h, opts...)
			}
			defer srv.Close()
			defer close(release)
			db := filepath.Join(dir, "v.db")
			env := append(os.Environ(), "OPENAI_API_KEY=test-key", "ANTHROPIC_API_KEY=test-key")
			start := func(args ...string) *exec.Cmd {
				cmd := exec.Command(bin, args...)
				cmd.Dir, cmd.Env = dir, env
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				return cmd
			}
			args := llmArgs(suitePath, db, srv.BaseURL(), "k1", "--batch", "--batch-poll", "10ms", "--no-score")
			for i, a := range args {
				if a == "openai:fake-model" {
					args[i] = model
				}
			}
			first := start(args...)
			select {
			case <-created:
			case <-time.After(2 * time.Minute):
				first.Process.Kill()
				t.Fatal("no batch created in 2 minutes")
			}
			first.Process.Kill()
			first.Wait()
			if n := srv.BatchPolls(); n != 0 {
				t.Fatalf("the killed process polled %d times: it heard of its batch", n)
			}
			last := start("run", "--resume", "k1", "--db", db, "--batch-poll", "10ms", "--no-score")
			if err := last.Wait(); err != nil {
				t.Fatalf("the resume: %v", err)
			}

			subs, twice := submissions(srv)
			if len(subs) != 500 || twice != 0 || srv.BatchesCreated() != 1 {
				t.Errorf("%d requests submitted (%d more than once) in %d batches: want 500 once each in 1 batch", len(subs), twice, srv.BatchesCreated())
			}
			st, _ := oneScoredAttemptEach(t, db, "k1", 500, 2.5)
			batches, err := st.Batches(context.Background(), "k1")
			if err != nil || len(batches) != 1 || !batches[0].Collected {
				t.Errorf("stored batches %+v, %v: want one, collected", batches, err)
			}
			if left, err := st.BatchIntents(context.Background(), "k1"); err != nil || len(left) != 0 {
				t.Errorf("%d intents left, %v: want none", len(left), err)
			}
		})
	}
}

// submissions is what the fake's batches were sent: each custom id's count, and how many ids
// were sent more than once.
func submissions(srv *llmtest.Server) (subs map[string]int, twice int) {
	subs = srv.BatchSubmissions()
	for _, n := range subs {
		if n != 1 {
			twice++
		}
	}
	return subs, twice
}

// oneScoredAttemptEach checks that run's units are want, each one scored attempt, and that it
// spent cost (USD, batch prices); it returns the store, open for more checks, and the spend.
func oneScoredAttemptEach(t *testing.T, db, run string, want int, cost float64) (*store.Store, float64) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	units, bad := 0, 0
	if err := st.Units(context.Background(), run, func(u store.UnitState) {
		units++
		if u.Attempts != 1 || !u.Scored {
			bad++
		}
	}); err != nil {
		t.Fatal(err)
	}
	spent, err := spentOf(st, context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	if units != want || bad != 0 || math.Abs(spent-cost) > 1e-6 {
		t.Errorf("%d units stored (%d not exactly one scored attempt), $%.6f spent: want %d of one attempt each, $%.4f at batch prices", units, bad, spent, want, cost)
	}
	return st, spent
}
