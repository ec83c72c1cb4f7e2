package agentcli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// TestCmd: the cmd subject runs any program in the sandbox with the prompt in {prompt_file}
// and the gateway in OPENAI_BASE_URL; it calls the model through it (metered and stored) and
// prints its answer; an answer that does not parse is failed with what it printed kept.
func TestCmd(t *testing.T) {
	sb, err := sandbox.New(context.Background(), sandbox.Options{})
	if err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	w := newWorld(t)
	agent := filepath.Join(w.dir, "agent.sh")
	// The agent asks the model once (the prompt's first line as the message), then prints its
	// answer: the model's for the vex case, nonsense for the jit case.
	write(t, agent, `#!/bin/sh
grep -q "Pick the FIRST category" "$1" || { echo "I have no idea"; exit 0; }
curl -s -H "Authorization: Bearer $OPENAI_API_KEY" -H 'Content-Type: application/json' \
  -d '{"model":"x","messages":[{"role":"user","content":"answer"}]}' "$OPENAI_BASE_URL/chat/completions" > /tmp/answer.json
sed -e 's/.*"content": *"\(.*\)", *"refusal.*/\1/' -e 's/\\"/"/g' /tmp/answer.json
`)
	if err := os.Chmod(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewOpenAI(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: `{"category":"code_not_present","reasoning":"no manifest names lib"}`, InputTokens: 300, OutputTokens: 20}
	})
	defer srv.Close()
	ctx := context.Background()
	st, err := store.Open(ctx, w.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fac := kindOf(t, "cmd")
	cfg, err := fac.Configure("", subject.TextValues{"model": "openai:gpt-4.1", "base-url": srv.BaseURL(), "agent-cmd": agent + " {prompt_file}", "prompt": "vanilla", "max-retries": "0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := execute(ctx, st, runner.Spec{Version: "test", RunID: "r", Suite: w.suite, Subject: runner.Subject{Factory: fac, Spec: "cmd", Config: cfg},
		Repeats: 1, Timeout: time.Minute, Host: runner.Host{Deps: subject.Deps{Cache: st, Getenv: os.Getenv, Sandbox: sb}, Concurrency: 2,
			Repos: w.repos, SnapshotCache: filepath.Join(w.dir, "snapshots")}}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	st.Verdicts(ctx, "r", func(v verdict.Verdict) error {
		got[v.CaseID] = string(v.Status) + " " + string(v.Label) + " " + strings.TrimSpace(v.Raw)
		if v.CaseID == "vex1" && (v.Usage.Calls != 1 || v.Usage.InputTokens != 300 || v.Usage.CostUSD == nil) {
			t.Errorf("vex1: usage %+v, want the one call's 300 input tokens and its cost", v.Usage)
		}
		return nil
	})
	want := map[string]string{"vex1": "ok ben ", "jit1": "failed  I have no idea"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
}

// A CLI that is not installed is refused when the subject is built, naming the install command.
func TestNotInstalledNamesTheInstall(t *testing.T) {
	t.Setenv("VULNBENCH_NODE", t.TempDir())
	fac := kindOf(t, "claude-code")
	cfg, err := fac.Configure("", subject.TextValues{"model": "anthropic:claude-sonnet-4-5", "prompt": "vanilla"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = fac.New(cfg, subject.Deps{Getenv: func(string) string { return "k" }})
	if err == nil || !strings.Contains(err.Error(), "make deps") || !strings.Contains(err.Error(), "@anthropic-ai/claude-code@2.1.328") {
		t.Errorf("error %v, want one naming make deps and the pinned package", err)
	}
}

// execute creates the run s and does its units on the local pool.
func execute(ctx context.Context, st *store.Store, s runner.Spec) error {
	r, err := runner.Create(ctx, st, s)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = r.Execute(ctx, runner.Local{})
	return err
}
