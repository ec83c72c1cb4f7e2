// Package llmsubj is the plain-LLM subject: one prompt per case (vanilla, CoT, few-shot or both),
// one model call, the answer parsed from a small JSON object or the @@VULNERABLE@@ markers.
package llmsubj

import (
	"context"

	"github.com/vulnbench/vulnbench/internal/cvss"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/prompt"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/modelkit"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Version of the llm subject: the request it sends and how it reads the answer. 3 asks appsec
// cases for the full structured answer (a JSON schema where the model takes one).
const Version = "3"

// Config is the llm subject's configuration: the model flags, with defaults applied.
type Config struct {
	modelkit.Config
	// Batch sends the calls through the provider's batch API (run --batch).
	Batch bool `json:"batch,omitempty"`
}

// Kind is the llm subject kind.
func Kind() subject.Kind[Config, *Subject] {
	return subject.Kind[Config, *Subject]{
		Name: "llm", Usage: "llm", Kinds: []suite.Kind{suite.KindFunction, suite.KindJIT, suite.KindAppSec}, Version: Version,
		Summary: "a model (--model PROVIDER:MODEL, --prompt vanilla|cot|fs|cot+fs) on the case's code; score from logprobs, else the stated confidence",
		Needs:   subject.Needs{Network: true}, Flags: append(modelkit.Flags(), subject.Flag{Name: "batch", Default: false,
			Usage: "send the model calls through the provider's batch API (OpenAI's Batch API, Anthropic's Message Batches) at its batch prices; results within 24 h; a killed run resumes polling the same batches"}),
		Configure: func(_ string, v subject.Values) (Config, error) {
			return Config{modelkit.ConfigOf(v), v.Bool("batch")}, nil
		},
		New:   Build,
		Model: func(c Config) subject.ModelNeed { return c.Need() },
		Settings: func(c Config) manifest.Settings {
			s := c.Config.Settings()
			s.Batch = c.Batch
			return s
		},
		Scrub: func(c Config) Config { c.Config = c.Scrubbed(); return c },
		Can:   subject.Can{Describe: true, Requests: true, Batch: true},
	}
}

// Subject asks a model about each case. Logprobs are asked for from providers that return them
// (OpenAI-style); they give the verdict a continuous score.
type Subject struct {
	modelkit.Base
	prompts  *prompt.Set
	strategy prompt.Strategy
}

// Build makes the subject of cfg: the model stack (cache, retries, limits, provider), the prices
// and the prompts.
func Build(cfg Config, d subject.Deps) (*Subject, error) {
	base, err := modelkit.Open(cfg.Config, d)
	if err != nil {
		return nil, err
	}
	prompts, err := prompt.New()
	if err != nil {
		return nil, err
	}
	return &Subject{Base: base, prompts: prompts, strategy: cfg.Strategy()}, nil
}

// Describe is what a run's manifest records beyond the config (never a key).
func (s *Subject) Describe() map[string]any {
	d := s.Base.Describe(map[string]any{"prompt": string(s.strategy), "prompt_hash": s.prompts.Hash(s.strategy),
		"templates": s.prompts.Hashes(), "max_tokens": s.MaxTokens, "logprobs": s.logprobs()})
	if _, ok := s.Prices().Lookup(s.Model().Info().Spec()); !ok {
		d["priced"] = false
	}
	return d
}

// logprobs reports whether the model returns logprobs: OpenAI-style APIs do, unless the price
// table says the model takes none (OpenAI's reasoning models).
func (s *Subject) logprobs() bool {
	info := s.Model().Info()
	return info.Provider == "openai" && s.Prices().Capabilities(info.Spec()).Logprobs
}

// Assess implements subject.Subject: one call through the unit's metered model. Usage and cost
// are the meter's; a fault that every case would hit stops the run.
func (s *Subject) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	req, err := s.Request(u)
	if err != nil {
		return verdict.Verdict{}, err
	}
	resp, err := s.For(env).Complete(ctx, req)
	if err != nil {
		return verdict.Verdict{}, modelkit.Fault(err)
	}
	if u.Case != nil && u.Case.Kind == suite.KindAppSec {
		return AppSecVerdictOf(resp.Text, resp.Logprobs), nil
	}
	return modelkit.VerdictOf(resp.Text, resp.Logprobs), nil
}

// Request is the one request Assess sends for u, built without calling the model (run
// --estimate counts its tokens; a batch run writes it to the provider's batch file).
func (s *Subject) Request(u subject.Unit) (llm.Request, error) {
	msgs, err := s.prompts.Render(s.strategy, u.Case)
	if err != nil {
		return llm.Request{}, err
	}
	req := llm.Request{Temperature: s.Temperature, MaxTokens: s.MaxTokens, Repeat: u.Repeat}
	if s.logprobs() {
		req.Logprobs, req.TopLogprobs = true, 5
	}
	for _, m := range msgs {
		req.Messages = append(req.Messages, llm.Message{Role: m.Role, Content: m.Content})
	}
	appsecCase := u.Case != nil && u.Case.Kind == suite.KindAppSec
	if appsecCase && !s.strategyCoT() {
		// Structured output where the model has it; a chain of thought reasons in free text
		// first, so it is read by the tolerant parser alone.
		req.Schema = &llm.Schema{Name: prompt.AppSecSchemaName, Schema: prompt.AppSecSchema(), Strict: true}
	}
	return req, nil
}

func (s *Subject) strategyCoT() bool { return s.strategy == prompt.CoT || s.strategy == prompt.CoTFS }

// AppSecVerdictOf reads a model's answer on an appsec case: the verdict as VerdictOf reads it,
// with the appsec fields (OWASP, severity, CVSS vector, exploit, fix, secure code) in
// Verdict.AppSec and the explanation in Verdict.Explanation. A CVSS vector that is not a CVSS
// 3.1 base vector is kept as given, with CVSSError saying why.
func AppSecVerdictOf(text string, logprobs []llm.TokenLogprob) verdict.Verdict {
	v := modelkit.VerdictOf(text, logprobs)
	if v.Status != verdict.OK {
		return v
	}
	ans, err := prompt.ParseAppSec(text)
	if err != nil {
		return v
	}
	if ans.Explanation != "" {
		v.Explanation = ans.Explanation
	}
	a := &verdict.AppSec{OWASP: ans.OWASP, Severity: ans.Severity, CVSSVector: ans.CVSSVector,
		Exploit: ans.Exploit, Fix: ans.Fix, FixCode: ans.FixCode}
	if a.CVSSVector != "" {
		if _, err := cvss.Score(a.CVSSVector); err != nil {
			a.CVSSError = err.Error()
		}
	}
	if *a != (verdict.AppSec{}) {
		v.AppSec = a
	}
	return v
}
