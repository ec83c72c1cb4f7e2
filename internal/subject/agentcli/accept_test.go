package agentcli_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/agentcli"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
	"github.com/vulnbench/vulnbench/internal/web"
)

func TestMain(m *testing.M) {
	// The sandboxes' gateway forwarder is this test binary.
	if code, ok := sandbox.ForwardMain(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// world is one acceptance run's files: the repositories, the suite (a vex case and a jit case),
// the advisories, the store, and the host's secrets no agent may see.
type world struct {
	dir, repos, suite, advisories, db string
	commit                            string // of the repository both cases judge
	marker                            string
	port                              int
	forbidden                         []string
}

const advisoryID = "GHSA-test-0001"

func newWorld(t *testing.T) world {
	t.Helper()
	tag := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	w := world{dir: t.TempDir()}
	w.repos = filepath.Join(w.dir, "repos")
	w.commit = gittest.Repo(t, filepath.Join(w.repos, "acme+app"), map[string]string{
		"go.mod":      "module example.com/app\n\ngo 1.22\n\nrequire example.com/lib v1.0.0\n",
		"main.go":     "package main\n\nfunc main() {}\n",
		"src/parse.c": "int parse(char *s) { char b[8]; int i = 0; while (*s) b[i++] = *s++; return b[0]; }\n",
	})
	w.suite = filepath.Join(w.dir, "suite.jsonl")
	lines := fmt.Sprintf(`{"id":"vex1","kind":"vex","label":"ben","cve":"CVE-2024-0001","language":"go","repo":{"url":"https://github.com/acme/app","commit":%q},"vex":{"category":"code_not_reachable","ecosystem":"Go"}}
{"id":"jit1","kind":"jit","label":"vul","language":"c","repo":{"url":"https://github.com/acme/app","commit":%q},"target":{"file":"src/parse.c","function":"parse","line":1},"code":"int parse(char *s) { char b[8]; int i = 0; while (*s) b[i++] = *s++; return b[0]; }"}
`, w.commit, w.commit)
	write(t, w.suite, lines)
	w.advisories = filepath.Join(w.dir, "advisories")
	write(t, filepath.Join(w.advisories, advisoryID+".json"), `{"schema_version":"1.6.0","id":"`+advisoryID+`","aliases":["CVE-2024-0001"],"summary":"lib: overflow in Parse","modified":"2024-01-02T00:00:00Z","published":"2024-01-01T00:00:00Z","affected":[{"package":{"ecosystem":"Go","name":"example.com/lib"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.0.1"}]}]}]}`)
	w.marker = filepath.Join(w.dir, "marker.txt")
	write(t, w.marker, "MARKER-"+tag)
	w.db = filepath.Join(w.dir, "vulnbench.db")
	key := "sk-real-" + tag
	t.Setenv("ANTHROPIC_API_KEY", key)
	t.Setenv("OPENAI_API_KEY", key)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { fmt.Fprint(rw, "PORT-"+tag) })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	w.port = ln.Addr().(*net.TCPAddr).Port
	w.forbidden = []string{"MARKER-" + tag, key, "PORT-" + tag, "STORE-" + tag}
	return w
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// probe is the shell command the scripted model asks for: the marker, the store, PID 1's
// environment, the environment, a second loopback port, the advisories.
func (w world) probe() string {
	return strings.Join([]string{"echo SANDBOX-RAN; id", "cat " + w.marker + " " + w.db, "cat /proc/1/environ; echo; env",
		fmt.Sprintf("curl -s -m 3 http://127.0.0.1:%d/ || echo NO-SECOND-PORT", w.port), "ls /advisories; echo SANDBOX-DONE"}, "; ")
}

func shellCall(cli, cmd string) llmtest.ToolCall {
	c, ok := harness.CLIs()[cli]
	if !ok {
		return llmtest.ToolCall{ID: "call_probe", Name: "bash", Arguments: `{"command":` + fmt.Sprintf("%q", cmd) + `}`}
	}
	name, args := c.Shell(cmd)
	id := "call_probe"
	if cli == "claude-code" {
		id = "toolu_probe" // Anthropic's shape
	}
	return llmtest.ToolCall{ID: id, Name: name, Arguments: args}
}

// script: side calls without tools get a title; the first turn of a case runs the probe, the
// next answers in the case's format.
func (w world) script(cli string) llmtest.Handler {
	return func(r llmtest.Request) llmtest.Reply {
		if len(r.Tools) == 0 {
			return llmtest.Reply{Text: "Probe", InputTokens: 50, OutputTokens: 3}
		}
		if r.Turn() == 0 {
			return llmtest.Reply{Text: "Looking around.", ToolCalls: []llmtest.ToolCall{shellCall(cli, w.probe())}, InputTokens: 4000, OutputTokens: 120}
		}
		if strings.Contains(string(r.Raw), "Pick the FIRST category") {
			return llmtest.Reply{Text: `{"category":"code_not_reachable","reasoning":"main never calls lib.Parse"}`, InputTokens: 4500, OutputTokens: 40}
		}
		return llmtest.Reply{Text: `{"vulnerable": true, "cwe": "CWE-787", "reason": "b overflows past 8 bytes"}`, InputTokens: 4500, OutputTokens: 40}
	}
}

// TestCLIsThroughTheRunner: each real CLI of the harness table judges a vex case and a jit case through the whole
// runner (store, meter, gateway, sandbox) against the scripted fake; the tool results the fake
// receives hold none of the host's secrets; the verdicts, tokens, cost and every turn are stored.
func TestCLIsThroughTheRunner(t *testing.T) {
	if testing.Short() {
		t.Skip("the real CLIs take tens of seconds each")
	}
	sb, err := sandbox.New(context.Background(), sandbox.Options{})
	if err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	for _, tc := range []struct{ cli, model string }{
		{"claude-code", "anthropic:claude-sonnet-4-5"}, {"codex", "openai:gpt-5.4-mini"}, {"opencode", "openai:gpt-4.1"},
		{"gemini-cli", "gemini:gemini-2.5-flash"}, {"qwen-code", "openai:gpt-4.1"}, {"pi", "anthropic:claude-sonnet-4-5"},
		{"cline", "openai:gpt-4.1"}, {"kilo", "openai:gpt-4.1"},
	} {
		t.Run(tc.cli, func(t *testing.T) {
			if _, err := harness.CLIs()[tc.cli].Locate(""); errors.Is(err, harness.ErrNotInstalled) {
				t.Skipf("%v", err)
			}
			w := newWorld(t)
			var srv *llmtest.Server
			switch {
			case strings.HasPrefix(tc.model, "anthropic:"):
				srv = llmtest.NewAnthropic(w.script(tc.cli))
			case strings.HasPrefix(tc.model, "gemini:"):
				srv = llmtest.NewGemini(w.script(tc.cli))
			default:
				srv = llmtest.NewOpenAI(w.script(tc.cli))
			}
			defer srv.Close()
			runOne(t, sb, w, srv, tc.cli, tc.model)
		})
	}
}

func kindOf(t *testing.T, name string) subject.Factory {
	for _, k := range agentcli.Kinds() {
		if k.Name == name {
			return k.Factory()
		}
	}
	t.Fatalf("no kind %s", name)
	return subject.Factory{}
}

// runCLI runs cli with model (served by srv) on the world's suite into st, as run "r".
func runCLI(t *testing.T, sb *sandbox.Sandbox, st *store.Store, w world, srv *llmtest.Server, cli, model string) {
	t.Helper()
	fac := kindOf(t, cli)
	vals := subject.TextValues{"model": model, "base-url": srv.BaseURL(), "advisories": w.advisories, "prompt": "vanilla", "max-retries": "0", "call-timeout": "2m"}
	cfg, err := fac.Configure("", vals)
	if err != nil {
		t.Fatal(err)
	}
	err = execute(context.Background(), st, runner.Spec{Version: "test", RunID: "r", Suite: w.suite, Subject: runner.Subject{Factory: fac, Spec: cli, Config: cfg},
		Repeats: 1, Timeout: 5 * time.Minute, Host: runner.Host{Deps: subject.Deps{Cache: st, Getenv: os.Getenv, Sandbox: sb}, Concurrency: 2,
			Repos: w.repos, SnapshotCache: filepath.Join(w.dir, "snapshots")}})
	if err != nil {
		t.Fatal(err)
	}
}

func runOne(t *testing.T, sb *sandbox.Sandbox, w world, srv *llmtest.Server, cli, model string) {
	ctx := context.Background()
	st, err := store.Open(ctx, w.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.PutResponse(ctx, "k", "openai", "m", []byte(w.forbidden[3])); err != nil { // the store's marker
		t.Fatal(err)
	}
	runCLI(t, sb, st, w, srv, cli, model)
	want := map[string]string{"vex1": "ok ben code_not_reachable", "jit1": "ok vul "}
	if suite, err := os.ReadFile(w.suite); err == nil {
		for id := range want {
			if !strings.Contains(string(suite), `"id":"`+id+`"`) {
				delete(want, id) // a suite of fewer cases
			}
		}
	}
	got := map[string]string{}
	st.Verdicts(ctx, "r", func(v verdict.Verdict) error {
		cat := ""
		if v.VEX != nil {
			cat = v.VEX.Category
		}
		got[v.CaseID] = string(v.Status) + " " + string(v.Label) + " " + cat
		if v.Status == verdict.OK && (v.Usage.InputTokens == 0 || v.Usage.OutputTokens == 0 || v.Usage.CostUSD == nil || v.Usage.Calls < 2) {
			t.Errorf("%s: usage %+v, want the calls' tokens and cost", v.CaseID, v.Usage)
		}
		if v.Status != verdict.OK {
			t.Logf("%s: %s\n%.3000s", v.CaseID, v.Reason, v.Raw)
		}
		events, err := st.TraceEvents(ctx, "r", v.CaseID, 0, v.Attempt)
		if err != nil {
			t.Fatal(err)
		}
		checkTurns(t, v.CaseID, events)
		checkCasePage(t, st, v)
		return nil
	})
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	checkFake(t, srv, w)
}

// checkTurns: every model call is stored with its tokens and cost, and the probe's call and
// result.
func checkTurns(t *testing.T, id string, events []trace.Event) {
	t.Helper()
	responses, calls, results := 0, 0, 0
	for _, e := range events {
		switch e.Kind {
		case trace.ModelResponse:
			responses++
			if e.Usage.InputTokens == 0 || e.CostUSD == nil {
				t.Errorf("%s: a stored model response without its tokens or cost: %+v", id, e)
			}
		case trace.ToolCall:
			calls++
		case trace.ToolResult:
			if strings.Contains(e.Content, "SANDBOX-RAN") {
				results++
			}
		}
	}
	if responses < 2 || calls < 1 || results != 1 {
		t.Errorf("%s: stored trace has %d responses, %d tool calls, %d probe results; want >= 2, >= 1, 1", id, responses, calls, results)
	}
}

// checkFake: the probe ran in the sandbox, the vex case saw its advisory, and nothing the fake
// received holds a secret.
func checkFake(t *testing.T, srv *llmtest.Server, w world) {
	t.Helper()
	var results []string
	for _, r := range srv.Log() {
		for _, f := range w.forbidden {
			if strings.Contains(string(r.Raw), f) {
				t.Errorf("the model received %q", f)
			}
		}
		for _, m := range r.ToolResults() {
			results = append(results, m.Content)
		}
	}
	all := strings.Join(results, "\n")
	for _, want := range []string{"SANDBOX-RAN", "uid=1000(sandbox)", "NO-SECOND-PORT", advisoryID + ".json", "SANDBOX-DONE"} {
		if !strings.Contains(all, want) {
			t.Errorf("the tool results lack %q:\n%.3000s", want, all)
		}
	}
}

// checkCasePage: the viewer's page of a case shows the CLI's tokens, cost, calls and tool calls
// as stored, and each turn.
func checkCasePage(t *testing.T, st *store.Store, v verdict.Verdict) {
	t.Helper()
	rec := httptest.NewRecorder()
	web.New(st, web.Options{}).ServeHTTP(rec, httptest.NewRequest("GET", "/runs/r/case?"+url.Values{"id": {v.CaseID}}.Encode(), nil))
	body := rec.Body.String()
	u := v.Usage
	want := []string{fmt.Sprintf("%d in (", u.InputTokens), fmt.Sprintf("%d out (", u.OutputTokens), fmt.Sprintf("%d calls,", u.Calls),
		fmt.Sprintf("%d tool calls", u.ToolCalls), "model_response", "tool_call", "tool_result", " turn "}
	if u.CostUSD != nil {
		want = append(want, fmt.Sprintf("$%.6f", *u.CostUSD))
	}
	for _, w := range want {
		if rec.Code != 200 || !strings.Contains(body, w) {
			t.Errorf("%s: the viewer's case page (HTTP %d) lacks %q", v.CaseID, rec.Code, w)
		}
	}
}
