package harness

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// CLI is what vulnbench knows of one agent CLI.
type CLI struct {
	Name    string // the subject kind: claude-code, codex, opencode
	Package string // the npm package and its pinned version
	Version string
	Binary  string // its program in node_modules/.bin
	// APIs are the wire formats it can send, by the provider of the unit's model; a provider
	// it cannot use is absent.
	APIs map[string]llm.API
	// ReadBack are the files the CLI leaves that vulnbench reads back after it ended (its last
	// message in {out}, session files under {home}): only through the sandbox's guarded reader,
	// and each one a place the hostile-agent battery plants a link, a FIFO and a huge file at.
	ReadBack []string
	// invoke builds the process: arguments, environment, files, for one run.
	invoke func(r Run) invocation
	// answer reads the final answer from what the process printed and the files read back.
	answer func(res sandbox.Result) (string, error)
}

// CLIs are the agent CLIs, by name.
func CLIs() map[string]CLI {
	return map[string]CLI{
		"claude-code": {Name: "claude-code", Package: "@anthropic-ai/claude-code", Version: "2.1.328", Binary: "claude",
			APIs: map[string]llm.API{"anthropic": llm.AnthropicMessages}, invoke: claudeInvoke, answer: claudeAnswer},
		"codex": {Name: "codex", Package: "@openai/codex", Version: "0.169.0", Binary: "codex",
			APIs: map[string]llm.API{"openai": llm.OpenAIResponses}, ReadBack: []string{codexLastPath}, invoke: codexInvoke, answer: codexAnswer},
		"opencode": {Name: "opencode", Package: "opencode-ai", Version: "1.18.33", Binary: "opencode",
			APIs: map[string]llm.API{"openai": llm.OpenAIChat, "anthropic": llm.AnthropicMessages}, invoke: opencodeInvoke, answer: opencodeAnswer},
	}
}

// InstallCommand is the command that installs the pinned CLI where Locate looks.
func (c CLI) InstallCommand() string {
	return fmt.Sprintf("make deps (scripts/install-deps.sh installs the three agent CLIs), or this one alone: npm install --prefix %s --save-exact %s@%s", NodePrefix(), c.Package, c.Version)
}

// NodePrefix is vulnbench's own npm prefix: $VULNBENCH_NODE, or ~/.cache/vulnbench/node (as
// scripts/install-deps.sh installs it).
func NodePrefix() string {
	if p := os.Getenv("VULNBENCH_NODE"); p != "" {
		return p
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "vulnbench", "node")
}

// ErrNotInstalled is matched by Locate's error when the CLI is not there.
var ErrNotInstalled = errors.New("agent CLI not installed")

// Install is a located CLI: the binds that show it in a sandbox and its program there.
type Install struct {
	Program string         // as the process runs it: {cli}/... (the bind's path in the sandbox, or the host's under sandbox.ModeNone)
	Binds   []sandbox.Bind // its install, read-only, named "cli"
	Version string         // the package's version, from its package.json when found
}

// nodeDir is where a CLI's node_modules is shown in the sandbox.
const nodeDir = "/opt/vulnbench/node_modules"

// Locate finds the CLI: at bin when given (--agent-bin), else in NodePrefix's node_modules/.bin.
// A program inside a node_modules tree (npm's links resolved) is shown with that whole tree, as
// npm packages find their native binaries beside them; any other program alone.
func (c CLI) Locate(bin string) (Install, error) {
	if bin == "" {
		bin = filepath.Join(NodePrefix(), "node_modules", ".bin", c.Binary)
		if _, err := os.Stat(bin); err != nil {
			return Install{}, fmt.Errorf("%w: %s is not at %s: install it with: %s", ErrNotInstalled, c.Name, bin, c.InstallCommand())
		}
	} else if !strings.Contains(bin, "/") {
		p, err := exec.LookPath(bin)
		if err != nil {
			return Install{}, fmt.Errorf("%w: --agent-bin %s is not on PATH", ErrNotInstalled, bin)
		}
		bin = p
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return Install{}, fmt.Errorf("%w: %s: %v", ErrNotInstalled, bin, err)
	}
	if i := strings.LastIndex(real, "/node_modules/"); i >= 0 {
		modules := real[:i+len("/node_modules")]
		in := Install{Program: "{cli}" + real[i+len("/node_modules"):], Binds: []sandbox.Bind{{Name: "cli", Src: modules, Dst: nodeDir}}}
		in.Version = packageVersion(modules, c.Package)
		return in, nil
	}
	return Install{Program: "{cli}", Binds: []sandbox.Bind{{Name: "cli", Src: real, Dst: "/opt/vulnbench/bin/" + filepath.Base(real)}}}, nil
}

