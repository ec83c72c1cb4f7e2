package cli_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vulnbench/vulnbench/internal/gittest"
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

// TestEstimateDepAug: depaug's estimate renders the prompts the run sends, with the callers and
// callees the run retrieves from each case's snapshot (it was an agent's step model, 12.6 % off),
// and says so; an agent's estimate is headed as a model with its parameters.
func TestEstimateDepAug(t *testing.T) {
	counter := tokens.New()
	count := func(model, text string) int { n, _ := counter.Count("openai:"+model, text); return n }
	var counted atomic.Int64
	srv := llmtest.NewOpenAI(func(r llmtest.Request) llmtest.Reply {
		rep := llmtest.CountTokens(count, llmtest.Fixed(`{"vulnerable": true, "cwe": "CWE-787", "confidence": 0.9, "reason": "unchecked copy"}`))(r)
		counted.Add(int64(rep.InputTokens))
		return rep
	})
	defer srv.Close()
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("#include <string.h>\n\nstatic int checksum(const char *p, int n) { int s = 0; while (n-- > 0) s += *p++; return s; }\n\n")
	src.WriteString("int parse(char *s) {\n  char b[8];\n  strcpy(b, s);\n  return checksum(b, 8);\n}\n\n")
	for i := range 7 { // callers, more than k = 5, ranked by their likeness to parse
		fmt.Fprintf(&src, "int handler%d(char *req) {\n  int total = %d;\n  total += parse(req);\n  return total;\n}\n\n", i, i)
	}
	commit := gittest.Repo(t, filepath.Join(dir, "repos", "acme+app"), map[string]string{"src/parse.c": src.String()})
	lines := ""
	for i, fn := range []string{"parse", "handler3"} {
		line := 5
		if fn != "parse" {
			line = 12 + 6*3
		}
		lines += fmt.Sprintf(`{"id":"j%d","kind":"jit","label":"vul","language":"c","repo":{"url":"https://github.com/acme/app","commit":%q},"target":{"file":"src/parse.c","function":%q,"line":%d}}`+"\n", i, commit, fn, line)
	}
	os.WriteFile(filepath.Join(dir, "jit.jsonl"), []byte(lines), 0o644)
	args := []string{"run", "--suite", "jit.jsonl", "--subject", "depaug", "--model", "openai:gpt-4o-mini", "--base-url", srv.BaseURL(),
		"--repos", "repos", "--snapshot-cache", "snaps", "--db", "v.db"}
	code, out, errOut := run(t, dir, append(args, "--estimate")...)
	if code != 0 {
		t.Fatalf("estimate: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(out, "tokens counted on the prompts the run sends") || !strings.Contains(out, "with the context the run retrieves") || strings.Contains(out, "agent") {
		t.Errorf("depaug's estimate does not say it renders the run's prompts with its context:\n%s", out)
	}
	code, out, errOut = run(t, dir, append(args, "--estimate", "--format", "json")...)
	var rows []struct {
		Calls       int
		InputTokens int64 `json:"input_tokens"`
		Modelled    bool
	}
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil || len(rows) != 1 {
		t.Fatalf("estimate: exit %d, output %q (%v)\n%s", code, out, err, errOut)
	}
	t.Setenv("OPENAI_API_KEY", "test-key")
	if code, _, errOut := run(t, dir, append(args, "--no-score")...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	got := counted.Load()
	diff := math.Abs(float64(rows[0].InputTokens-got)) / float64(got)
	t.Logf("depaug: estimate %d prompt tokens, the fake counted %d: %.3f %% apart", rows[0].InputTokens, got, 100*diff)
	if rows[0].Calls != 2 || rows[0].Modelled || diff > 0.02 || got == 0 {
		t.Errorf("estimate %+v, the run sent %d prompt tokens (%.2f %% apart): want 2 calls, counted, within 2 %%", rows[0], got, 100*diff)
	}

	code, out, errOut = run(t, dir, "run", "--suite", "jit.jsonl", "--subject", "react", "--model", "openai:gpt-4o-mini", "--repos", "repos", "--estimate")
	if code != 0 || !strings.Contains(out, "tokens from a model of an agent's steps, with its parameters") || !strings.Contains(out, "steps assumed (half the step cap of") ||
		strings.Contains(out, "counted with the model's own tokenizer") {
		t.Errorf("react's estimate (exit %d) is not headed as a model with its parameters:\n%s%s", code, out, errOut)
	}
}
