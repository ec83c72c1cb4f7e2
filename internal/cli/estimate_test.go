package cli_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/tokens"
)

// TestEstimateMatchesTheRun: run --estimate on the bundled suite calls no model (and needs no
// API key), and the prompt tokens it prints are within 2 % of what the fake provider counts,
// with the same tokenizer, when the same run is then made; per prompting strategy.
func TestEstimateMatchesTheRun(t *testing.T) {
	counter := tokens.New()
	count := func(model, text string) int { n, _ := counter.Count("openai:"+model, text); return n }
	var counted atomic.Int64
	srv := llmtest.NewOpenAI(func(r llmtest.Request) llmtest.Reply {
		rep := llmtest.CountTokens(count, llmtest.Fixed(`{"vulnerable": true, "cwe": "CWE-787", "confidence": 0.9, "reason": "unchecked copy"}`))(r)
		counted.Add(int64(rep.InputTokens))
		return rep
	})
	defer srv.Close()
	suitePath, err := filepath.Abs("../../suites/demo/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, strategy := range []string{"vanilla", "cot+fs"} {
		t.Run(strategy, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"run", "--suite", suitePath, "--subject", "llm", "--model", "openai:gpt-4o-mini", "--prompt", strategy,
				"--base-url", srv.BaseURL(), "--repeats", "2", "--db", filepath.Join(dir, "v.db")}
			t.Setenv("OPENAI_API_KEY", "")
			before := srv.Requests()
			code, out, errOut := run(t, dir, append(args, "--estimate", "--format", "json")...)
			if code != 0 {
				t.Fatalf("estimate: exit %d\n%s", code, errOut)
			}
			if n := srv.Requests() - before; n != 0 {
				t.Errorf("the estimate made %d model calls, want 0", n)
			}
			if _, err := os.Stat(filepath.Join(dir, "v.db")); !os.IsNotExist(err) {
				t.Errorf("the estimate touched the store (%v): it must open none", err)
			}
			var rows []struct {
				Units, Calls int
				InputTokens  int64    `json:"input_tokens"`
				Exact        bool     `json:"exact_tokenizer"`
				Cost         *float64 `json:"cost_usd"`
				Batch        *float64 `json:"batch_cost_usd"`
			}
			if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
				t.Fatalf("estimate output %q: %v", out, err)
			}
			est := rows[0]
			if est.Units != 132 || est.Calls != 132 || !est.Exact || est.Cost == nil || est.Batch == nil || *est.Batch != *est.Cost/2 {
				t.Errorf("estimate %+v: want 132 units and calls, gpt-4o-mini's own tokenizer, a cost and the batch cost at half", est)
			}

			t.Setenv("OPENAI_API_KEY", "test-key")
			counted.Store(0)
			before = srv.Requests()
			if code, _, errOut := run(t, dir, append(args, "--no-score")...); code != 0 {
				t.Fatalf("run: exit %d\n%s", code, errOut)
			}
			got := counted.Load()
			diff := math.Abs(float64(est.InputTokens-got)) / float64(got)
			t.Logf("%s: estimate %d prompt tokens, the fake counted %d over %d calls: %.3f %% apart", strategy, est.InputTokens, got, srv.Requests()-before, 100*diff)
			if diff > 0.02 || got == 0 {
				t.Errorf("estimate %d prompt tokens, the run sent %d: %.2f %% apart, want within 2 %%", est.InputTokens, got, 100*diff)
			}
		})
	}
}
