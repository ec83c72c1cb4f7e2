package agentcli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/gateway"
	"github.com/vulnbench/vulnbench/internal/harness"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/prompt"
	"github.com/vulnbench/vulnbench/internal/prompt/vex"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/modelkit"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Subject is one agent CLI on vex, jit and function cases.
type Subject struct {
	modelkit.Base
	cfg     Config
	cli     harness.CLI
	install harness.Install
	api     llm.API
	sb      *sandbox.Sandbox
	db      *advisory.DB // nil: no advisories
	prompts *prompt.Set
}

// Build makes the subject of cfg: its model stack (the gateway's upstream), the CLI located
// (an error naming the install command when it is not there), the sandbox and the advisories.
func Build(cfg Config, d subject.Deps) (*Subject, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cli, bin, err := locateCLI(cfg)
	if err != nil {
		return nil, err
	}
	in, err := cli.Locate(bin)
	if err != nil {
		return nil, fmt.Errorf("subject %s: %w", cfg.CLI, err)
	}
	base, err := modelkit.Open(cfg.Config, d)
	if err != nil {
		return nil, err
	}
	sb, err := d.OpenSandbox()
	if err != nil {
		return nil, fmt.Errorf("subject %s: %w", cfg.CLI, err)
	}
	prompts, err := prompt.New()
	if err != nil {
		return nil, err
	}
	s := &Subject{Base: base, cfg: cfg, cli: cli, install: in, api: cli.APIs[base.Model().Info().Provider], sb: sb, prompts: prompts}
	if cfg.Advisories != "" {
		if s.db, err = advisory.Open(cfg.Advisories); err != nil {
			return nil, fmt.Errorf("subject %s: %w", cfg.CLI, err)
		}
	}
	return s, nil
}

// locateCLI is cfg's CLI and the program to locate: --agent-bin, else the pinned install, or
// for cmd the command line's program.
func locateCLI(cfg Config) (harness.CLI, string, error) {
	if cfg.CLI != "cmd" {
		return harness.CLIs()[cfg.CLI], cfg.AgentBin, nil
	}
	argv, err := harness.SplitCommand(cfg.AgentCmd)
	if err != nil {
		return harness.CLI{}, "", err
	}
	cli, err := harness.Command(argv)
	if err != nil {
		return harness.CLI{}, "", err
	}
	if cfg.AgentBin != "" {
		return cli, cfg.AgentBin, nil
	}
	return cli, argv[0], nil
}

// Describe is what a run's manifest records beyond the config: the CLI, its pinned and found
// versions, the wire format and the sandbox.
func (s *Subject) Describe() map[string]any {
	d := map[string]any{"cli": s.cfg.CLI, "api": string(s.api), "sandbox": string(s.sb.Mode())}
	if s.cfg.Effort != "" {
		d["effort_setting"], _ = s.cli.EffortSetting(s.cfg.Effort, s.api)
	}
	if s.cli.Package != "" {
		d["cli_package"], d["cli_pinned"] = s.cli.Package, s.cli.Version
	}
	if s.install.Version != "" {
		d["cli_version"] = s.install.Version
	}
	return s.Base.Describe(s.db.Describe(d))
}

// Close closes the advisories.
func (s *Subject) Close() error {
	if s.db != nil {
		return s.db.Close()
	}
	return nil
}

