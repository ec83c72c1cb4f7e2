package harnesstest_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/harness/harnesstest"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// lifecycle is a cmd agent that asks the model once and then sleeps (named tag, so that a test
// can look for it) while the model says SLEEP, or answers.
type lifecycle struct {
	dir, tmp, db, suite, repos, bin, tag string
	sleep                                atomic.Bool
	srv                                  *llmtest.Server
}

func newLifecycle(t *testing.T) *lifecycle {
	l := &lifecycle{dir: t.TempDir(), tag: fmt.Sprintf("vblife%d", time.Now().UnixNano())}
	l.tmp = filepath.Join(l.dir, "tmp")
	os.Mkdir(l.tmp, 0o755)
	t.Setenv("TMPDIR", l.tmp)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	l.bin = harnesstest.Build(t, filepath.Join(l.dir, "bin"))
	l.db, l.suite, l.repos = filepath.Join(l.dir, "v.db"), filepath.Join(l.dir, "s.jsonl"), filepath.Join(l.dir, "repos")
	commit := gittest.Repo(t, filepath.Join(l.repos, "acme+app"), map[string]string{"src/parse.c": "int parse(char *s) { return s[0]; }\n"})
	os.WriteFile(l.suite, []byte(fmt.Sprintf(`{"id":"c1","kind":"jit","label":"vul","language":"c","repo":{"url":"https://github.com/acme/app","commit":%q},"target":{"file":"src/parse.c","function":"parse","line":1},"code":"int parse(char *s) { return s[0]; }"}`+"\n", commit)), 0o644)
	agent := filepath.Join(l.dir, "agent.sh")
	os.WriteFile(agent, []byte(`#!/bin/bash
r=$(curl -s -H "Authorization: Bearer $OPENAI_API_KEY" -H 'Content-Type: application/json' -d '{"model":"x","messages":[{"role":"user","content":"go"}]}' "$OPENAI_BASE_URL/chat/completions")
echo "asked the model, working on it"
echo partial > $HOME/progress
case "$r" in *SLEEP*) exec -a `+l.tag+` sleep 600;; esac
echo '{"vulnerable": true, "cwe": "CWE-787", "reason": "s is read unchecked"}'
`), 0o755)
	l.sleep.Store(true)
	l.srv = llmtest.NewOpenAI(func(llmtest.Request) llmtest.Reply {
		if l.sleep.Load() {
			return llmtest.Reply{Text: "SLEEP", InputTokens: 10, OutputTokens: 1}
		}
		return llmtest.Reply{Text: "ANSWER", InputTokens: 10, OutputTokens: 1}
	})
	t.Cleanup(l.srv.Close)
	return l
}

func (l *lifecycle) run(args ...string) *exec.Cmd {
	base := []string{"--db", l.db, "--sandbox-mem", "512MiB", "--repos", l.repos, "--snapshot-cache", filepath.Join(l.dir, "snap"), "--no-score"}
	if !strings.HasPrefix(strings.Join(args, " "), "run --resume") {
		base = append(base, "--suite", l.suite, "--subject", "cmd", "--model", "openai:gpt-4.1", "--base-url", l.srv.BaseURL(),
			"--agent-cmd", filepath.Join(l.dir, "agent.sh")+" {prompt_file}", "--run-id", "r", "--max-retries", "0")
	}
	return exec.Command(l.bin, append(args, base...)...)
}

// left are the processes named tag and the unit folders in the run's temporary folder.
func (l *lifecycle) left(t *testing.T) (procs, folders []string) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, "cmdline")); err == nil && bytes.Contains(b, []byte(l.tag)) {
			procs = append(procs, filepath.Base(d))
		}
	}
	folders, _ = filepath.Glob(filepath.Join(l.tmp, "vulnbench-*"))
	gw, _ := filepath.Glob(filepath.Join(l.tmp, "vbgw-*"))
	return procs, append(folders, gw...)
}

func (l *lifecycle) verdict(t *testing.T) (verdict.Verdict, string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, l.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v verdict.Verdict
	st.Verdicts(ctx, "r", func(x verdict.Verdict) error { v = x; return nil })
	events, err := st.TraceEvents(ctx, "r", "c1", 0, v.Attempt)
	if err != nil {
		t.Fatal(err)
	}
	var trace strings.Builder
	for _, e := range events {
		fmt.Fprintf(&trace, "%s %s: %s\n", e.Kind, e.Name, e.Content)
	}
	return v, trace.String()
}

// TestTimedOutUnit: a unit that runs past its --timeout ends failed, what the agent printed and
// the model call it made are in its trace, and nothing is left: no process, no folder.
func TestTimedOutUnit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds vulnbench")
	}
	l := newLifecycle(t)
	out, err := l.run("run", "--timeout", "20s").CombinedOutput()
	if err != nil && !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("run: %v\n%s", err, out)
	}
	v, trace := l.verdict(t)
	if v.Status != verdict.Failed || !strings.Contains(v.Reason, "timeout") || !strings.Contains(v.Raw, "asked the model") {
		t.Errorf("verdict %s %q raw %q; want failed at its timeout with what it printed", v.Status, v.Reason, v.Raw)
	}
	for _, want := range []string{"output until it was stopped: asked the model", string("model_response")} {
		if !strings.Contains(trace, want) {
			t.Errorf("the trace lacks %q:\n%s", want, trace)
		}
	}
	if procs, folders := l.left(t); len(procs)+len(folders) > 0 {
		t.Errorf("left after the timeout: processes %v, folders %v", procs, folders)
	}
}

// TestKilledAndRestarted: vulnbench killed with SIGKILL in the middle of a unit leaves no
// process (the sandbox dies with it); the next start removes the folders it left, naming them,
// and the resumed run does the unit and leaves nothing.
func TestKilledAndRestarted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds vulnbench")
	}
	l := newLifecycle(t)
	cmd := l.run("run")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if procs, _ := l.left(t); len(procs) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the agent never started:\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	_, before := l.left(t)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for end := time.Now().Add(10 * time.Second); ; {
		procs, _ := l.left(t)
		if len(procs) == 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("processes left 10 s after vulnbench was killed: %v", procs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(before) == 0 {
		t.Errorf("no unit folder while the unit ran: the test shows nothing")
	}
	l.sleep.Store(false)
	time.Sleep(11 * time.Second) // the run's heartbeat goes stale: a resume may take it over
	out, err := l.run("run", "--resume", "r").CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "removed what a vulnbench that died left") {
		t.Errorf("the restart did not say what it removed:\n%s", out)
	}
	for _, f := range before {
		if !strings.Contains(string(out), f) {
			t.Errorf("the note does not name %s:\n%s", f, out)
		}
	}
	if v, _ := l.verdict(t); v.Status != verdict.OK {
		t.Errorf("the resumed unit: %s %q", v.Status, v.Reason)
	}
	if procs, folders := l.left(t); len(procs)+len(folders) > 0 {
		t.Errorf("left after the restart: processes %v, folders %v", procs, folders)
	}
}