// packageVersion reads a package's version from node_modules/PKG/package.json.
func packageVersion(modules, pkg string) string {
	b, err := os.ReadFile(filepath.Join(modules, pkg, "package.json"))
	if err != nil {
		return ""
	}
	const key = `"version"`
	i := strings.Index(string(b), key)
	if i < 0 {
		return ""
	}
	rest := strings.TrimLeft(string(b[i+len(key):]), " \t:")
	if !strings.HasPrefix(rest, `"`) {
		return ""
	}
	v, _, _ := strings.Cut(rest[1:], `"`)
	return v
}

// Run is one run of a CLI on a prompt.
type Run struct {
	// Prompt is the one message: it reaches the CLI on its standard input (or in a file for
	// cmd), never in a command line. Its {project} and {advisories} name those places as the
	// CLI sees them; data in it (a case's code, an advisory's words) is sandbox.Quote'd.
	Prompt string
	Model  string  // the unit's model id (the gateway sends it upstream whatever the CLI says)
	API    llm.API // the wire format, one of the CLI's APIs
	Token  string  // the gateway's token: the only key the CLI gets
	// The sandbox: the project (read-only), the advisories (a host directory, or files shown
	// read-only at {advisories}), the gateway's socket, the limits.
	Project, Advisories, Gateway string
	AdvisoryFiles                []sandbox.File
	Timeout                      time.Duration
	// Binds are more read-only host paths shown to the CLI (a cmd agent's own folder).
	Binds []sandbox.Bind
}

// invocation is what a CLI needs to run.
type invocation struct {
	args  []string // after the program
	env   []string
	files []sandbox.File
	// fileOnly: the prompt is in a file (cmd's {prompt_file}), not on standard input.
	fileOnly bool
}

// Spec is the sandboxed process that runs r with the CLI installed at in.
func (c CLI) Spec(in Install, r Run) (sandbox.Spec, error) {
	if _, ok := c.APIs[r.API.Provider()]; !ok || c.APIs[r.API.Provider()] != r.API {
		return sandbox.Spec{}, fmt.Errorf("%s cannot send %s requests (it speaks %v)", c.Name, r.API, c.APIs)
	}
	inv := c.invoke(r)
	env := append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME={home}", "TERM=dumb", "NO_COLOR=1", "CI=1"}, inv.env...)
	spec := sandbox.Spec{
		Project: r.Project, Advisories: r.Advisories, Gateway: r.Gateway, Out: true,
		Binds: append(slices.Clone(in.Binds), r.Binds...), Files: append(inv.files, r.AdvisoryFiles...),
		Args: append([]string{in.Program}, inv.args...), Env: env,
		Timeout: r.Timeout, Collect: c.ReadBack,
	}
	if !inv.fileOnly {
		spec.Input = r.Prompt
	}
	return spec, nil
}

// Answer is the CLI's final answer, read from what the process printed and the files read
// back (Result.Files). An error says the CLI reported none (its own error message, when it
// printed one), or that a file it should have left was refused (a link, a FIFO, past its cap):
// a sandboxed process's doing, never read another way.
func (c CLI) Answer(res sandbox.Result) (string, error) {
	return c.answer(res)
}