// Assess implements subject.Subject: one run of the CLI in the sandbox on the case's snapshot,
// its model the unit's metered one behind a gateway.
func (s *Subject) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	c := u.Case
	wall := env.Limits.Wall
	if wall == 0 {
		wall = DefaultWall
	}
	project, err := s.project(ctx, c, env)
	if err != nil {
		return verdict.Verdict{}, err
	}
	tmp, err := os.MkdirTemp("", "vulnbench-agent-")
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("subject %s: %w", s.cfg.CLI, err)
	}
	defer os.RemoveAll(tmp)
	adv, err := s.advisories(c, tmp)
	if err != nil {
		return verdict.Verdict{}, err
	}
	text, err := s.prompt(c, project != "", adv)
	if err != nil {
		return verdict.Verdict{}, err
	}
	raw, ok := llm.AsRaw(s.For(env))
	if !ok {
		return verdict.Verdict{}, fmt.Errorf("subject %s: the unit's model takes no raw requests", s.cfg.CLI)
	}
	gw, err := gateway.Start(gateway.Config{Model: raw, Recorder: env.Trace, Repeat: u.Repeat, Prices: pricesOf(s.Prices())})
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("subject %s: %w", s.cfg.CLI, err)
	}
	defer gw.Close()
	out := filepath.Join(tmp, "out")
	if err := os.Mkdir(out, 0o700); err != nil {
		return verdict.Verdict{}, fmt.Errorf("subject %s: %w", s.cfg.CLI, err)
	}
	spec, err := s.cli.Spec(s.install, harness.Run{Prompt: text, Model: s.Base.Model().Info().Model, API: s.api, Token: gw.Token(),
		Project: project, Advisories: adv, Gateway: gw.Socket(), Timeout: wall, OutDir: out, Effort: s.cfg.Effort})
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("subject %s: %w", s.cfg.CLI, err)
	}
	res, runErr := s.sb.Run(ctx, spec)
	return s.conclude(ctx, c, res, runErr, out, gw, env.Trace)
}

func pricesOf(p llm.Prices) *llm.Prices { return &p }

// conclude reads the CLI's answer into a verdict. A fault of the gateway's model (a rejected
// key, the run's budget) is the attempt's error; a CLI that ran past its time or printed no
// answer is failed, with what it printed kept.
func (s *Subject) conclude(ctx context.Context, c *suite.Case, res sandbox.Result, runErr error, out string, gw *gateway.Gateway, rec trace.Recorder) (verdict.Verdict, error) {
	st := gw.Stats()
	usage := verdict.Usage{ToolCalls: st.ToolCalls}
	if f := gw.Fault(); f != nil {
		return verdict.Verdict{Usage: usage}, modelkit.Fault(f)
	}
	if ctx.Err() != nil {
		return verdict.Verdict{Usage: usage}, fmt.Errorf("subject %s: %w", s.cfg.CLI, ctx.Err())
	}
	rec.Record(trace.Event{Kind: trace.Note, Name: s.cfg.CLI, LatencyMS: res.Duration.Milliseconds(),
		Content: fmt.Sprintf("%s exited %d after %s: %d model calls, %d tool calls", s.cfg.CLI, res.ExitCode, res.Duration.Round(1e6), st.Calls, st.ToolCalls)})
	if runErr != nil && !errors.Is(runErr, sandbox.ErrTimeout) && !errors.Is(runErr, sandbox.ErrOutputLimit) {
		return verdict.Verdict{Usage: usage}, fmt.Errorf("subject %s: %w", s.cfg.CLI, runErr)
	}
	answer, aerr := s.cli.Answer(res, out)
	var v verdict.Verdict
	switch {
	case runErr != nil:
		v = verdict.Verdict{Status: verdict.Failed, Reason: runErr.Error(), Raw: rawOf(res)}
	case aerr != nil:
		v = verdict.Verdict{Status: verdict.Failed, Reason: aerr.Error(), Raw: rawOf(res)}
	case c.Kind == suite.KindVEX:
		v = vex.Verdict(answer)
	default:
		v = modelkit.VerdictOf(answer, nil)
	}
	v.Usage.ToolCalls = usage.ToolCalls
	return v, nil
}

// rawOf is what the CLI printed, bounded, for a verdict's Raw.
func rawOf(res sandbox.Result) string {
	s := string(res.Stdout)
	if strings.TrimSpace(s) == "" {
		s = string(res.Stderr)
	}
	const max = 64 << 10
	if len(s) > max {
		s = s[len(s)-max:]
	}
	return strings.ToValidUTF8(s, "")
}
