// Package llmsubj is the plain-LLM subject: one prompt per case (vanilla, CoT, few-shot or both),
// one model call, the answer parsed from a small JSON object or the @@VULNERABLE@@ markers.
package llmsubj

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/prompt"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/appsec/cvss"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Version of the llm subject: the request it sends and how it reads the answer. 3 asks appsec
// cases for the full structured answer (a JSON schema where the model takes one).
const Version = "3"

// Config is the llm subject's configuration: its flags, with defaults applied.
type Config struct {
	Model       string        `json:"model"` // PROVIDER:MODEL
	BaseURL     string        `json:"base_url,omitempty"`
	Prompt      string        `json:"prompt"`
	PricesFile  string        `json:"prices,omitempty"`
	Temperature float64       `json:"temperature"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
	RPM         int           `json:"rpm,omitempty"`
	TPM         int           `json:"tpm,omitempty"`
	MaxRetries  int           `json:"max_retries"`
	RetryBase   time.Duration `json:"retry_base,omitempty"`
	CallTimeout time.Duration `json:"call_timeout,omitempty"`
}

// Validate implements subject.Config. The comparisons are written so that NaN fails them too.
func (c Config) Validate() error {
	switch {
	case c.Model == "":
		return errors.New("a model subject (llm, depaug, react) needs --model PROVIDER:MODEL (like openai:gpt-4o-mini)")
	case !(c.Temperature >= 0 && c.Temperature <= 2):
		return fmt.Errorf("--temperature %v is not in [0, 2]", c.Temperature)
	case c.MaxTokens < 0, c.RPM < 0, c.TPM < 0, c.MaxRetries < 0:
		return errors.New("--max-tokens, --rpm, --tpm and --max-retries cannot be negative")
	case c.CallTimeout < 0:
		return fmt.Errorf("--call-timeout %v is negative (0 for no limit)", c.CallTimeout)
	}
	_, err := prompt.ParseStrategy(c.Prompt)
	return err
}

// Params are the call's sampling settings.
type Params struct {
	Temperature float64
	MaxTokens   int
	Seed        *int64
}

// Subject asks a model about each case.
type Subject struct {
	model    llm.Model
	prompts  *prompt.Set
	strategy prompt.Strategy
	prices   llm.Prices
	params   Params
}

// New makes the subject. Logprobs are asked for from providers that return them (OpenAI-style);
// they give the verdict a continuous score.
func New(model llm.Model, prompts *prompt.Set, strategy prompt.Strategy, prices llm.Prices, p Params) *Subject {
	return &Subject{model: model, prompts: prompts, strategy: strategy, prices: prices, params: p}
}

// Build makes the subject of cfg: the model stack (cache, retries, limits, provider), the prices
// and the prompts.
func Build(cfg Config, cache llm.CacheStore, getenv func(string) string) (*Subject, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	strategy, err := prompt.ParseStrategy(cfg.Prompt)
	if err != nil {
		return nil, err
	}
	stack, prices, err := Stack(cfg, cache, getenv)
	if err != nil {
		return nil, err
	}
	prompts, err := prompt.New()
	if err != nil {
		return nil, err
	}
	return New(stack, prompts, strategy, prices, Params{Temperature: cfg.Temperature, MaxTokens: cfg.MaxTokens}), nil
}

// Stack builds the model stack of cfg (cache, retries, limits, provider) and its price table;
// the other model subjects (depaug, react) share it.
func Stack(cfg Config, cache llm.CacheStore, getenv func(string) string) (llm.Model, llm.Prices, error) {
	prices, err := llm.LoadPrices(cfg.PricesFile)
	if err != nil {
		return nil, llm.Prices{}, err
	}
	r := llm.DefaultRetry()
	r.MaxRetries = cfg.MaxRetries
	if cfg.RetryBase > 0 {
		r.Base = cfg.RetryBase
	}
	stack, err := llm.New(cfg.Model, llm.Options{BaseURL: cfg.BaseURL, Limits: llm.Limits{RPM: cfg.RPM, TPM: cfg.TPM}, Retry: r,
		CallTimeout: cfg.CallTimeout, Cache: cache, Getenv: getenv, Prices: &prices})
	if err != nil {
		return nil, llm.Prices{}, err
	}
	return stack, prices, nil
}

// Describe is what a run's manifest records beyond the config (never a key).
func (s *Subject) Describe() map[string]any {
	info := s.model.Info()
	d := map[string]any{
		"provider": info.Provider, "model": info.Model, "base_url_host": info.BaseHost,
		"prompt": string(s.strategy), "prompt_hash": s.prompts.Hash(s.strategy), "templates": s.prompts.Hashes(),
		"temperature": s.params.Temperature, "max_tokens": s.params.MaxTokens, "logprobs": s.logprobs(),
	}
	if s.params.Seed != nil {
		d["seed"] = *s.params.Seed
	}
	if _, ok := s.prices.Lookup(info.Spec()); !ok {
		d["priced"] = false
	}
	return d
}

// Model implements subject.Modeled: the runner meters it for each unit.
func (s *Subject) Model() llm.Model { return s.model }

// Prices implements subject.Modeled.
func (s *Subject) Prices() llm.Prices { return s.prices }

// logprobs reports whether the model returns logprobs: OpenAI-style APIs do, unless the price
// table says the model takes none (OpenAI's reasoning models).
func (s *Subject) logprobs() bool {
	info := s.model.Info()
	return info.Provider == "openai" && s.prices.Capabilities(info.Spec()).Logprobs
}

// Assess implements subject.Subject: one call through the unit's metered model. Usage and cost
// are the meter's; a fault that every case would hit stops the run.
func (s *Subject) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	model := s.model
	if env != nil && env.Model != nil {
		model = env.Model
	}
	msgs, err := s.prompts.Render(s.strategy, u.Case)
	if err != nil {
		return verdict.Verdict{}, err
	}
	req := llm.Request{Temperature: s.params.Temperature, MaxTokens: s.params.MaxTokens, Seed: s.params.Seed, Repeat: u.Repeat}
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
	resp, err := model.Complete(ctx, req)
	if err != nil {
		return verdict.Verdict{}, Fault(err)
	}
	if appsecCase {
		return AppSecVerdictOf(resp.Text, resp.Logprobs), nil
	}
	return VerdictOf(resp.Text, resp.Logprobs), nil
}

func (s *Subject) strategyCoT() bool { return s.strategy == prompt.CoT || s.strategy == prompt.CoTFS }

// AppSecVerdictOf reads a model's answer on an appsec case: the verdict as VerdictOf reads it,
// with the appsec fields (OWASP, severity, CVSS vector, exploit, fix, secure code) in
// Verdict.AppSec and the explanation in Verdict.Explanation. A CVSS vector that is not a CVSS
// 3.1 base vector is kept as given, with CVSSError saying why.
func AppSecVerdictOf(text string, logprobs []llm.TokenLogprob) verdict.Verdict {
	v := VerdictOf(text, logprobs)
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

// Fault is the error Assess returns for a failed model call: wrapped in subject.ErrAbort when
// every case would hit it (a rejected key, an unknown model).
func Fault(err error) error {
	if llm.IsFatal(err) {
		var ae *llm.APIError
		errors.As(err, &ae)
		return fmt.Errorf("%w: %s", subject.ErrAbort, ae.Fatal())
	}
	return err
}

// VerdictOf reads a model's answer: a failed verdict (with the raw text) when it cannot be parsed;
// the score from the logprobs of the answer token when there are, else from the stated confidence.
func VerdictOf(text string, logprobs []llm.TokenLogprob) verdict.Verdict {
	ans, perr := prompt.Parse(text)
	if perr != nil {
		return verdict.Verdict{Status: verdict.Failed, Reason: perr.Error(), Raw: text}
	}
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, CWE: ans.CWE, Explanation: ans.Reason, Confidence: ans.Confidence}
	if ans.Vulnerable {
		v.Label = suite.Vul
	}
	if ans.Via == prompt.ViaJSON {
		if v.Score = VulnerableProbability(logprobs); v.Score != nil {
			v.ScoreSource = verdict.FromLogprob
		}
	}
	if v.Score == nil && ans.Confidence != nil {
		p := *ans.Confidence
		if !ans.Vulnerable {
			p = 1 - p
		}
		v.Score, v.ScoreSource = verdict.Float(p), verdict.FromStated
	}
	return v
}

// VulnerableProbability reads P(vulnerable) from the log-probabilities of the answer's
// "vulnerable": true|false token (its last occurrence, as the parser takes the last answer
// object). When the alternatives include the other value, the two are normalised against each
// other; otherwise P = p(token) for true and 1 - p(token) for false. nil when not found.
func VulnerableProbability(lps []llm.TokenLogprob) *float64 {
	var text strings.Builder
	found := -1
	for i, lp := range lps {
		before := text.String()
		text.WriteString(lp.Token)
		tok := strings.ToLower(strings.Trim(lp.Token, " \t\n\"'"))
		if tok != "true" && tok != "false" {
			continue
		}
		key := strings.LastIndex(before, `"vulnerable"`)
		if key >= 0 && strings.Trim(before[key+len(`"vulnerable"`):], " \t\n:\"") == "" {
			found = i
		}
	}
	if found < 0 {
		return nil
	}
	lp := lps[found]
	chosen := strings.ToLower(strings.Trim(lp.Token, " \t\n\"'"))
	pTrue, pFalse := math.NaN(), math.NaN()
	for _, alt := range append([]llm.TokenLogprob{lp}, lp.Top...) {
		switch strings.ToLower(strings.Trim(alt.Token, " \t\n\"'")) {
		case "true":
			if math.IsNaN(pTrue) {
				pTrue = math.Exp(alt.Logprob)
			}
		case "false":
			if math.IsNaN(pFalse) {
				pFalse = math.Exp(alt.Logprob)
			}
		}
	}
	var p float64
	switch {
	case !math.IsNaN(pTrue) && !math.IsNaN(pFalse) && pTrue+pFalse > 0:
		p = pTrue / (pTrue + pFalse)
	case chosen == "true":
		p = pTrue
	default:
		p = 1 - pFalse
	}
	p = min(1, max(0, p))
	return &p
}
