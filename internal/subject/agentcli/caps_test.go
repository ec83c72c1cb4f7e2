package agentcli_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/harness"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/vexagent"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// capModels is the model each subject of the caps test runs on.
var capModels = map[string]string{
	"claude-code": "anthropic:claude-sonnet-4-5", "codex": "openai:gpt-5.4-mini", "gemini-cli": "gemini:gemini-2.5-flash",
	"vex-agent": "openai:gpt-4.1",
}

// TestCapsOnePolicy: one scripted model that never answers (every turn asks for the shell) for
// vex-agent and every agent CLI, stopped by --max-steps: each unit is failed as stopped by the
// cap, and counts the same in the score (N the cases, completion rate 0, every case's status
// wrong), whatever the subject.
func TestCapsOnePolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("the real CLIs take tens of seconds each")
	}
	sb, err := sandbox.New(context.Background(), sandbox.Options{})
	if err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	dir := t.TempDir()
	repos := filepath.Join(dir, "repos")
	commit := gittest.Repo(t, filepath.Join(repos, "acme+app"), map[string]string{"go.mod": "module example.com/app\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"})
	truth := []string{"vulnerable", "code_not_reachable"}
	var lines []string
	var cases []score.Case
	for i, cat := range truth {
		label := map[bool]string{true: "vul", false: "ben"}[cat == "vulnerable"]
		id := fmt.Sprintf("c%d", i)
		lines = append(lines, fmt.Sprintf(`{"id":%q,"kind":"vex","label":%q,"cve":"CVE-2024-01%02d","language":"go","repo":{"url":"https://github.com/acme/app","commit":%q},"vex":{"category":%q,"ecosystem":"Go"}}`,
			id, label, i, commit, cat))
		cases = append(cases, score.Case{ID: id, Vul: cat == "vulnerable", VEX: score.VEXCategory(cat)})
	}
	suitePath := filepath.Join(dir, "vex.jsonl")
	write(t, suitePath, strings.Join(lines, "\n")+"\n")
	st, err := store.Open(context.Background(), filepath.Join(dir, "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"} {
		t.Setenv(k, "k")
	}
	const steps = 3
	for _, name := range append(harness.Names(), "vex-agent") {
		t.Run(name, func(t *testing.T) {
			if name != "vex-agent" {
				if _, err := harness.CLIs()[name].Locate(""); errors.Is(err, harness.ErrNotInstalled) {
					t.Skipf("%v", err)
				}
			}
			model := capModels[name]
			if model == "" {
				model = "openai:gpt-4.1"
			}
			// A new command each turn: Qwen Code halts a run that repeats a tool call itself.
			never := func(r llmtest.Request) llmtest.Reply {
				return llmtest.Reply{Text: "Looking further.", ToolCalls: []llmtest.ToolCall{shellCall(name, fmt.Sprintf("ls -d /%d", r.Turn()))}, InputTokens: 1000, OutputTokens: 20}
			}
			var srv *llmtest.Server
			switch {
			case strings.HasPrefix(model, "anthropic:"):
				srv = llmtest.NewAnthropic(never)
			case strings.HasPrefix(model, "gemini:"):
				srv = llmtest.NewGemini(never)
			default:
				srv = llmtest.NewOpenAI(never)
			}
			defer srv.Close()
			fac := vexagent.Kind().Factory()
			if name != "vex-agent" {
				fac = kindOf(t, name)
			}
			cfg, err := fac.Configure("", subject.TextValues{"model": model, "base-url": srv.BaseURL(), "prompt": "vanilla", "max-retries": "0", "tool-protocol": "native"})
			if err != nil {
				t.Fatal(err)
			}
			if err := execute(context.Background(), st, runner.Spec{Version: "test", RunID: "caps-" + name, Suite: suitePath,
				Subject: runner.Subject{Factory: fac, Spec: name, Config: cfg}, Repeats: 1, Timeout: 5 * time.Minute, Limits: subject.Limits{Steps: steps},
				Host: runner.Host{Deps: subject.Deps{Cache: st, Getenv: os.Getenv, Sandbox: sb}, Concurrency: 2, Repos: repos,
					SnapshotCache: filepath.Join(dir, "snapshots")}}); err != nil {
				t.Fatal(err)
			}
			vs := map[string]verdict.Verdict{}
			if err := st.Verdicts(context.Background(), "caps-"+name, func(v verdict.Verdict) error {
				vs[v.CaseID] = v
				if !verdict.IsStopped(v) || !strings.Contains(v.Reason, fmt.Sprintf("--max-steps %d", steps)) && !strings.Contains(v.Reason, "step cap") {
					t.Errorf("%s: %s %q: want failed, stopped by --max-steps", v.CaseID, v.Status, v.Reason)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			res := score.Compute(cases, score.Answers(cases, vs), score.Options{})
			if x := res.VEX; x == nil || x.N != len(cases) || x.Failed != len(cases) || x.CompletionRate != 0 || x.StatusAccuracy != 0 || x.FN != 1 {
				t.Errorf("score %+v: want both cases counted, failed, completion rate 0", x)
			}
			if res.Status.Stopped != len(cases) || res.Status.Failed != len(cases) {
				t.Errorf("status %+v: want every case failed and shown apart as stopped", res.Status)
			}
		})
	}
}
