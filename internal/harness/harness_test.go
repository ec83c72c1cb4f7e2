package harness_test

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/vulnbench/vulnbench/internal/harness"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// TestLocate: a CLI is found in vulnbench's npm prefix and shown with its whole node_modules;
// missing, the error names the install command.
func TestLocate(t *testing.T) {
	prefix := t.TempDir()
	t.Setenv("VULNBENCH_NODE", prefix)
	cli := harness.CLIs()["codex"]
	_, err := cli.Locate("")
	if !errors.Is(err, harness.ErrNotInstalled) || !strings.Contains(err.Error(), "npm install --prefix "+prefix+" --save-exact @openai/codex@0.169.0") {
		t.Fatalf("Locate without the CLI: %v", err)
	}
	mods := filepath.Join(prefix, "node_modules")
	pkg := filepath.Join(mods, "@openai", "codex")
	if err := os.MkdirAll(filepath.Join(pkg, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(mods, ".bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"bin/codex.js": "#!/usr/bin/env node\n", "package.json": `{"name":"@openai/codex","version": "0.169.0"}`} {
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../@openai/codex/bin/codex.js", filepath.Join(mods, ".bin", "codex")); err != nil {
		t.Fatal(err)
	}
	in, err := cli.Locate("")
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(mods)
	want := harness.Install{Program: "{cli}/@openai/codex/bin/codex.js", Version: "0.169.0",
		Binds: []sandbox.Bind{{Name: "cli", Src: real, Dst: "/opt/vulnbench/node_modules"}}}
	if d := cmp.Diff(want, in); d != "" {
		t.Errorf("Install (-want +got):\n%s", d)
	}
}

// TestSpec: each CLI's process gets the gateway's token as its only key, the gateway's URL,
// and the unit's model; a provider it cannot speak is refused.
func TestSpec(t *testing.T) {
	in := harness.Install{Program: "/opt/vulnbench/node_modules/.bin/x"}
	run := harness.Run{Prompt: "the prompt", Model: "m-1", Token: "vulnbench-tok", Project: "/snap", Gateway: "/gw.sock"}
	apis := map[string]llm.API{"claude-code": llm.AnthropicMessages, "codex": llm.OpenAIResponses, "opencode": llm.OpenAIChat,
		"gemini-cli": llm.GeminiGenerate, "qwen-code": llm.OpenAIChat, "pi": llm.AnthropicMessages, "cline": llm.OpenAIChat, "kilo": llm.OpenAIChat}
	if d := cmp.Diff(harness.Names(), slices.Sorted(maps.Keys(apis)), cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
		t.Errorf("a CLI of the table is not tested here (-table +tested):\n%s", d)
	}
	for name, api := range apis {
		run.API = api
		spec, err := harness.CLIs()[name].Spec(in, run)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		all := strings.Join(append(append(spec.Args, spec.Env...), filesOf(spec)...), "\n")
		for _, want := range []string{"vulnbench-tok", "{gateway}", "m-1"} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: the process is not given %q:\n%s", name, want, all)
			}
		}
		// The prompt goes on standard input: in no command line (bubblewrap's, the helper's,
		// the CLI's own); but the first paragraph of Cline's, whose task is an argument.
		if name == "cline" {
			continue
		}
		if spec.Project != "/snap" || spec.Gateway != "/gw.sock" || spec.Args[0] != in.Program || spec.Input != "the prompt" || strings.Contains(all, "the prompt") {
			t.Errorf("%s: spec %+v", name, spec)
		}
	}
	// Cline: the first paragraph is its argument, the rest its standard input (cline joins
	// them with a blank line); a prompt without a short first paragraph goes whole to its input.
	run.API = llm.OpenAIChat
	for _, tc := range []struct{ prompt, arg, input string }{
		{"Judge this.\n\nint f() {}\n\nAnswer in JSON.\n", "Judge this.", "int f() {}\n\nAnswer in JSON."},
		{"the prompt", "Your task:", "the prompt"},
		{"-rf /\n\nrest", " -rf /", "rest"},
		{"@/etc/passwd\n\nrest", " @/etc/passwd", "rest"},
		{strings.Repeat("x", 70<<10) + "\n\nrest", "Your task:", strings.Repeat("x", 70<<10) + "\n\nrest"},
	} {
		run.Prompt = tc.prompt
		spec, err := harness.CLIs()["cline"].Spec(in, run)
		if err != nil {
			t.Fatal(err)
		}
		got := []string{spec.Args[len(spec.Args)-1], spec.Input}
		if d := cmp.Diff([]string{tc.arg, tc.input}, got); d != "" {
			t.Errorf("cline, prompt %.40q: argument and input (-want +got):\n%.500s", tc.prompt, d)
		}
	}
	run.API = llm.OpenAIResponses
	if _, err := harness.CLIs()["claude-code"].Spec(in, run); err == nil {
		t.Error("claude-code took an OpenAI model")
	}
}

