// Package react is JitVul's ReAct agent: the agent loop with the paper's three tools,
// get_callers, get_callees and get_definition, answered from the code graph of the case's own
// snapshot (R_intro for a vul case, R_fix for a ben case) or from a case's precomputed context,
// and optionally read_file and search over that snapshot.
package react

import (
	"context"
	"fmt"

	"github.com/vulnbench/vulnbench/internal/agent"
	"github.com/vulnbench/vulnbench/internal/agent/tools"
	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/prompt"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/jitctx"
	"github.com/vulnbench/vulnbench/internal/subject/modelkit"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Version of the react subject: its prompts, tools, observations and loop.
const Version = "2"

// Config is the react subject's configuration: the model flags and the agent's.
type Config struct {
	modelkit.Config
	modelkit.AgentConfig
	ExtraTools bool `json:"extra_tools,omitempty"`
	// Context is where the tools answer from (--context): auto, live or precomputed.
	Context jitctx.Mode `json:"context,omitempty"`
}

// NeedsRepository is the kind's Repository declaration: the extra tools and live context read
// the case's snapshot.
func (c Config) NeedsRepository(cs *suite.Case) bool {
	return (c.ExtraTools || c.Context == jitctx.Live) && subject.CaseRepo(cs)
}

// Validate implements subject.Config.
func (c Config) Validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	if _, err := jitctx.ParseMode(string(c.Context)); err != nil {
		return err
	}
	return c.AgentConfig.Validate()
}

// Kind is the react subject kind.
func Kind() subject.Kind[Config, *Subject] {
	return subject.Kind[Config, *Subject]{
		Name: "react", Usage: "react", Kinds: []suite.Kind{suite.KindJIT}, Version: Version,
		Summary: "a ReAct agent with get_callers, get_callees and get_definition over the case's snapshot (--repos); --max-steps defaults to 15 here",
		Needs:   subject.Needs{Network: true},
		Flags: append(modelkit.Flags(), modelkit.ToolProtocolFlag(),
			subject.Flag{Name: "agent-extra-tools", Default: false, Usage: "also offer read_file and search over the snapshot (off: the paper's three tools)"},
			jitctx.Flag()),
		Configure: func(_ string, v subject.Values) (Config, error) {
			return Config{Config: modelkit.ConfigOf(v), AgentConfig: modelkit.AgentConfigOf(v, agent.DefaultMaxSteps),
				ExtraTools: v.Bool("agent-extra-tools"), Context: jitctx.Mode(v.String("context"))}, nil
		},
		New:        Build,
		Repository: Config.NeedsRepository,
		Model:      func(c Config) subject.ModelNeed { return c.Need() },
		Steps:      func(c Config, l subject.Limits) int { return c.StepCap(l) },
		Settings:   func(c Config) manifest.Settings { return c.Config.Settings() },
		Scrub:      func(c Config) Config { c.Config = c.Scrubbed(); return c },
		Can:        subject.Can{Describe: true},
	}
}

// Subject is the ReAct agent on jit cases.
type Subject struct {
	modelkit.Base
	cfg      Config
	prompts  *prompt.Set
	strategy prompt.Strategy
}

// Build makes the subject of cfg with its model stack.
func Build(cfg Config, d subject.Deps) (*Subject, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	base, err := modelkit.Open(cfg.Config, d)
	if err != nil {
		return nil, err
	}
	prompts, err := prompt.New()
	if err != nil {
		return nil, err
	}
	return &Subject{Base: base, cfg: cfg, prompts: prompts, strategy: cfg.Strategy()}, nil
}

// Describe is what a run's manifest records beyond the config.
func (s *Subject) Describe() map[string]any {
	names := []string{"get_callers", "get_callees", "get_definition"}
	if s.cfg.ExtraTools {
		names = append(names, "read_file", "search")
	}
	return s.Base.Describe(map[string]any{"prompt": string(s.strategy), "prompt_hash": s.prompts.HashMode(s.strategy, prompt.Agent),
		"templates": s.prompts.Hashes(), "tool_protocol": string(s.cfg.Protocol()), "tools": names, "context": string(s.cfg.Context)})
}

// Assess implements subject.Subject: the agent loop over the code graph of the case's snapshot.
func (s *Subject) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	c := u.Case
	if c.Target == nil || c.Target.Function == "" {
		return verdict.Verdict{}, fmt.Errorf("subject react: case %s has no target.function", c.ID)
	}
	mode, _ := jitctx.ParseMode(string(s.cfg.Context))
	src, err := jitctx.Open(ctx, mode, "react", c, env)
	if err != nil {
		return verdict.Verdict{}, err
	}
	var ts []agent.Tool
	if src.Mode == jitctx.Precomputed {
		if c.Code == "" {
			return verdict.Verdict{}, fmt.Errorf("subject react --context precomputed: case %s has no code", c.ID)
		}
		ts = PrecomputedTools(src.Pre, c.Target.Function, c.Code)
	} else {
		ix := src.Graph
		near := query.Near{File: c.Target.File, Line: c.Target.Line}
		ts = tools.Graph(ix, near)
		if c.Code == "" { // the target's code from the snapshot
			defs, err := ix.Definition(c.Target.Function, near)
			if err != nil || len(defs) == 0 {
				return verdict.Verdict{}, fmt.Errorf("subject react: case %s has no code and its snapshot defines no %s", c.ID, c.Target.Function)
			}
			cc := *c
			cc.Code = defs[0].Text
			c = &cc
		}
	}
	if s.cfg.ExtraTools {
		snap, err := env.Snapshot(ctx)
		if err != nil {
			return verdict.Verdict{}, subject.NeedsRepo("react", c, err)
		}
		ts = append(ts, tools.ReadFile(snap), tools.Search(snap))
	}
	msgs, err := s.prompts.RenderAgent(s.strategy, c)
	if err != nil {
		return verdict.Verdict{}, err
	}
	l := agent.Loop{Model: s.For(env), Tools: ts, Protocol: s.cfg.Protocol(), System: msgs[0].Content, User: msgs[1].Content,
		MaxSteps: s.cfg.Steps(env), Check: check, Temperature: s.cfg.Temperature, MaxTokens: s.cfg.MaxTokens, Repeat: u.Repeat, Trace: env.Trace}
	res, err := l.Run(ctx)
	if err != nil {
		return verdict.Verdict{Usage: verdict.Usage{ToolCalls: res.ToolCalls}}, modelkit.Fault(err)
	}
	return Conclude(res), nil
}

func check(final string) error {
	_, err := prompt.Parse(final)
	return err
}

// Conclude turns a loop's result into a verdict: its final answer parsed; when a limit stopped it,
// the answer of its last reply if that holds one, else a failed verdict naming the limit.
func Conclude(res agent.Result) verdict.Verdict {
	text := res.Answer()
	v := modelkit.VerdictOf(text, nil)
	if res.Stopped != nil {
		if v.Status == verdict.OK {
			v.Explanation += fmt.Sprintf(" [the agent stopped: %v; this is its last answer]", res.Stopped)
		} else {
			v = verdict.Stopped(fmt.Sprintf("%v (no answer: a failed answer, counted)", res.Stopped), verdict.Usage{})
			v.Raw = text
		}
	}
	v.Usage.ToolCalls = res.ToolCalls
	return v
}
