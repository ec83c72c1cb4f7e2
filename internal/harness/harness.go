package harness

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/gateway/translate"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/progs"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// CLI is what vulnbench knows of one agent CLI: its row of clis.tsv and its behaviour.
type CLI struct {
	Name    string // the subject kind: claude-code, codex, opencode, ...
	Package string // the npm package and its pinned version
	Version string
	Binary  string // its program in node_modules/.bin
	Title   string // its name for people: "Claude Code"
	// APIs are the wire formats it speaks, by the provider whose format each is. A model of a
	// provider absent here is reached all the same: the CLI speaks its API(provider) and the
	// gateway translates (Translation).
	APIs map[string]llm.API
	// ReadBack are the files the CLI leaves that vulnbench reads back after it ended (its last
	// message in {out}, session files under {home}): only through the sandbox's guarded reader,
	// and each one a place the hostile-agent battery plants a link, a FIFO and a huge file at.
	ReadBack []string
	// invoke builds the process: arguments, environment, files, for one run.
	invoke func(r Run) invocation
	// answer reads the final answer from what the process printed and the files read back.
	answer func(res sandbox.Result) (string, error)
	// effort is the CLI's own setting for an effort level, as the arguments and environment
	// it adds and a description for the manifest; nil: the CLI has none.
	effort func(level llm.Effort, api llm.API) (setting, bool)
	// Shell is the CLI's shell tool as a model calls it: its name and its arguments for cmd.
	Shell func(cmd string) (name, args string)
}

// behaviour is the code half of a CLI: one file per CLI defines it.
type behaviour struct {
	apis   map[string]llm.API
	invoke func(r Run) invocation
	answer func(res sandbox.Result) (string, error)
	effort func(level llm.Effort, api llm.API) (setting, bool)
	shell  func(cmd string) (name, args string)
	// readBack are the files the CLI leaves that vulnbench reads back (CLI.ReadBack).
	readBack []string
}

// shellTool is a shell tool named name whose command is the argument key, with extra
// arguments (JSON members) after it.
func shellTool(name, key, extra string) func(cmd string) (string, string) {
	return func(cmd string) (string, string) {
		q, _ := json.Marshal(cmd)
		return name, "{" + strconv.Quote(key) + ":" + string(q) + extra + "}"
	}
}

// behaviours are the CLIs' files, by the name of their row in clis.tsv.
var behaviours = map[string]func() behaviour{
	"claude-code": claude, "codex": codex, "opencode": opencode, "gemini-cli": gemini,
	"qwen-code": qwen, "pi": pi, "cline": cline, "kilo": kilo,
}

//go:embed clis.tsv
var table string

// Row is one row of clis.tsv.
type Row struct{ Name, Package, Version, Binary, Title string }

// Rows are clis.tsv's rows, in its order: the one list of the CLIs and their pins.
func Rows() []Row {
	var rows []Row
	for _, line := range strings.Split(table, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			panic("harness: clis.tsv: a row without its five columns: " + line) // the embedded table is ours: a test reads it
		}
		rows = append(rows, Row{f[0], f[1], f[2], f[3], f[4]})
	}
	return rows
}

// Names are the CLIs' names in the table's order.
func Names() []string {
	var out []string
	for _, r := range Rows() {
		out = append(out, r.Name)
	}
	return out
}

// CLIs are the agent CLIs, by name.
func CLIs() map[string]CLI {
	out := map[string]CLI{}
	for _, r := range Rows() {
		b := behaviours[r.Name]()
		out[r.Name] = CLI{Name: r.Name, Package: r.Package, Version: r.Version, Binary: r.Binary, Title: r.Title,
			APIs: b.apis, ReadBack: b.readBack, invoke: b.invoke, answer: b.answer, effort: b.effort, Shell: b.shell}
	}
	return out
}