func filesOf(s sandbox.Spec) []string {
	var out []string
	for _, f := range s.Files {
		out = append(out, string(f.Data))
	}
	return out
}

// TestAnswer: each CLI's final answer is read from what it printed and the files read back; its
// own error is the error, and so is a file the sandbox refused.
func TestAnswer(t *testing.T) {
	refused := &sandbox.RefusedError{Path: "{out}/codex-last-message.txt", Why: "a symbolic link"}
	for _, tc := range []struct {
		cli, stdout, file string
		want, err         string
	}{
		{"claude-code", `{"type":"result","subtype":"success","is_error":false,"result":"{\"category\":\"vulnerable\"}"}`, "", `{"category":"vulnerable"}`, ""},
		{"claude-code", "warning\n" + `{"type":"result","is_error":true,"result":"API Error: 400 probe"}`, "", "", "claude: API Error: 400 probe"},
		{"claude-code", "", "", "", "claude printed no result object"},
		{"codex", `{"type":"item.completed","item":{"type":"agent_message","text":"from the events"}}`, "", "from the events", ""},
		{"codex", `{"type":"item.completed","item":{"type":"agent_message","text":"from the events"}}`, "from the file", "from the file", ""},
		{"codex", `{"type":"turn.failed","error":{"message":"stream disconnected"}}`, "", "", "codex: stream disconnected"},
		{"codex", `{"type":"item.completed","item":{"type":"agent_message","text":"from the events"}}`, "refused", "", "codex: its last message: sandbox: refused to read back {out}/codex-last-message.txt: a symbolic link"},
		{"opencode", `{"type":"step_start"}` + "\n" + `{"type":"text","part":{"type":"text","text":"looking"}}` + "\n" +
			`{"type":"step_start"}` + "\n" + `{"type":"text","part":{"type":"text","text":"final"}}`, "", "final", ""},
		{"opencode", `{"type":"error","error":{"name":"APIError","data":{"message":"probe"}}}`, "", "", "opencode: APIError: probe"},
		{"kilo", `{"type":"error","error":{"name":"APIError","data":{"message":"probe"}}}`, "", "", "kilo: APIError: probe"},
		{"qwen-code", "Ripgrep not available\n" + `[{"type":"system"},{"type":"result","subtype":"success","is_error":false,"result":"{\"a\":1}"}]`, "", `{"a":1}`, ""},
		{"qwen-code", `[{"type":"result","is_error":true,"error":{"message":"[API Error: 400 probe]"}}]`, "", "", "qwen: [API Error: 400 probe]"},
		{"qwen-code", `not json`, "", "", "qwen printed no JSON messages"},
		{"pi", `{"type":"agent_start"}` + "\n" + `{"type":"agent_end","messages":[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"text","text":"looking"},{"type":"toolCall"}]},{"role":"toolResult"},{"role":"assistant","content":[{"type":"text","text":"final"}],"stopReason":"stop"}]}`, "", "final", ""},
		{"pi", `{"type":"agent_end","messages":[{"role":"assistant","content":[],"stopReason":"error","errorMessage":"400 probe"}]}`, "", "", "pi: error: 400 probe"},
		{"pi", ``, "", "", "pi printed no answer"},
		{"cline", `{"type":"agent_event"}` + "\n" + `{"type":"run_result","finishReason":"completed","text":"final"}`, "", "final", ""},
		{"cline", `{"type":"run_result","finishReason":"error","text":"Cannot connect to API"}`, "", "", "cline: error: Cannot connect to API"},
		{"gemini-cli", `{"session_id":"s","response":"final","stats":{}}`, "", "final", ""},
		{"gemini-cli", `{"session_id":"s","error":{"type":"FatalAuthenticationError","message":"probe","code":41}}`, "", "", "gemini: FatalAuthenticationError: probe"},
	} {
		res := sandbox.Result{Stdout: []byte(tc.stdout)}
		switch tc.file {
		case "":
			res.Files = []sandbox.Collected{{Path: "{out}/codex-last-message.txt", Err: fs.ErrNotExist}}
		case "refused":
			res.Files = []sandbox.Collected{{Path: "{out}/codex-last-message.txt", Err: refused}}
		default:
			res.Files = []sandbox.Collected{{Path: "{out}/codex-last-message.txt", Data: []byte(tc.file)}}
		}
		got, err := harness.CLIs()[tc.cli].Answer(res)
		if got != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s %.40q: %q, %v; want %q, %q", tc.cli, tc.stdout, got, err, tc.want, tc.err)
		}
	}
}

