// Package agentcli is the agent CLIs as subjects: one kind per row of the harness's table
// (claude-code, codex, opencode, gemini-cli, qwen-code, pi, cline, kilo), and cmd (any program, --agent-cmd). Each runs once per unit in the run's sandbox on
// the case's snapshot (read-only), with the case's OSV records at a fixed path beside it on vex
// cases, and reaches the model only through the unit's recording gateway over the runner's
// metered model: its tokens, cost, turns and tool calls are the run's, whatever it reports.
// Its final answer is parsed as vex-agent's (vex cases) or as the JitVul answer (jit, function).
package agentcli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/harness"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/modelkit"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Version of the agent CLI subjects: their prompts, how the CLIs are run and their answers read.
const Version = "1"

// DefaultWall is one case's time when the run sets no --timeout (VEX-Bench's 10 minutes).
const DefaultWall = 10 * time.Minute

// Config is an agent CLI subject's configuration: the model flags (the gateway's upstream),
// the CLI's program and, for cmd, its command line, and the advisories.
type Config struct {
	modelkit.Config
	CLI        string `json:"cli"`                 // a row of the harness table, or cmd
	AgentBin   string `json:"agent_bin,omitempty"` // --agent-bin: the program ("": the pinned install)
	AgentCmd   string `json:"agent_cmd,omitempty"` // --agent-cmd, cmd only
	AgentDir   string `json:"agent_dir,omitempty"` // --agent-dir, cmd only: shown read-only, its working directory
	Advisories string `json:"advisories,omitempty"`
}

// Validate implements subject.Config.
func (c Config) Validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	if c.CLI == "cmd" {
		if c.AgentCmd == "" {
			return errors.New("subject cmd needs --agent-cmd 'PROGRAM ARGS {prompt_file}'")
		}
		if _, err := harness.SplitCommand(c.AgentCmd); err != nil {
			return err
		}
		if c.AgentDir != "" {
			if fi, err := os.Stat(c.AgentDir); err != nil || !fi.IsDir() {
				return fmt.Errorf("--agent-dir %s is not a directory", c.AgentDir)
			}
		}
		return nil
	}
	cli, ok := harness.CLIs()[c.CLI]
	if !ok {
		return fmt.Errorf("no agent CLI named %q", c.CLI)
	}
	provider, _, err := llm.ParseSpec(c.Model)
	if err != nil {
		return err
	}
	if t := cli.Translation(provider); c.Effort != "" && provider == "anthropic" && t != "" {
		return fmt.Errorf("--effort %s: %s reaches an Anthropic model through the gateway's translation (%s), which carries no effort there: "+
			"Anthropic's extended thinking needs each earlier turn's signed thinking blocks back, which %s's wire format does not hold; leave --effort out, or use a CLI that speaks Anthropic Messages",
			c.Effort, c.CLI, t, c.CLI)
	}
	_, err = cli.EffortSetting(c.Effort, cli.API(provider))
	return err
}

// Programs is the program the subject runs (preflight.ProgramNeeder): --agent-bin when given,
// else the pinned CLI's program, or cmd's command line's.
func (c Config) Programs() []subject.Binary {
	cli, bin, err := locateCLI(c)
	if err != nil {
		return nil // Validate says why
	}
	switch {
	case c.AgentBin != "":
		return []subject.Binary{{Name: bin, Install: "--agent-bin names a program that is not there: give the path of an installed one, or drop --agent-bin for the pinned install (make deps)"}}
	case c.CLI == "cmd":
		return []subject.Binary{{Name: bin, Install: "install " + bin + ", or give its path in --agent-cmd"}}
	}
	return []subject.Binary{{Name: cli.Binary, Install: cli.InstallCommand()}}
}

// NeedsRepository is the kinds' Repository declaration: the CLI works in the case's snapshot
// (a function case with its code needs none).
func (c Config) NeedsRepository(cs *suite.Case) bool {
	return subject.CaseRepo(cs) && (cs.Kind != suite.KindFunction || cs.Code == "")
}

// NeedsAdvisories is the kinds' Advisories declaration: a vex case's CVE, in --advisories (its
// records are put beside the snapshot for the CLI to read; preflight asks for it).
func (c Config) NeedsAdvisories(cs *suite.Case) ([]string, string) {
	if cs.Kind != suite.KindVEX || cs.CVE == "" {
		return nil, ""
	}
	return []string{cs.CVE}, c.Advisories
}

