package harness_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/gateway"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/harness"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func TestMain(m *testing.M) {
	// The sandboxes' gateway forwarder is this test binary.
	if code, ok := sandbox.ForwardMain(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// secrets are what the host holds and no agent may see: a marker file outside the project, the
// store (a real SQLite store holding a marker), the real API key in vulnbench's environment, a
// second loopback port serving a marker.
type secrets struct {
	marker, store string
	port          int
	forbidden     []string
}

func plant(t *testing.T) secrets {
	t.Helper()
	tag := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	var s secrets
	dir := t.TempDir()
	s.marker = filepath.Join(dir, "marker.txt")
	if err := os.WriteFile(s.marker, []byte("MARKER-"+tag), 0o644); err != nil {
		t.Fatal(err)
	}
	s.store = filepath.Join(dir, "vulnbench.db")
	st, err := store.Open(context.Background(), s.store)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutResponse(context.Background(), "k", "openai", "m", []byte("STORE-"+tag)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	key := "sk-real-" + tag
	t.Setenv("ANTHROPIC_API_KEY", key)
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("GEMINI_API_KEY", key)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "PORT-"+tag) })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	s.port = ln.Addr().(*net.TCPAddr).Port
	s.forbidden = []string{"MARKER-" + tag, "STORE-" + tag, key, "PORT-" + tag}
	return s
}

// probe is the shell command the scripted model asks every CLI to run.
func (s secrets) probe() string {
	return strings.Join([]string{
		"echo SANDBOX-RAN; id",
		"cat " + s.marker + " " + s.store + " leak",
		// NULs turned to newlines: Gemini CLI's shell tool returns output only up to its first NUL.
		"tr '\\0' '\\n' </proc/1/environ; env",
		fmt.Sprintf("curl -s -m 3 http://127.0.0.1:%d/ || echo NO-SECOND-PORT", s.port),
		"ls / /root /home; echo SANDBOX-DONE",
	}, "; ")
}

// project is a snapshot of a repository with a symbolic link out to the marker, materialised
// by git in the sandbox.
func project(t *testing.T, sb *sandbox.Sandbox, s secrets) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	gittest.WriteFiles(t, repo, map[string]string{"src/parse.c": "int parse(char *s) { return s[0]; }\n"})
	if err := os.Symlink(s.marker, filepath.Join(repo, "leak")); err != nil {
		t.Fatal(err)
	}
	commit := gittest.Repo(t, repo, nil)
	cacheDir := t.TempDir()
	t.Cleanup(func() { snapshot.RemoveAll(cacheDir) })
	c, err := snapshot.NewCache(cacheDir, snapshot.Options{Sandbox: sb})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := c.Get(context.Background(), repo, commit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	return snap.Root()
}

const finalAnswer = `{"category":"code_not_reachable","reasoning":"parse is never called with untrusted input"}`

// shellCall is each CLI's shell tool, as the scripted model calls it.
func shellCall(cli, cmd string) llmtest.ToolCall {
	name, args := harness.CLIs()[cli].Shell(cmd)
	id := "call_probe"
	if cli == "claude-code" {
		id = "toolu_probe" // Anthropic's shape
	}
	return llmtest.ToolCall{ID: id, Name: name, Arguments: args}
}

// script is the scripted model: requests without tools (a CLI's side tasks: titles) get a short
// text; the agent's first turn asks for the probe, its next turns get the final answer.
func script(cli string, s secrets) llmtest.Handler {
	return func(r llmtest.Request) llmtest.Reply {
		if len(r.Tools) == 0 {
			return llmtest.Reply{Text: "Sandbox probe", InputTokens: 50, OutputTokens: 3}
		}
		if r.Turn() == 0 {
			return llmtest.Reply{Text: "I will look around first.", ToolCalls: []llmtest.ToolCall{shellCall(cli, s.probe())}, InputTokens: 4000, CachedInputTokens: 1000, OutputTokens: 120}
		}
		return llmtest.Reply{Text: finalAnswer, InputTokens: 4500, OutputTokens: 40}
	}
}

