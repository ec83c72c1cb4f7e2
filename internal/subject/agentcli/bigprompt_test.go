package agentcli_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/harness"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// TestBigPromptReachesTheModel: a jit case whose function is 200 KiB (past Linux's 128 KiB bound
// on one argument) reaches the model whole through cline, whose task is an argument: its first
// paragraph is, the rest comes on standard input.
func TestBigPromptReachesTheModel(t *testing.T) {
	if testing.Short() {
		t.Skip("a real CLI")
	}
	sb, err := sandbox.New(context.Background(), sandbox.Options{})
	if err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	const cli, model = "cline", "openai:gpt-4.1"
	if _, err := harness.CLIs()[cli].Locate(""); errors.Is(err, harness.ErrNotInstalled) {
		t.Skipf("%v", err)
	}
	w := newWorld(t)
	code := "int parse(char *s) {\n" + strings.Repeat("  /* padding padding padding padding padding */\n", 200<<10/50) +
		"  return s[0]; /* END-OF-BIG-FUNCTION */\n}\n"
	c, _ := json.Marshal(map[string]any{"id": "big1", "kind": "jit", "label": "vul", "language": "c",
		"repo":   map[string]string{"url": "https://github.com/acme/app", "commit": w.commit},
		"target": map[string]any{"file": "src/parse.c", "function": "parse", "line": 1}, "code": code})
	w.suite = filepath.Join(w.dir, "big.jsonl")
	write(t, w.suite, string(c)+"\n")
	saw := false
	srv := llmtest.NewOpenAI(func(r llmtest.Request) llmtest.Reply {
		if len(r.Tools) == 0 {
			return llmtest.Reply{Text: "A title", InputTokens: 10, OutputTokens: 3}
		}
		if strings.Contains(string(r.Raw), "END-OF-BIG-FUNCTION") {
			saw = true
		}
		return llmtest.Reply{Text: `{"vulnerable": true, "cwe": "CWE-787", "reason": "big"}`, InputTokens: 60000, OutputTokens: 20}
	})
	defer srv.Close()
	ctx := context.Background()
	st, err := store.Open(ctx, w.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runCLI(t, sb, st, w, srv, cli, model)
	var got []string
	st.Verdicts(ctx, "r", func(v verdict.Verdict) error {
		got = append(got, string(v.Status)+" "+string(v.Label)+" "+v.Reason)
		return nil
	})
	if len(got) != 1 || got[0] != "ok vul " {
		t.Errorf("verdicts %q, want one ok vul", got)
	}
	if !saw {
		t.Errorf("the model never received the end of the 200 KiB function")
	}
}
