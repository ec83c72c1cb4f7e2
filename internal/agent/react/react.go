package react

import (
	"context"
	"fmt"

	"github.com/vulnbench/vulnbench/internal/agent"
	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/prompt"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/jitctx"
	"github.com/vulnbench/vulnbench/internal/subject/llmsubj"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Version of the react subject: its prompts, tools, observations and loop.
const Version = "2"

// Config is the react subject's configuration: the llm subject's flags and the agent's.
type Config struct {
	llmsubj.Config
	ToolProtocol string `json:"tool_protocol"`
	// MaxSteps caps the model calls of an attempt when the run's --max-steps is 0 (the agent's
	// default, agent.DefaultMaxSteps); a run's --max-steps replaces it.
	MaxSteps   int  `json:"max_steps"`
	ExtraTools bool `json:"extra_tools,omitempty"`
	// Context is where the tools answer from (--context): auto, live or precomputed.
	Context jitctx.Mode `json:"context,omitempty"`
}

// Validate implements subject.Config.
func (c Config) Validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	if c.MaxSteps < 0 {
		return fmt.Errorf("the agent's step cap %d is negative", c.MaxSteps)
	}
	if _, err := jitctx.ParseMode(string(c.Context)); err != nil {
		return err
	}
	_, err := agent.ParseProtocol(c.ToolProtocol)
	return err
}

// Subject is the ReAct agent on jit cases.
type Subject struct {
	cfg      Config
	model    llm.Model
	prices   llm.Prices
	prompts  *prompt.Set
	strategy prompt.Strategy
	proto    agent.Protocol
}

// New makes the subject on model.
func New(cfg Config, model llm.Model, prices llm.Prices) (*Subject, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	st, _ := prompt.ParseStrategy(cfg.Prompt)
	proto, _ := agent.ParseProtocol(cfg.ToolProtocol)
	prompts, err := prompt.New()
	if err != nil {
		return nil, err
	}
	return &Subject{cfg: cfg, model: model, prices: prices, prompts: prompts, strategy: st, proto: proto}, nil
}

// Build makes the subject of cfg with its model stack.
func Build(cfg Config, cache llm.CacheStore, getenv func(string) string) (*Subject, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, prices, err := llmsubj.Stack(cfg.Config, cache, getenv)
	if err != nil {
		return nil, err
	}
	return New(cfg, m, prices)
}

// Model implements subject.Modeled.
func (s *Subject) Model() llm.Model { return s.model }

// Prices implements subject.Modeled.
func (s *Subject) Prices() llm.Prices { return s.prices }

// Describe is what a run's manifest records beyond the config.
func (s *Subject) Describe() map[string]any {
	info := s.model.Info()
	tools := []string{"get_callers", "get_callees", "get_definition"}
	if s.cfg.ExtraTools {
		tools = append(tools, "read_file", "search")
	}
	return map[string]any{"provider": info.Provider, "model": info.Model, "base_url_host": info.BaseHost,
		"prompt": string(s.strategy), "prompt_hash": s.prompts.HashMode(s.strategy, prompt.Agent), "templates": s.prompts.Hashes(),
		"tool_protocol": string(s.proto), "tools": tools, "temperature": s.cfg.Temperature, "context": string(s.cfg.Context)}
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
	var tools []agent.Tool
	if src.Mode == jitctx.Precomputed {
		if c.Code == "" {
			return verdict.Verdict{}, fmt.Errorf("subject react --context precomputed: case %s has no code", c.ID)
		}
		tools = PrecomputedTools(src.Pre, c.Target.Function, c.Code)
	} else {
		ix := src.Graph
		near := query.Near{File: c.Target.File, Line: c.Target.Line}
		tools = GraphTools(ix, near)
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
		tools = append(tools, FileTools(snap)...)
	}
	msgs, err := s.prompts.RenderAgent(s.strategy, c)
	if err != nil {
		return verdict.Verdict{}, err
	}
	model := s.model
	if env.Model != nil {
		model = env.Model
	}
	steps := s.cfg.MaxSteps
	if env.Limits.Steps > 0 {
		steps = env.Limits.Steps
	}
	l := agent.Loop{Model: model, Tools: tools, Protocol: s.proto, System: msgs[0].Content, User: msgs[1].Content,
		MaxSteps: steps, Check: check, Temperature: s.cfg.Temperature, MaxTokens: s.cfg.MaxTokens, Repeat: u.Repeat, Trace: env.Trace}
	res, err := l.Run(ctx)
	if err != nil {
		return verdict.Verdict{Usage: verdict.Usage{ToolCalls: res.ToolCalls}}, llmsubj.Fault(err)
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
	v := llmsubj.VerdictOf(text, nil)
	if res.Stopped != nil {
		if v.Status == verdict.OK {
			v.Explanation += fmt.Sprintf(" [the agent stopped: %v; this is its last answer]", res.Stopped)
		} else {
			v = verdict.Verdict{Status: verdict.Failed, Reason: fmt.Sprintf("the agent stopped without an answer: %v", res.Stopped), Raw: text}
		}
	}
	v.Usage.ToolCalls = res.ToolCalls
	return v
}
