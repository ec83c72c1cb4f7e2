// Package llmsubj is the plain-LLM subject: one prompt per case (vanilla, CoT, few-shot or both),
// one model call, the answer parsed from a small JSON object or the @@VULNERABLE@@ markers.
package llmsubj

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/prompt"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

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

// Describe implements subject.Describer: what a run's manifest records (never a key).
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

// Priced implements subject.Priced.
func (s *Subject) Priced() bool {
	_, ok := s.prices.Lookup(s.model.Info().Spec())
	return ok
}

// logprobs reports whether the model returns logprobs: OpenAI-style APIs do, unless the price
// table says the model takes none (OpenAI's reasoning models).
func (s *Subject) logprobs() bool {
	info := s.model.Info()
	return info.Provider == "openai" && s.prices.Capabilities(info.Spec()).Logprobs
}

// Assess implements subject.Subject.
func (s *Subject) Assess(ctx context.Context, c *suite.Case, repeat int) (verdict.Verdict, error) {
	msgs, err := s.prompts.Render(s.strategy, c)
	if err != nil {
		return verdict.Verdict{}, err
	}
	req := llm.Request{Temperature: s.params.Temperature, MaxTokens: s.params.MaxTokens, Seed: s.params.Seed, Repeat: repeat}
	if s.logprobs() {
		req.Logprobs, req.TopLogprobs = true, 5
	}
	for _, m := range msgs {
		req.Messages = append(req.Messages, llm.Message{Role: m.Role, Content: m.Content})
	}
	resp, err := s.model.Complete(ctx, req)
	usage := s.usage(resp)
	if err != nil {
		if llm.IsFatal(err) {
			var ae *llm.APIError
			errors.As(err, &ae)
			return verdict.Verdict{Usage: usage}, fmt.Errorf("%w: %s", engine.ErrAbort, ae.Fatal())
		}
		return verdict.Verdict{Usage: usage}, err
	}
	trace, _ := json.Marshal([]map[string]any{{"role": "assistant", "content": resp.Text, "finish_reason": resp.FinishReason, "cached": resp.Cached}})
	ans, perr := prompt.Parse(resp.Text)
	if perr != nil {
		return verdict.Verdict{Status: verdict.Failed, Reason: perr.Error(), Raw: resp.Text, Usage: usage, Trace: trace}, nil
	}
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, CWE: ans.CWE, Explanation: ans.Reason, Usage: usage, Trace: trace}
	if ans.Vulnerable {
		v.Label = suite.Vul
	}
	if ans.Via == prompt.ViaJSON {
		v.Score = VulnerableProbability(resp.Logprobs)
	}
	return v, nil
}

// usage turns a response's accounting into a verdict's. A cached answer cost nothing now.
func (s *Subject) usage(r llm.Response) verdict.Usage {
	u := verdict.Usage{Calls: r.Calls, Retries: r.Retries, WaitMS: r.Waited.Milliseconds()}
	if r.Cached {
		u.CacheHits = 1
		u.CostUSD = verdict.Float(0)
		return u
	}
	u.InputTokens, u.CachedInputTokens, u.OutputTokens = r.Usage.InputTokens, r.Usage.CachedInputTokens, r.Usage.OutputTokens
	if cost, ok := s.prices.Cost(s.model.Info().Spec(), r.Usage); ok {
		u.CostUSD = verdict.Float(cost)
	}
	return u
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
