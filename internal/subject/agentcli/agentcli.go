package agentcli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

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
	s := &Subject{Base: base, cfg: cfg, cli: cli, install: in, api: cli.API(base.Model().Info().Provider), sb: sb, prompts: prompts}
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
	project, err := s.project(ctx, c, env)
	if err != nil {
		return verdict.Verdict{}, err
	}
	adv, err := s.advisories(c)
	if err != nil {
		return verdict.Verdict{}, err
	}
	text, err := s.prompt(c, project != "", len(adv) > 0)
	if err != nil {
		return verdict.Verdict{}, err
	}
	raw, ok := llm.AsRaw(s.For(env))
	if !ok {
		return verdict.Verdict{}, fmt.Errorf("subject %s: the unit's model takes no raw requests", s.cfg.CLI)
	}
	dir, release, err := s.sb.TempDir()
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("subject %s: %w", s.cfg.CLI, err)
	}
	defer release()
	gw, err := gateway.Start(gateway.Config{Model: raw, Repeat: u.Repeat, Dir: dir})
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("subject %s: %w", s.cfg.CLI, err)
	}
	defer gw.Close()
	spec, err := s.cli.Spec(s.install, harness.Run{Prompt: text, Model: s.Base.Model().Info().Model, API: s.api, Token: gw.Token(),
		Project: project, AdvisoryFiles: adv, Gateway: gw.Socket(), Timeout: wall(ctx, env.Limits.Wall), Effort: s.cfg.Effort,
		AgentDir: absDir(s.cfg.AgentDir)})
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("subject %s: %w", s.cfg.CLI, err)
	}
	res, runErr := s.sb.Run(ctx, spec)
	return s.conclude(ctx, c, res, runErr, gw, env.Trace)
}

// concludeTime is what a unit keeps of its time to end its CLI itself and read back what it
// left, before the runner's --timeout would abandon it: so that a timed-out CLI's output and
// trace are kept.
const concludeTime = 5 * time.Second

// wall is the CLI's time: the unit's (10 minutes by default), ending concludeTime (or a tenth
// of the unit's time, when shorter) before the context's deadline.
func wall(ctx context.Context, w time.Duration) time.Duration {
	if w == 0 {
		w = DefaultWall
	}
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		w = min(w, left-min(concludeTime, left/10))
	}
	return max(w, time.Second)
}

// conclude reads the CLI's answer into a verdict. A fault of the gateway's model (a rejected
// key, the budget) is the attempt's error, and so is a sandbox limit reached (its disk, its
// memory); a CLI that ran past its time or printed no answer is failed, with what it printed
// kept. Every file the sandbox refused to read back is named in a note.
func (s *Subject) conclude(ctx context.Context, c *suite.Case, res sandbox.Result, runErr error, gw *gateway.Gateway, rec trace.Recorder) (verdict.Verdict, error) {
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
	for _, f := range res.Files {
		if errors.Is(f.Err, sandbox.ErrRefused) {
			rec.Record(trace.Event{Kind: trace.Note, Name: s.cfg.CLI, Content: f.Err.Error()})
		}
	}
	if runErr != nil && (errors.Is(runErr, sandbox.ErrDiskLimit) || errors.Is(runErr, sandbox.ErrMemoryLimit) ||
		!errors.Is(runErr, sandbox.ErrTimeout) && !errors.Is(runErr, sandbox.ErrOutputLimit)) {
		// A limit of the sandbox (disk, memory: even when the timeout came after, as a CLI that
		// filled its disk may hang until it) or a failure to run: the attempt's error, with what
		// the CLI printed in the trace.
		rec.Record(trace.Event{Kind: trace.Note, Name: s.cfg.CLI, Content: "output: " + rawOf(res)})
		return verdict.Verdict{Usage: usage, Raw: rawOf(res)}, fmt.Errorf("subject %s: %w", s.cfg.CLI, runErr)
	}
	answer, aerr := s.cli.Answer(res)
	var v verdict.Verdict
	switch {
	case runErr != nil:
		rec.Record(trace.Event{Kind: trace.Note, Name: s.cfg.CLI, Content: "output until it was stopped: " + rawOf(res)})
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

// absDir is dir made absolute ("" stays "").
func absDir(dir string) string {
	if dir == "" {
		return ""
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}
