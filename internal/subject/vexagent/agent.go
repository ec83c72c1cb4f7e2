// Package vexagent is the VEX-Bench agent (vex-agent): the agent loop with its tools over the
// case's snapshot, its code graph and the offline advisories, its prompt (the twelve ordered
// categories) and the parser of its answer.
package vexagent

import (
	"context"
	"fmt"
	"time"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/agent"
	"github.com/vulnbench/vulnbench/internal/agent/tools"
	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/prompt/vex"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/modelkit"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Version of the vex-agent subject: its prompt, tools, observations, parser and loop.
const Version = "1"

// DefaultWall is the time limit of one case when the run sets none (VEX-Bench's 10 minutes).
const DefaultWall = 10 * time.Minute

// DefaultMaxSteps is the agent's step cap when the run's --max-steps is 0.
const DefaultMaxSteps = 40

// Config is the vex-agent's configuration: the model flags, the agent's and the advisories.
type Config struct {
	modelkit.Config
	modelkit.AgentConfig
	Advisories string `json:"advisories,omitempty"`
}

// NeedsRepository is the kind's Repository declaration: the agent reads the case's snapshot.
func (c Config) NeedsRepository(cs *suite.Case) bool { return subject.CaseRepo(cs) }

// NeedsAdvisories is the kind's Advisories declaration: the case's CVE, in --advisories (which
// preflight asks for when it is not given: get_advisory answers from it).
func (c Config) NeedsAdvisories(cs *suite.Case) ([]string, string) {
	return subject.CaseAdvisory(cs), c.Advisories
}

// Validate implements subject.Config.
func (c Config) Validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	return c.AgentConfig.Validate()
}

// Kind is the vex-agent subject kind.
func Kind() subject.Kind[Config, *Subject] {
	return subject.Kind[Config, *Subject]{
		Name: "vex-agent", Usage: "vex-agent", Kinds: []suite.Kind{suite.KindVEX}, Version: Version,
		Summary: "the VEX-Bench agent: list_dir, read_file, search, find_dependency, get_advisory and the code graph over the case's snapshot (--repos, --advisories); answers one of the twelve ordered categories; 10 minutes per case unless --timeout",
		Needs:   subject.Needs{Network: true},
		Flags:   append(modelkit.Flags(), modelkit.ToolProtocolFlag(), subject.AdvisoriesFlag()),
		Configure: func(_ string, v subject.Values) (Config, error) {
			return Config{Config: modelkit.ConfigOf(v), AgentConfig: modelkit.AgentConfigOf(v, DefaultMaxSteps), Advisories: v.String("advisories")}, nil
		},
		New:        Build,
		Repository: Config.NeedsRepository,
		Advisories: Config.NeedsAdvisories,
		Model:      func(c Config) subject.ModelNeed { return c.Need() },
		Steps:      func(c Config, l subject.Limits) int { return c.StepCap(l) },
		// The agent's prompt is VEX-Bench's: no prompting strategy applies.
		Settings: func(c Config) manifest.Settings { s := c.Config.Settings(); s.Prompt = ""; return s },
		Scrub:    func(c Config) Config { c.Config = c.Scrubbed(); return c },
		Can:      subject.Can{Describe: true, Close: true},
	}
}

// Subject is the VEX-Bench agent on vex cases.
type Subject struct {
	modelkit.Base
	agent modelkit.AgentConfig
	db    *advisory.DB // nil: no advisories
}

// Build makes the subject of cfg with its model stack and its advisories.
func Build(cfg Config, d subject.Deps) (*Subject, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	base, err := modelkit.Open(cfg.Config, d)
	if err != nil {
		return nil, err
	}
	s := &Subject{Base: base, agent: cfg.AgentConfig}
	if cfg.Advisories != "" {
		if s.db, err = advisory.Open(cfg.Advisories); err != nil {
			return nil, fmt.Errorf("subject vex-agent: %w", err)
		}
	}
	return s, nil
}

// Describe is what a run's manifest records beyond the config.
func (s *Subject) Describe() map[string]any {
	return s.Base.Describe(s.db.Describe(map[string]any{"tool_protocol": string(s.agent.Protocol()),
		"tools": []string{"list_dir", "read_file", "search", "find_dependency", "get_advisory", "get_callers", "get_callees", "get_definition"}}))
}

// Close closes the advisories.
func (s *Subject) Close() error {
	if s.db != nil {
		return s.db.Close()
	}
	return nil
}

// Tools are the agent's tools over snap and db, but the code graph's: list_dir, read_file,
// search, find_dependency and get_advisory.
func Tools(snap *snapshot.Snapshot, db *advisory.DB) []agent.Tool {
	return []agent.Tool{tools.ListDir(snap), tools.ReadFile(snap), tools.Search(snap), tools.FindDependency(snap), tools.GetAdvisory(db)}
}

// Assess implements subject.Subject: the loop over the case's snapshot, its code graph when one
// can be built, and the advisories.
func (s *Subject) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	c := u.Case
	if c.CVE == "" {
		return verdict.Verdict{}, fmt.Errorf("subject vex-agent: case %s has no cve", c.ID)
	}
	if env.Limits.Wall == 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultWall)
		defer cancel()
	}
	snap, err := env.Snapshot(ctx)
	if err != nil {
		return verdict.Verdict{}, subject.NeedsRepo("vex-agent", c, err)
	}
	ts := Tools(snap, s.db)
	if ix, err := env.Graph(ctx); err == nil {
		ts = append(ts, tools.Graph(ix, query.Near{})...)
	}
	l := agent.Loop{Model: s.For(env), Tools: ts, Protocol: s.agent.Protocol(), System: vex.SystemPrompt(), User: vex.UserPrompt(c),
		MaxSteps: s.agent.Steps(env), Check: func(final string) error { _, _, err := vex.ParseAnswer(final); return err },
		Temperature: s.Temperature, MaxTokens: s.MaxTokens, Repeat: u.Repeat, Trace: env.Trace}
	res, err := l.Run(ctx)
	if err != nil {
		return verdict.Verdict{Usage: verdict.Usage{ToolCalls: res.ToolCalls}}, modelkit.Fault(err)
	}
	return Conclude(res), nil
}

// Conclude turns the loop's result into a verdict: the final answer parsed; when a limit stopped
// the loop, the last reply's answer if it holds one, else failed.
func Conclude(res agent.Result) verdict.Verdict {
	text := res.Answer()
	v := vex.Verdict(text)
	switch {
	case v.Status == verdict.Failed && res.Stopped != nil:
		v.Reason = verdict.StoppedPrefix + fmt.Sprintf("%v (no answer: a failed answer, counted)", res.Stopped)
	case res.Stopped != nil:
		v.Explanation += fmt.Sprintf(" [the agent stopped: %v; this is its last answer]", res.Stopped)
	}
	v.Usage.ToolCalls = res.ToolCalls
	return v
}