// TestCLIs: each real CLI runs in the sandbox against the fake through the gateway, runs the
// probe the scripted model asks for, and answers; what the fake receives holds none of the
// host's secrets, and the trace has every call's tokens.
func TestCLIs(t *testing.T) {
	if testing.Short() {
		t.Skip("the real CLIs take tens of seconds each")
	}
	sb, err := sandbox.New(context.Background(), sandbox.Options{})
	if err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	for _, tc := range realCLIs() {
		t.Run(tc.cli+"/"+tc.spec, func(t *testing.T) {
			cli := harness.CLIs()[tc.cli]
			in, err := cli.Locate("")
			if errors.Is(err, harness.ErrNotInstalled) {
				t.Skipf("%v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			runCLI(t, sb, cli, in, tc.spec, tc.api)
		})
	}
}

// modeled is the llm stack as a subject's model, priced by prices.
type modeled struct {
	m llm.Model
	p llm.Prices
}

func (x modeled) Model() llm.Model   { return x.m }
func (x modeled) Prices() llm.Prices { return x.p }

// realCLI is a CLI with a model it speaks to and the wire format of that model.
type realCLI struct {
	cli, spec string
	api       llm.API
}

func realCLIs() []realCLI {
	return []realCLI{
		{"claude-code", "anthropic:claude-sonnet-4-5", llm.AnthropicMessages},
		{"codex", "openai:gpt-5.4-mini", llm.OpenAIResponses},
		{"opencode", "openai:gpt-4.1", llm.OpenAIChat},
		{"qwen-code", "openai:gpt-4.1", llm.OpenAIChat},
		{"pi", "openai:gpt-4.1", llm.OpenAIChat},
		{"pi", "anthropic:claude-sonnet-4-5", llm.AnthropicMessages},
		{"cline", "openai:gpt-4.1", llm.OpenAIChat},
		{"kilo", "openai:gpt-4.1", llm.OpenAIChat},
		{"gemini-cli", "gemini:gemini-2.5-flash", llm.GeminiGenerate},
		{"pi", "gemini:gemini-2.5-flash", llm.GeminiGenerate},
	}
}

func runCLI(t *testing.T, sb *sandbox.Sandbox, cli harness.CLI, in harness.Install, spec string, api llm.API) {
	s := plant(t)
	var srv *llmtest.Server
	switch api.Provider() {
	case "anthropic":
		srv = llmtest.NewAnthropic(script(cli.Name, s))
	case "gemini":
		srv = llmtest.NewGemini(script(cli.Name, s))
	default:
		srv = llmtest.NewOpenAI(script(cli.Name, s))
	}
	defer srv.Close()
	stack, err := llm.New(spec, llm.Options{BaseURL: srv.BaseURL(), Getenv: os.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	prices, err := llm.LoadPrices("")
	if err != nil {
		t.Fatal(err)
	}
	rec := trace.NewBuffer() // the unit's trace, the runner's meter its recorder
	env, usage := (&runner.Envs{Modeled: modeled{stack.Model, prices}}).Prepare(subject.Unit{Case: &suite.Case{ID: "c"}}, rec)
	raw, _ := llm.AsRaw(env.Model)
	gw, err := gateway.Start(gateway.Config{Model: raw})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	_, model, _ := llm.ParseSpec(spec)
	ps, err := cli.Spec(in, harness.Run{Prompt: "Is src/parse.c vulnerable? " + sandbox.Quote(dataBraces) + " Answer with a JSON object.", Model: model, API: api, Token: gw.Token(),
		Project: project(t, sb, s), Gateway: gw.Socket(), Timeout: 4 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sb.Run(context.Background(), ps)
	if err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, res.Stderr)
	}
	answer, err := cli.Answer(res)
	if err != nil || !strings.Contains(answer, finalAnswer) {
		t.Errorf("answer %q, %v\nstdout: %.2000s\nstderr: %.2000s", answer, err, res.Stdout, res.Stderr)
	}
	checkFake(t, srv, s)
	checkTrace(t, rec.Events(), gw, usage())
	seen := false
	for _, r := range srv.Log() {
		seen = seen || strings.Contains(string(r.Raw), dataBraces)
	}
	if !seen {
		t.Errorf("no request holds the prompt's %q as it was written: the sandbox took its braces for placeholders", dataBraces)
	}
}

// dataBraces is prompt text that looks like the sandbox's placeholders (an advisory or a case
// may hold it): it must reach the model as it is.
const dataBraces = "(the text {project} {home} is data)"

// checkFake: the probe ran (its results reached the model) and nothing the fake received holds
// a secret.
func checkFake(t *testing.T, srv *llmtest.Server, s secrets) {
	t.Helper()
	var results []string
	for _, r := range srv.Log() {
		// The providers' server-side web search would be the web behind the sandbox's back.
		if strings.Contains(string(r.Raw), `"web_search`) || strings.Contains(string(r.Raw), `"googleSearch`) ||
			slices.Contains(r.Tools, "WebSearch") || slices.Contains(r.Tools, "google_web_search") {
			t.Errorf("a request offers the model web search: tools %v", r.Tools)
		}
		for _, f := range s.forbidden {
			if strings.Contains(string(r.Raw), f) {
				t.Errorf("the model received %q", f)
			}
		}
		for _, m := range r.ToolResults() {
			results = append(results, m.Content)
		}
	}
	all := strings.Join(results, "\n")
	for _, want := range []string{"SANDBOX-RAN", "uid=1000(sandbox)", "SANDBOX-DONE", "NO-SECOND-PORT"} {
		if !strings.Contains(all, want) {
			t.Errorf("the tool results lack %q: the probe did not run as expected:\n%.3000s", want, all)
		}
	}
}

// checkTrace: every model call is in the trace with the tokens the provider reported and a
// cost; the probe's call and result are there too.
func checkTrace(t *testing.T, events []trace.Event, gw *gateway.Gateway, u verdict.Usage) {
	t.Helper()
	responses, calls, results := 0, 0, 0
	for _, e := range events {
		switch e.Kind {
		case trace.ModelResponse:
			responses++
			if e.Usage.InputTokens == 0 || e.Usage.OutputTokens == 0 || e.CostUSD == nil {
				t.Errorf("a model response without its tokens or cost: %+v", e)
			}
		case trace.ToolCall:
			calls++
		case trace.ToolResult:
			if strings.Contains(e.Content, "SANDBOX-RAN") {
				results++
			}
		case trace.Error:
			t.Errorf("error event: %s", e.Content)
		}
	}
	st := gw.Stats()
	if responses < 2 || calls < 1 || results != 1 || st.Calls != responses || u.Calls != responses || u.InputTokens == 0 {
		t.Errorf("trace: %d responses, %d tool calls, %d probe results; gateway stats %+v; the meter's usage %+v", responses, calls, results, st, u)
	}
	if u.CostUSD != nil {
		t.Logf("the meter: %d calls, %d input and %d output tokens, $%.4f", u.Calls, u.InputTokens, u.OutputTokens, *u.CostUSD)
	}
}
