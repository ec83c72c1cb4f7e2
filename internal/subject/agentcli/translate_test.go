package agentcli_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/board"
	"github.com/vulnbench/vulnbench/internal/harness"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// TestCLIsTranslated: real CLIs on a model of a provider whose wire format they do not speak
// (Gemini CLI on an Anthropic model, Claude Code on an OpenAI one over Chat Completions, Codex
// on an Anthropic one) judge a
// vex case end to end: the gateway translates every call (the fake provider only speaks its
// own format, and would refuse the CLI's), and the tokens stored are the sum of what the
// provider's answers said, priced.
func TestCLIsTranslated(t *testing.T) {
	if testing.Short() {
		t.Skip("the real CLIs take tens of seconds each")
	}
	sb, err := sandbox.New(context.Background(), sandbox.Options{})
	if err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	for _, tc := range []struct {
		cli, model, harness string
		fake                func(llmtest.Handler, ...llmtest.Option) *llmtest.Server
	}{
		{"gemini-cli", "anthropic:claude-sonnet-4-5", "gemini-cli 0.61.0 (translated: gemini→anthropic)", llmtest.NewAnthropic},
		{"claude-code", "openai:gpt-4.1", "claude-code 2.1.328 (translated: anthropic→openai-chat)", llmtest.NewOpenAI},
		// Responses, with its tool namespaces
		{"codex", "anthropic:claude-sonnet-4-5", "codex 0.169.0 (translated: openai-responses→anthropic)", llmtest.NewAnthropic},
	} {
		t.Run(tc.cli, func(t *testing.T) {
			if _, err := harness.CLIs()[tc.cli].Locate(""); errors.Is(err, harness.ErrNotInstalled) {
				t.Skipf("%v", err)
			}
			w := newWorld(t)
			vexOnly(t, w)
			srv := tc.fake(w.script(tc.cli))
			defer srv.Close()
			runOne(t, sb, w, srv, tc.cli, tc.model)
			checkUpstreamUsage(t, w, srv)
			checkBoardHarness(t, w, tc.harness)
		})
	}
}

// vexOnly keeps the world's vex case alone: one case is enough to show the translation.
func vexOnly(t *testing.T, w world) {
	b, err := os.ReadFile(w.suite)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if !strings.Contains(line, `"kind":"vex"`) {
		t.Fatalf("the world's first case is not its vex case: %s", line)
	}
	write(t, w.suite, line+"\n")
}

// checkUpstreamUsage: the vex case's stored tokens are the sum of the usage the fake provider
// answered each call with (w.script's), as the provider's answers said it.
func checkUpstreamUsage(t *testing.T, w world, srv *llmtest.Server) {
	t.Helper()
	var in, out int64
	for _, r := range srv.Log() {
		rep := w.script("")(r)
		in, out = in+int64(rep.InputTokens), out+int64(rep.OutputTokens)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, w.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n := 0
	st.Verdicts(ctx, "r", func(v verdict.Verdict) error {
		n++
		if v.Usage.InputTokens != in || v.Usage.OutputTokens != out || v.Usage.Calls != len(srv.Log()) || v.Usage.CostUSD == nil || *v.Usage.CostUSD <= 0 {
			t.Errorf("%s: stored usage %+v; the provider answered %d calls with %d input and %d output tokens", v.CaseID, v.Usage, len(srv.Log()), in, out)
		}
		return nil
	})
	if n != 1 {
		t.Errorf("%d verdicts stored, want 1", n)
	}
}

// checkBoardHarness: the board's row of the run states the translation in its harness column.
func checkBoardHarness(t *testing.T, w world, want string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, w.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, err := board.Build(ctx, st, board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tb := range b.Tables {
		for _, r := range tb.Rows {
			got = append(got, r.Harness)
		}
	}
	if len(got) != 1 || got[0] != want {
		t.Errorf("the board's harness column %q, want [%q]", got, want)
	}
}
