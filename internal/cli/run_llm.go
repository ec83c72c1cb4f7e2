package cli

import (
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"
	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// llmFlags are run's options for model subjects.
type llmFlags struct {
	model, baseURL, prompt, prices string
	maxCost, temperature           float64
	maxTokens, rpm, tpm, retries   int
	callTimeout, retryBase         time.Duration
}

func (l *llmFlags) add(f *pflag.FlagSet) {
	f.StringVar(&l.model, "model", "", "llm: PROVIDER:MODEL, e.g. openai:gpt-4o-mini or anthropic:claude-3-5-haiku-latest (keys from OPENAI_API_KEY / ANTHROPIC_API_KEY)")
	f.StringVar(&l.baseURL, "base-url", "", "llm: an OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio), e.g. http://127.0.0.1:8000/v1")
	f.StringVar(&l.prompt, "prompt", "vanilla", "llm: prompting strategy: vanilla, cot, fs or cot+fs")
	f.StringVar(&l.prices, "prices", "", "llm: YAML table of prices and request capabilities whose rows replace the built-in ones, e.g.\n"+
		"date: 2026-05\n"+
		"openai:my-model: {input: 0.5, cached_input: 0.05, cache_write: 0.5, output: 2.0}   # USD per million tokens\n"+
		"openai:my-reasoner: {input: 1, output: 4, reasoning: true}   # no temperature/logprobs, max_completion_tokens\n"+
		"openai:my-local: {capabilities: {temperature: false, logprobs: false, max_tokens_param: max_completion_tokens}}\n"+
		"moonshot:kimi-k2.6: {input: 0.6, output: 2.5, api: openai}   # priced for --model openai:kimi-k2.6 --base-url URL\n"+
		"(each cost is printed with its row's date:, else the file's)")
	f.Float64Var(&l.maxCost, "max-cost", 0, "llm: stop starting cases once the run's cost (spent + in flight) reaches this many USD; resumable")
	f.Float64Var(&l.temperature, "temperature", 0, "llm: sampling temperature")
	f.IntVar(&l.maxTokens, "max-tokens", 0, "llm: answer budget in tokens (0: the provider's default; Anthropic: 2048)")
	f.IntVar(&l.rpm, "rpm", 0, "llm: requests per minute allowed (0: as the provider's rate-limit headers say, when it sends them; a 429 always halves the calls in flight)")
	f.IntVar(&l.tpm, "tpm", 0, "llm: tokens per minute allowed (0: no limit)")
	f.IntVar(&l.retries, "max-retries", llm.DefaultRetry().MaxRetries, "llm: retries of a retryable fault (429, 5xx, timeout, dropped connection)")
	f.DurationVar(&l.callTimeout, "call-timeout", 2*time.Minute, "llm: limit per model call (a call over it is retried; 0: no limit)")
	f.DurationVar(&l.retryBase, "retry-base", llm.DefaultRetry().Base, "llm: first backoff between retries (doubles each time)")
	_ = f.MarkHidden("retry-base")
}

// validate refuses values no model call could use. The comparisons are written so that NaN
// fails them too.
func (l *llmFlags) validate() error {
	switch {
	case !(l.maxCost >= 0) || math.IsInf(l.maxCost, 0):
		return usageErr("--max-cost %v is not a number of USD (0 for no cap)", l.maxCost)
	case !(l.temperature >= 0 && l.temperature <= 2):
		return usageErr("--temperature %v is not in [0, 2]", l.temperature)
	case l.maxTokens < 0, l.rpm < 0, l.tpm < 0, l.retries < 0:
		return usageErr("--max-tokens, --rpm, --tpm and --max-retries cannot be negative")
	case l.callTimeout < 0:
		return usageErr("--call-timeout %v is negative (0 for no limit)", l.callTimeout)
	}
	return nil
}

// llmFlagNames are the flags a resumed run keeps from its manifest.
var llmFlagNames = []string{"model", "base-url", "prompt", "temperature", "max-tokens"}

func (l *llmFlags) options(st llm.CacheStore) subject.LLMOptions {
	r := llm.DefaultRetry()
	r.MaxRetries, r.Base = l.retries, l.retryBase
	return subject.LLMOptions{Model: l.model, BaseURL: l.baseURL, Prompt: l.prompt, PricesFile: l.prices,
		Limits: llm.Limits{RPM: l.rpm, TPM: l.tpm}, Retry: r, CallTimeout: l.callTimeout,
		Temperature: l.temperature, MaxTokens: l.maxTokens, Cache: st, Getenv: os.Getenv}
}

// ref is what a manifest keeps to resume: the base URL without credentials or query.
func (l *llmFlags) ref() *engine.LLMRef {
	if l.model == "" {
		return nil
	}
	return &engine.LLMRef{Model: l.model, BaseURL: scrubURL(l.baseURL), Prompt: l.prompt, Temperature: l.temperature, MaxTokens: l.maxTokens}
}

func (l *llmFlags) restore(r *engine.LLMRef) {
	if r == nil {
		return
	}
	l.model, l.baseURL, l.prompt, l.temperature, l.maxTokens = r.Model, r.BaseURL, r.Prompt, r.Temperature, r.MaxTokens
}

// scrubURL drops user info, query and fragment: what may hold a secret.
func scrubURL(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// priceNote says which prices a run's costs come from: "prices of 2026-05", or the --prices file
// when its row is undated; "" without a model.
func (l *llmFlags) priceNote() string {
	if l.model == "" {
		return ""
	}
	p, err := llm.LoadPrices(l.prices)
	if err != nil {
		return ""
	}
	if d := p.DateOf(l.model); d != "" {
		return "prices of " + d
	}
	if l.prices != "" {
		return "undated prices from " + filepath.Base(l.prices)
	}
	return ""
}

// printUsage sums up what a run consumed, on stderr; a cost is followed by note, the prices' date.
func printUsage(w io.Writer, u verdict.Usage, elapsed time.Duration, priced bool, note string) {
	if u.Calls == 0 && u.CacheHits == 0 {
		return
	}
	cost := "unpriced"
	if u.CostUSD != nil && priced {
		cost = fmt.Sprintf("$%.4f", *u.CostUSD)
		if note != "" {
			cost += " (" + note + ")"
		}
	}
	fmt.Fprintf(w, "usage: %d model calls, %d cache hits, %d retries, %s waiting; tokens %d in (%d cached), %d out; cost %s; %s\n",
		u.Calls, u.CacheHits, u.Retries, (time.Duration(u.WaitMS) * time.Millisecond).Round(time.Millisecond),
		u.InputTokens, u.CachedInputTokens, u.OutputTokens, cost, elapsed.Round(time.Millisecond))
}
