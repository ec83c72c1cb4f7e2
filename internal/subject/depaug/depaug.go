// Package depaug is JitVul's Dep-Aug LLM: one prompt with the target function and its top-k
// callers and callees (k = 5), ranked by the Jaccard similarity of their token sets to the target
// (VulEval's method), taken from the code graph of the case's own snapshot.
package depaug

import (
	"context"
	"fmt"

	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/prompt"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/jitctx"
	"github.com/vulnbench/vulnbench/internal/subject/modelkit"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Version of the depaug subject.
const Version = "2"

// DefaultK is the number of callers and of callees shown (the paper's top-5).
const DefaultK = 5

// Config is the depaug subject's configuration: the model flags and k.
type Config struct {
	modelkit.Config
	K int `json:"k"`
	// Context is where the callers and callees come from (--context): auto, live or precomputed.
	Context jitctx.Mode `json:"context,omitempty"`
}

// Validate implements subject.Config.
func (c Config) Validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	if c.K < 1 {
		return fmt.Errorf("depaug: k %d must be at least 1", c.K)
	}
	_, err := jitctx.ParseMode(string(c.Context))
	return err
}

// Kind is the depaug subject kind.
func Kind() subject.Kind[Config, *Subject] {
	return subject.Kind[Config, *Subject]{
		Name: "depaug", Usage: "depaug", Kinds: []suite.Kind{suite.KindJIT}, Version: Version,
		Summary: "a model on a jit case's function plus its top-5 callers and callees by token Jaccard similarity, from the case's snapshot (--repos)",
		Needs:   subject.Needs{Network: true},
		Flags:   append(modelkit.Flags(), jitctx.Flag()),
		Configure: func(_ string, v subject.Values) (Config, error) {
			return Config{Config: modelkit.ConfigOf(v), K: DefaultK, Context: jitctx.Mode(v.String("context"))}, nil
		},
		New: Build,
		// Live context reads the snapshot's code graph; auto reads it when the case has one.
		Repository: func(c Config, cs *suite.Case) bool { return c.Context == jitctx.Live && subject.CaseRepo(cs) },
		Model:      func(c Config) subject.ModelNeed { return c.Need() },
		Settings:   func(c Config) manifest.Settings { return c.Config.Settings() },
		Scrub:      func(c Config) Config { c.Config = c.Scrubbed(); return c },
		Can:        subject.Can{Describe: true},
	}
}

// Subject asks a model about each jit case with its dependency context.
type Subject struct {
	modelkit.Base
	k        int
	context  jitctx.Mode
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
	return &Subject{Base: base, k: cfg.K, context: cfg.Context, prompts: prompts, strategy: cfg.Strategy()}, nil
}

// Describe is what a run's manifest records beyond the config.
func (s *Subject) Describe() map[string]any {
	return s.Base.Describe(map[string]any{"prompt": string(s.strategy), "prompt_hash": s.prompts.HashMode(s.strategy, prompt.DepAug),
		"templates": s.prompts.Hashes(), "k": s.k, "context": string(s.context)})
}

// Context returns the target's code and its top-k callers and callees in ix.
func Context(ix query.Graph, function string, near query.Near, k int) (target string, callers, callees []prompt.Related, err error) {
	ctx, err := ix.TopK(function, near, k)
	if err != nil {
		return "", nil, nil, err
	}
	conv := func(rs []query.Related) []prompt.Related {
		out := make([]prompt.Related, len(rs))
		for i, r := range rs {
			out[i] = prompt.Related{Name: r.Func.QualName, File: r.Func.File, StartLine: r.Func.StartLine, EndLine: r.Func.EndLine, Code: r.Text}
			if out[i].Name == "" {
				out[i].Name = r.Func.Name
			}
		}
		return out
	}
	return ctx.Target.Text, conv(ctx.Callers), conv(ctx.Callees), nil
}

// PrecomputedContext returns the top-k callers and callees of function in a case's precomputed
// context, ranked against code as Context ranks the code graph's.
func PrecomputedContext(x *jitctx.Context, function, code string, k int) (callers, callees []prompt.Related) {
	conv := func(rs []jitctx.Related) []prompt.Related {
		out := make([]prompt.Related, len(rs))
		for i, r := range rs {
			out[i] = prompt.Related{Name: r.Name, Code: r.Code}
		}
		return out
	}
	cs, ds := x.TopK(function, code, k)
	return conv(cs), conv(ds)
}

// Assess implements subject.Subject: one call with the context from the case's snapshot.
func (s *Subject) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	c := u.Case
	if c.Target == nil || c.Target.Function == "" {
		return verdict.Verdict{}, fmt.Errorf("subject depaug: case %s has no target.function", c.ID)
	}
	mode, _ := jitctx.ParseMode(string(s.context))
	src, err := jitctx.Open(ctx, mode, "depaug", c, env)
	if err != nil {
		return verdict.Verdict{}, err
	}
	var callers, callees []prompt.Related
	if src.Mode == jitctx.Precomputed {
		if c.Code == "" {
			return verdict.Verdict{}, fmt.Errorf("subject depaug --context precomputed: case %s has no code", c.ID)
		}
		callers, callees = PrecomputedContext(src.Pre, c.Target.Function, c.Code, s.k)
	} else {
		var target string
		target, callers, callees, err = Context(src.Graph, c.Target.Function, query.Near{File: c.Target.File, Line: c.Target.Line}, s.k)
		if err != nil {
			return verdict.Verdict{}, fmt.Errorf("subject depaug: case %s: its snapshot: %w", c.ID, err)
		}
		if c.Code == "" {
			cc := *c
			cc.Code = target
			c = &cc
		}
	}
	msgs, err := s.prompts.RenderDepAug(s.strategy, c, callers, callees)
	if err != nil {
		return verdict.Verdict{}, err
	}
	req := llm.Request{Temperature: s.Temperature, MaxTokens: s.MaxTokens, Repeat: u.Repeat}
	for _, m := range msgs {
		req.Messages = append(req.Messages, llm.Message{Role: m.Role, Content: m.Content})
	}
	resp, err := s.For(env).Complete(ctx, req)
	if err != nil {
		return verdict.Verdict{}, modelkit.Fault(err)
	}
	return modelkit.VerdictOf(resp.Text, resp.Logprobs), nil
}