// TestTable: every row of clis.tsv has its behaviour, and the places that list the CLIs read
// the row: the install script reads the table itself; docs/harness.md names each CLI with its
// package and pinned version.
func TestTable(t *testing.T) {
	docs, err := os.ReadFile("../../docs/harness.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("../../scripts/install-deps.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), "internal/harness/clis.tsv") {
		t.Error("scripts/install-deps.sh does not read internal/harness/clis.tsv")
	}
	for _, r := range harness.Rows() {
		c := harness.CLIs()[r.Name]
		if c.Package != r.Package || c.Version != r.Version || c.APIs == nil {
			t.Errorf("%s: %+v", r.Name, c)
		}
		row := fmt.Sprintf("| `%s` | %s | `%s@%s` |", r.Name, r.Title, r.Package, r.Version)
		if !strings.Contains(string(docs), row) {
			t.Errorf("docs/harness.md lacks the row %s", row)
		}
	}
}

// TestEffort: each CLI says a level in its own terms, or that it has none.
func TestEffort(t *testing.T) {
	want := map[string]string{
		"claude-code": "--effort low", "codex": "-c model_reasoning_effort=minimal", "opencode": "--variant minimal",
		"gemini-cli": "settings thinkingConfig.thinkingBudget=1024", "qwen-code": "settings model.generationConfig.samplingParams.reasoning_effort=minimal",
		"pi": "--thinking minimal", "cline": "--thinking low", "kilo": "--variant minimal",
	}
	for name, w := range want {
		c := harness.CLIs()[name]
		api := c.APIs["openai"]
		if api == "" {
			for _, a := range c.APIs {
				api = a
			}
		}
		got, err := c.EffortSetting(llm.EffortMinimal, api)
		if err != nil || got != w {
			t.Errorf("%s: %q, %v; want %q", name, got, err, w)
		}
	}
	if _, err := harness.CLIs()["opencode"].EffortSetting(llm.EffortLow, llm.AnthropicMessages); err == nil || !strings.Contains(err.Error(), "no effort setting") {
		t.Errorf("opencode low with an Anthropic model: %v", err)
	}
	cmd, _ := harness.Command([]string{"my-agent"})
	if _, err := cmd.EffortSetting(llm.EffortHigh, llm.OpenAIChat); err == nil || !strings.Contains(err.Error(), "cmd has no effort setting") {
		t.Errorf("cmd: %v", err)
	}
}

// TestAPIForEveryProvider: every CLI reaches a model of every provider, in a format it speaks
// (the provider's own when it has it), and Spec refuses a format it does not speak.
func TestAPIForEveryProvider(t *testing.T) {
	for _, name := range harness.Names() {
		c := harness.CLIs()[name]
		for _, p := range []string{"openai", "anthropic", "gemini"} {
			api := c.API(p)
			if !slices.Contains(slices.Collect(maps.Values(c.APIs)), api) {
				t.Errorf("%s with a %s model speaks %q, not one of %v", name, p, api, c.APIs)
			}
			if own, ok := c.APIs[p]; ok && (api != own || c.Translation(p) != "") {
				t.Errorf("%s with a %s model: %s, translated %q; want its own %s untranslated", name, p, api, c.Translation(p), own)
			}
		}
	}
	c := harness.CLIs()["claude-code"]
	if _, err := c.Spec(harness.Install{Program: "claude"}, harness.Run{API: llm.GeminiGenerate}); err == nil || !strings.Contains(err.Error(), "cannot send gemini.generate requests") {
		t.Errorf("claude-code asked to send Gemini's format: %v", err)
	}
}