// InstallCommand is the command that installs the pinned CLI where Locate looks.
func (c CLI) InstallCommand() string {
	return fmt.Sprintf("make deps (scripts/install-deps.sh installs the agent CLIs of internal/harness/clis.tsv), or this one alone: npm install --prefix %s --save-exact %s@%s", progs.NodePrefix(), c.Package, c.Version)
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

// Locate finds the CLI as every program is found (progs.Find): bin when given (--agent-bin, a
// path or a name), else the CLI's program, first in vulnbench's npm prefix. A program inside a
// node_modules tree (npm's links resolved) is shown with that whole tree, as npm packages find
// their native binaries beside them; any other program alone.
func (c CLI) Locate(bin string) (Install, error) {
	if bin == "" {
		p, err := progs.Find(c.Binary)
		if err != nil {
			return Install{}, fmt.Errorf("%w: %s: %v; install it with: %s", ErrNotInstalled, c.Name, err, c.InstallCommand())
		}
		bin = p
	} else {
		p, err := progs.Find(bin)
		if err != nil {
			return Install{}, fmt.Errorf("%w: --agent-bin: %v", ErrNotInstalled, err)
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
	if sandbox.SystemPath(real) { // an interpreter of the system (python3): run where it is, beside its libraries
		return Install{Program: real}, nil
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
	// AgentDir is a host directory shown read-only at {agent_dir} (AgentDirPath), the process's
	// working directory (--agent-dir: an agent's script and files); "": none, the process starts
	// in {project}.
	AgentDir string
	// Effort is the run's --effort ("" the CLI's default), given to the CLI in its own setting.
	Effort llm.Effort

	effort setting // Effort in the CLI's terms, set by Spec
}

// setting is an effort level in a CLI's own terms: the arguments and environment that say it.
type setting struct {
	args, env []string
	files     []sandbox.File
	desc      string // when the CLI's invoke applies it (a settings file): how it reads
}

// Describe is how the setting reads in a manifest: "--effort high".
func (s setting) describe() string {
	if s.desc != "" {
		return s.desc
	}
	return strings.Join(append(append([]string(nil), s.args...), s.env...), " ")
}

// EffortSetting is what level becomes in the CLI's own terms with a model of api's wire format
// ("--effort high"); an error says the CLI has no such setting.
func (c CLI) EffortSetting(level llm.Effort, api llm.API) (string, error) {
	s, err := c.effortFor(level, api)
	return s.describe(), err
}

func (c CLI) effortFor(level llm.Effort, api llm.API) (setting, error) {
	if level == "" {
		return setting{}, nil
	}
	if c.effort == nil {
		return setting{}, fmt.Errorf("%s has no effort setting: leave --effort out (its own default is what runs)", c.Name)
	}
	s, ok := c.effort(level, api)
	if !ok {
		return setting{}, fmt.Errorf("%s has no effort setting %q with a %s model", c.Name, level, api.Provider())
	}
	return s, nil
}

// AgentDirPath is where --agent-dir is shown in the sandbox.
const AgentDirPath = "/opt/vulnbench/agent"

// invocation is what a CLI needs to run.
type invocation struct {
	args  []string // after the program
	env   []string
	files []sandbox.File
	// fileOnly: the prompt is in a file (cmd's {prompt_file}), not on standard input.
	fileOnly bool
	// input, when set, is the standard input instead of the prompt (a CLI given the prompt's
	// head as an argument and the rest there).
	input string
}

// API is the wire format the CLI speaks to a model of provider: the provider's own when the CLI
// speaks it, else the first it speaks of Chat Completions, Anthropic Messages, Responses and
// Gemini's, which the gateway translates to the provider's.
func (c CLI) API(provider string) llm.API {
	if api, ok := c.APIs[provider]; ok {
		return api
	}
	for _, api := range []llm.API{llm.OpenAIChat, llm.AnthropicMessages, llm.OpenAIResponses, llm.GeminiGenerate} {
		if c.APIs[api.Provider()] == api {
			return api
		}
	}
	return ""
}

// Translation is how the manifest says that the gateway translates between the CLI and a model
// of provider ("gemini→anthropic", "anthropic→openai-chat"), "" when the CLI speaks the
// provider's own format.
func (c CLI) Translation(provider string) string {
	api := c.API(provider)
	if api == "" || api.Provider() == provider {
		return ""
	}
	return translate.Name(api) + "→" + translate.Name(translate.Native(provider))
}

// Spec is the sandboxed process that runs r with the CLI installed at in.
func (c CLI) Spec(in Install, r Run) (sandbox.Spec, error) {
	if !slices.Contains(slices.Collect(maps.Values(c.APIs)), r.API) {
		return sandbox.Spec{}, fmt.Errorf("%s cannot send %s requests (it speaks %v)", c.Name, r.API, c.APIs)
	}
	set, err := c.effortFor(r.Effort, r.API)
	if err != nil {
		return sandbox.Spec{}, err
	}
	r.effort = set
	inv := c.invoke(r)
	env := append(append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME={home}", "TERM=dumb", "NO_COLOR=1", "CI=1"}, inv.env...), set.env...)
	spec := sandbox.Spec{
		Project: r.Project, Advisories: r.Advisories, Gateway: r.Gateway, Out: true,
		Binds: append(slices.Clone(in.Binds), r.Binds...), Files: append(append(inv.files, set.files...), r.AdvisoryFiles...),
		Args: append([]string{in.Program}, inv.args...), Env: env,
		Timeout: r.Timeout, Collect: c.ReadBack,
	}
	switch {
	case inv.input != "":
		spec.Input = inv.input
	case !inv.fileOnly:
		spec.Input = r.Prompt
	}
	if r.AgentDir != "" {
		spec.Binds = append(spec.Binds, sandbox.Bind{Name: "agent_dir", Src: r.AgentDir, Dst: AgentDirPath})
		spec.Dir = "{agent_dir}"
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
