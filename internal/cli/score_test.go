package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/store"
)

// scoreJSON is what these tests read of score --format json with several runs.
type scoreJSON struct {
	Scorer    int    `json:"scorer"`
	Vulnbench string `json:"vulnbench"`
	Runs      []struct {
		Run     string `json:"run"`
		Subject string `json:"subject"`
		Model   string `json:"model"`
		N       int    `json:"n"`
		VDS     struct {
			Source string `json:"score_source"`
		} `json:"vds"`
	} `json:"runs"`
}

// runID is a run as a score table names it, and where its VD-S scores came from.
type runID struct{ Run, Subject, Model, Source string }

// TestScoreRunsOfOneSubject: two runs of one subject (two models under llm, two seeds of random)
// are scored side by side, told apart by their run ids, with subject and model alongside. Before
// columns were named by run id this failed with "two columns are named".
func TestScoreRunsOfOneSubject(t *testing.T) {
	dir := t.TempDir()
	suitePath := writeLLMSuite(t, dir, 6)
	db := filepath.Join(dir, "v.db")
	srv := llmtest.NewOpenAI(llmtest.Fixed(`{"vulnerable": true, "cwe": "CWE-787", "confidence": 0.7, "reason": "strcpy"}`))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	for _, r := range []struct{ id, model string }{{"gpt-a", "openai:model-a"}, {"gpt-b", "openai:model-b"}} {
		args := []string{"run", "--suite", suitePath, "--subject", "llm", "--model", r.model, "--base-url", srv.BaseURL(),
			"--db", db, "--run-id", r.id, "--no-score"}
		if code, _, errOut := run(t, dir, args...); code != 0 {
			t.Fatalf("run %s: exit %d\n%s", r.id, code, errOut)
		}
	}
	for _, r := range []struct{ id, seed string }{{"rnd-1", "1"}, {"rnd-2", "2"}} {
		args := []string{"run", "--suite", suitePath, "--subject", "random", "--seed", r.seed, "--db", db, "--run-id", r.id, "--no-score"}
		if code, _, errOut := run(t, dir, args...); code != 0 {
			t.Fatalf("run %s: exit %d\n%s", r.id, code, errOut)
		}
	}

	tests := []struct {
		name     string
		runs     []string
		want     []runID
		wantText []string // lines of the text table
	}{
		{
			name:     "two models under llm",
			runs:     []string{"gpt-a", "gpt-b"},
			want:     []runID{{"gpt-a", "llm", "openai:model-a", "stated"}, {"gpt-b", "llm", "openai:model-b", "stated"}},
			wantText: []string{`metric +gpt-a +gpt-b`, `subject +llm +llm`, `model +openai:model-a +openai:model-b`},
		},
		{
			name:     "two seeds of random",
			runs:     []string{"rnd-1", "rnd-2"},
			want:     []runID{{"rnd-1", "random", "", "tool"}, {"rnd-2", "random", "", "tool"}},
			wantText: []string{`metric +rnd-1 +rnd-2`, `subject +random +random`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"score", "--suite", suitePath, "--db", db, "--run", tt.runs[0], "--run", tt.runs[1]}
			code, out, errOut := run(t, dir, append(args, "--format", "json")...)
			if code != 0 {
				t.Fatalf("score --format json: exit %d\n%s", code, errOut)
			}
			var got scoreJSON
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var ids []runID
			for _, r := range got.Runs {
				ids = append(ids, runID{r.Run, r.Subject, r.Model, r.VDS.Source})
				if r.N != 6 {
					t.Errorf("run %s: n %d, want 6", r.Run, r.N)
				}
			}
			if diff := cmp.Diff(tt.want, ids); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			if got.Scorer != score.Version || got.Vulnbench == "" {
				t.Errorf("scorer %d, vulnbench %q: want %d and a version", got.Scorer, got.Vulnbench, score.Version)
			}

			code, out, errOut = run(t, dir, args...)
			if code != 0 {
				t.Fatalf("score: exit %d\n%s", code, errOut)
			}
			for _, re := range tt.wantText {
				if !regexp.MustCompile(`(?m)^` + re + `$`).MatchString(out) {
					t.Errorf("text table lacks a line %q:\n%s", re, out)
				}
			}
		})
	}
}

// TestScoreStoredRunWithoutSuiteFlag: a stored run knows its suite; --suite may be left out,
// and a --suite that is not the file the run judged is refused.
func TestScoreStoredRunWithoutSuiteFlag(t *testing.T) {
	dir := t.TempDir()
	suitePath := writeLLMSuite(t, dir, 4)
	if code, _, errOut := run(t, dir, "run", "--suite", suitePath, "--subject", "constant:vul", "--db", "v.db", "--run-id", "r", "--no-score"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	code, out, errOut := run(t, dir, "score", "--run", "r", "--db", "v.db", "--format", "csv")
	if code != 0 {
		t.Fatalf("score without --suite: exit %d\n%s", code, errOut)
	}
	if !regexp.MustCompile(`(?m)^r,constant:vul,,binary:recall,1$`).MatchString(out) {
		t.Errorf("no recall row for run r:\n%s", out)
	}
	other := filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(other, []byte(goodSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = run(t, dir, "score", "--run", "r", "--db", "v.db", "--suite", other)
	if code != 1 || !regexp.MustCompile(`other.jsonl \(sha256 [0-9a-f]{12}\) is not the suite run r judged`).MatchString(errOut) {
		t.Errorf("score with another suite: exit %d, stderr:\n%s", code, errOut)
	}
}

// TestScoreFromTheStoreAlone: a run scored on a machine that has only the database, its suite
// file gone: the ground truth is the cases stored with the run (report uses the store's Cases).
func TestScoreFromTheStoreAlone(t *testing.T) {
	var _ report.CaseStore = (*store.Store)(nil) // report finds the cases through this
	dir := t.TempDir()
	suitePath := writeLLMSuite(t, dir, 6)
	db := filepath.Join(dir, "v.db")
	if code, _, errOut := run(t, dir, "run", "--suite", suitePath, "--subject", "constant:vul", "--db", db, "--run-id", "r", "--no-score"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	if err := os.Remove(suitePath); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	code, out, errOut := run(t, other, "score", "--run", "r", "--db", db, "--format", "csv")
	if code != 0 {
		t.Fatalf("score from the store alone: exit %d\n%s", code, errOut)
	}
	for _, re := range []string{`^r,constant:vul,,n,6$`, `^r,constant:vul,,binary:recall,1$`, `^r,constant:vul,,pairwise:pairs,3$`} {
		if !regexp.MustCompile(`(?m)` + re).MatchString(out) {
			t.Errorf("no row %s:\n%s", re, out)
		}
	}
}