// settings are what the manifest records of c for readers outside the kind: the model's, the
// harness (the CLI at its pinned version), its effort (--effort, or "default": the CLI's own),
// and the prompting strategy only where it applies (jit and function cases: vex cases get
// VEX-Bench's prompt).
func (c Config) settings(cli harness.CLI) manifest.Settings {
	s := c.Config.Settings()
	s.Harness = c.CLI
	if s.Effort == "" {
		s.Effort = "default"
	}
	if cli.Version != "" {
		s.Harness += " " + cli.Version
	}
	if provider, _, err := llm.ParseSpec(c.Model); err == nil && c.CLI != "cmd" {
		if t := cli.Translation(provider); t != "" {
			s.Harness += " (translated: " + t + ")" // the gateway translates its wire format
		}
	}
	s.PromptKinds = []string{string(suite.KindJIT), string(suite.KindFunction)}
	return s
}

// Kinds are the subject kinds: one per row of the harness's table, then cmd.
func Kinds() []subject.Kind[Config, *Subject] {
	cl := harness.CLIs()
	var out []subject.Kind[Config, *Subject]
	for _, name := range harness.Names() {
		c := cl[name]
		out = append(out, kind(name, fmt.Sprintf("%s %s (%s): %s models natively, any other through the gateway's translation", c.Title, c.Version, c.Binary, providers(c)), c))
	}
	return append(out, kind("cmd", "any program as the agent: --agent-cmd 'PROGRAM ARGS {prompt_file}'; the gateway's URL and token in OPENAI_BASE_URL/ANTHROPIC_BASE_URL and OPENAI_API_KEY/ANTHROPIC_API_KEY; its answer is what it prints", harness.CLI{}))
}

// providers names the providers a CLI's models may come from: "OpenAI or Anthropic".
func providers(c harness.CLI) string {
	var names []string
	for _, p := range []struct{ key, name string }{{"openai", "OpenAI"}, {"anthropic", "Anthropic"}, {"gemini", "Gemini"}} {
		if _, ok := c.APIs[p.key]; ok {
			names = append(names, p.name)
		}
	}
	if len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	}
	return strings.Join(names, "")
}

func kind(name, summary string, cli harness.CLI) subject.Kind[Config, *Subject] {
	flags := append(modelkit.Flags(), subject.AdvisoriesFlag(),
		subject.Flag{Name: "agent-bin", Default: "", Usage: "the agent CLI's program (default: the pinned install in vulnbench's npm prefix, as make deps puts it)"})
	// The program is the config's (Config.Programs: --agent-bin, --agent-cmd), not the kind's;
	// bubblewrap: Deps.OpenSandbox names it when missing.
	needs := subject.Needs{Network: true}
	if name == "cmd" {
		flags = append(flags, subject.Flag{Name: "agent-cmd", Default: "", Usage: "the cmd subject's command line: PROGRAM ARGS, {prompt_file} for the prompt's file"},
			subject.Flag{Name: "agent-dir", Default: "", Path: true, Usage: "the cmd subject's files (a script and what it reads), shown read-only in the sandbox as its working directory: --agent-cmd 'python3 my_agent.py {prompt_file}' --agent-dir ./agent"})
	}
	return subject.Kind[Config, *Subject]{
		Name: name, Usage: name, Version: Version,
		Kinds:   []suite.Kind{suite.KindVEX, suite.KindJIT, suite.KindFunction},
		Summary: summary + "; in the sandbox on the case's snapshot (--repos; vex cases' OSV records from --advisories), the model only through vulnbench's gateway; 10 minutes per case unless --timeout",
		Needs:   needs,
		Flags:   flags,
		Configure: func(_ string, v subject.Values) (Config, error) {
			c := Config{Config: modelkit.ConfigOf(v), CLI: name, AgentBin: v.String("agent-bin"), Advisories: v.String("advisories")}
			if name == "cmd" {
				c.AgentCmd, c.AgentDir = v.String("agent-cmd"), v.String("agent-dir")
			}
			return c, nil
		},
		New:        Build,
		Repository: Config.NeedsRepository,
		Advisories: Config.NeedsAdvisories,
		Model:      func(c Config) subject.ModelNeed { return c.Need() },
		Settings:   func(c Config) manifest.Settings { return c.settings(cli) },
		Scrub:      func(c Config) Config { c.Config = c.Scrubbed(); return c },
		Can:        subject.Can{Describe: true, Close: true},
	}
}
