package harness_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	for name, api := range map[string]llm.API{"claude-code": llm.AnthropicMessages, "codex": llm.OpenAIResponses, "opencode": llm.OpenAIChat} {
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
		// the CLI's own).
		if spec.Project != "/snap" || spec.Gateway != "/gw.sock" || spec.Args[0] != in.Program || spec.Input != "the prompt" || strings.Contains(all, "the prompt") {
			t.Errorf("%s: spec %+v", name, spec)
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
