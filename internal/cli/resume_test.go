package cli_test

import (
	"bytes"
	"context"
	"fmt"
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

// filtering answers every case once, after 80 ms, except that the first answer to every tenth
// case is withheld by the content filter: billed, and an error verdict of that case. 200 cases at
// concurrency 4 take about 4 s: long enough to be killed midway, even on a loaded machine where
// opening the store to watch it is slow.
type filtering struct {
	mu       sync.Mutex
	answers  map[string]int // answers paid per case
	filtered map[string]bool
	// After hold requests, the next ones wait for release to be closed: the run cannot finish
	// before the test kills it, however the machine schedules the two processes.
	hold     int
	requests int
	release  chan struct{}
}

func (f *filtering) handle(r llmtest.Request) llmtest.Reply {
	m := caseRE.FindStringSubmatch(r.Prompt())
	if m == nil {
		return llmtest.Reply{Status: 400, ErrorMessage: "no case in the prompt"}
	}
	id := m[1]
	n := 0
	fmt.Sscanf(id, "c%d", &n)
	f.mu.Lock()
	f.requests++
	if f.release != nil && f.requests > f.hold {
		f.mu.Unlock()
		<-f.release
		f.mu.Lock()
	}
	defer f.mu.Unlock()
	if n%10 == 7 && !f.filtered[id] {
		f.filtered[id] = true
		return llmtest.Reply{Text: "", FinishReason: "content_filter", InputTokens: 1000, OutputTokens: 100, Latency: 80 * time.Millisecond}
	}
	f.answers[id]++
	return llmtest.Reply{Text: fmt.Sprintf(`{"vulnerable": %v}`, n%2 == 0), InputTokens: 1000, OutputTokens: 100, Latency: 80 * time.Millisecond}
}

// The SIGKILL-and-resume acceptance test, on SQLite and on Postgres: a model run is killed while
// it holds units in flight, resumed under a --max-cost that what was already spent (error
// attempts included) exhausts, then resumed to the end and once more to retry its errors. Every
// unit ends with exactly one scored verdict, none is lost, the error attempts stay beside their
// retries with their cost, and no case was paid for twice but those whose call was in flight at
// the kill (the provider answered a process that was gone).
func TestKillAndResumeKeepsEveryAttempt(t *testing.T) {
	bin := buildBinary(t)
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "v.db")
			if backend == "postgres" {
				db = pgtest.DSN(t)
			}
			os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
			const cases = 200
			suitePath := writeLLMSuite(t, dir, cases)
			fake := &filtering{answers: map[string]int{}, filtered: map[string]bool{}, hold: 80, release: make(chan struct{})}
			srv := llmtest.NewOpenAI(fake.handle)
			defer srv.Close()
			released := false
			releaseHeld := func() {
				if !released {
					released = true
					close(fake.release)
				}
			}
			defer releaseHeld()
			env := append(os.Environ(), "OPENAI_API_KEY=test-key")
			vb := func(args ...string) *exec.Cmd {
				cmd := exec.Command(bin, args...)
				cmd.Dir, cmd.Env = dir, env
				return cmd
			}
			cmd := vb(llmArgs(suitePath, db, srv.BaseURL(), "k", "--concurrency", "4", "--max-cost", "100", "--no-score")...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			before := killAfter(t, cmd, db, "k", 60)
			releaseHeld() // the held calls now answer a process that is gone
			if before >= cases {
				t.Fatalf("the run finished (%d units) before it was killed", before)
			}

			ctx := context.Background()
			st, err := store.Open(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			spent, err := spentOf(st, ctx, "k")
			if err != nil || spent <= 0 {
				t.Fatalf("spent after the kill: %v, %v", spent, err)
			}

			// A cap that what is stored already reaches: nothing new may start.
			out, err := vb("run", "--resume", "k", "--db", db, "--max-cost", fmt.Sprint(spent), "--no-score").CombinedOutput()
			if err == nil || !strings.Contains(string(out), "--max-cost") || !strings.Contains(string(out), "reached") {
				t.Fatalf("resume under a spent cap: %v\n%s", err, out)
			}
			if n := storedUnits(db, "k"); n != before {
				t.Errorf("the capped resume stored %d units, want none (%d before)", n-before, before)
			}

			// To the end, then the errors again.
			if out, err := vb("run", "--resume", "k", "--db", db, "--max-cost", "100", "--no-score").CombinedOutput(); err != nil {
				t.Fatalf("resume: %v\n%s", err, out)
			}
			if out, err := vb("run", "--resume", "k", "--db", db, "--retry-errors").CombinedOutput(); err != nil {
				t.Fatalf("resume --retry-errors: %v\n%s", err, out)
			}

			seen := map[string]int{}
			err = st.Verdicts(ctx, "k", func(v verdict.Verdict) error {
				seen[v.CaseID]++
				n := 0
				fmt.Sscanf(v.CaseID, "c%d", &n)
				if want := map[bool]string{true: "vul", false: "ben"}[n%2 == 0]; v.Status != verdict.OK || string(v.Label) != want {
					t.Errorf("%s: %s %s (attempt %d), want ok %s", v.CaseID, v.Status, v.Label, v.Attempt, want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(seen) != cases {
				t.Errorf("%d units have a scored verdict, want %d", len(seen), cases)
			}
			for id, n := range seen {
				if n != 1 {
					t.Errorf("%s has %d scored verdicts", id, n)
				}
			}
			var total, errCost float64
			attempts := 0
			err = st.AllAttempts(ctx, "k", func(v verdict.Verdict) error {
				attempts++
				if v.Usage.CostUSD != nil {
					total += *v.Usage.CostUSD
					if v.Status == verdict.Error {
						errCost += *v.Usage.CostUSD
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			// A filtered answer in flight at the kill was never stored: that unit has one attempt.
			// At most the 4 calls in flight can have been lost so.
			retried := 0
			for i := 7; i < cases; i += 10 {
				id := fmt.Sprintf("c%04d", i)
				as, err := st.Attempts(ctx, "k", id, 0)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case len(as) == 2 && as[0].Status == verdict.Error && as[0].Usage.CostUSD != nil && *as[0].Usage.CostUSD > 0 &&
					strings.Contains(as[0].Reason, "content filter") && as[1].Status == verdict.OK && as[1].Attempt == 1:
					retried++
				case len(as) == 1 && as[0].Status == verdict.OK:
				default:
					t.Errorf("%s: attempts %+v; want the filtered attempt 0 with its cost, then an ok attempt 1", id, as)
				}
			}
			if retried < cases/10-4 || attempts != cases+retried {
				t.Errorf("%d attempts stored, %d units retried after an error; want %d attempts and at least %d retried",
					attempts, retried, cases+retried, cases/10-4)
			}
			if final, _ := spentOf(st, ctx, "k"); final < total-1e-9 || final > total+1e-9 || errCost <= 0 {
				t.Errorf("spent %v, attempts add up to %v (errors %v): every attempt's cost must count", final, total, errCost)
			}
			fake.mu.Lock()
			defer fake.mu.Unlock()
			// Only a call in flight at the kill can have been paid again: it never came back.
			twice := 0
			for id, n := range fake.answers {
				if n > 2 || (n == 2 && fake.filtered[id]) {
					t.Errorf("%s was answered (and paid) %d times", id, n)
				}
				if n == 2 {
					twice++
				}
			}
			if twice > 4 {
				t.Errorf("%d cases paid twice; only the 4 calls in flight at the kill may be", twice)
			}
			if len(fake.answers) != cases {
				t.Errorf("%d cases answered, want %d", len(fake.answers), cases)
			}
		})
	}
}
