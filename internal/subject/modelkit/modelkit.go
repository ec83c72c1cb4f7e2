// Package modelkit is what every model subject (llm, depaug, react, vex-agent) shares: the
// flags and their typed Config, the model stack built from them (base URL, prices file, the
// response cache, rate limits, retries), the unit's metered model, what a run's manifest records
// of the model, the agents' step cap and tool protocol, and the fault every case would hit.
package modelkit

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/prompt"
	"github.com/vulnbench/vulnbench/internal/subject"
)

// Config is the configuration every model subject has: its flags, with defaults applied. Kinds
// embed it, so its fields are theirs in the manifest.
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
	NoCache     bool          `json:"no_cache,omitempty"`  // ask again, store the new answer
	CacheTag    string        `json:"cache_tag,omitempty"` // the response cache's namespace
	// Effort is --effort: how hard a reasoning model thinks, given to every request (an agent
	// CLI's in the CLI's own setting); "": the provider's default.
	Effort llm.Effort `json:"effort,omitempty"`
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
	if _, err := llm.ParseEffort(string(c.Effort)); err != nil {
		return err
	}
	_, err := prompt.ParseStrategy(c.Prompt)
	return err
}

// Strategy is the config's prompting strategy (valid once Validate passed).
func (c Config) Strategy() prompt.Strategy {
	st, _ := prompt.ParseStrategy(c.Prompt)
	return st
}

// Need is the model c calls, as preflight checks it: a model kind's Model declaration.
func (c Config) Need() subject.ModelNeed {
	return subject.ModelNeed{Spec: c.Model, BaseURL: c.BaseURL, PricesFile: c.PricesFile}
}

// Settings are what a run's manifest records of c for readers outside the kind: the model, its
// server (scrubbed), the cache's namespace, the answer budget, the rate and the prompting
// strategy, and the reasoning effort (--effort; "" the provider's default). Kinds start their
// Settings declaration from it.
func (c Config) Settings() manifest.Settings {
	return manifest.Settings{Model: c.Model, BaseURL: ScrubURL(c.BaseURL), CacheTag: c.CacheTag, MaxTokens: c.MaxTokens,
		RPM: c.RPM, Prompt: c.Prompt, Effort: string(c.Effort)}
}

// Scrubbed is c as a run's manifest records it: the base URL without what may hold a secret.
func (c Config) Scrubbed() Config {
	c.BaseURL = ScrubURL(c.BaseURL)
	return c
}

// ConfigOf reads the flags of Flags.
func ConfigOf(v subject.Values) Config {
	return Config{Model: v.String("model"), BaseURL: v.String("base-url"), Prompt: v.String("prompt"),
		PricesFile: v.String("prices"), Temperature: v.Float("temperature"), MaxTokens: v.Int("max-tokens"),
		RPM: v.Int("rpm"), TPM: v.Int("tpm"), MaxRetries: v.Int("max-retries"),
		CallTimeout: v.Duration("call-timeout"), RetryBase: v.Duration("retry-base"),
		NoCache: v.Bool("no-cache"), CacheTag: v.String("cache-tag"), Effort: llm.Effort(v.String("effort"))}
}

// Flags are the flags of every model subject, shared by name: one --model or --prompt serves
// whichever kind runs.
func Flags() []subject.Flag {
	return []subject.Flag{
		{Name: "model", Default: "", Usage: "PROVIDER:MODEL, e.g. openai:gpt-4o-mini or anthropic:claude-3-5-haiku-latest (keys from OPENAI_API_KEY / ANTHROPIC_API_KEY)"},
		{Name: "base-url", Default: "", Scrub: ScrubURL, Usage: "an OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio), e.g. http://127.0.0.1:8000/v1"},
		{Name: "prompt", Default: "vanilla", Usage: "prompting strategy: vanilla, cot, fs or cot+fs"},
		{Name: "prices", Default: "", Resumable: true, Usage: "YAML table of prices and request capabilities whose rows replace the built-in ones, e.g.\n" +
			"date: 2026-05\n" +
			"openai:my-model: {input: 0.5, cached_input: 0.05, cache_write: 0.5, output: 2.0}   # USD per million tokens\n" +
			"openai:my-reasoner: {input: 1, output: 4, reasoning: true}   # no temperature/logprobs, max_completion_tokens\n" +
			"openai:my-local: {capabilities: {temperature: false, logprobs: false, max_tokens_param: max_completion_tokens}}\n" +
			"moonshot:kimi-k2.6: {input: 0.6, output: 2.5, api: openai}   # priced for --model openai:kimi-k2.6 --base-url URL\n" +
			"(each cost is printed with its row's date:, else the file's)"},
		{Name: "temperature", Default: 0.0, Usage: "sampling temperature"},
		{Name: "max-tokens", Default: 0, Usage: "answer budget in tokens (0: the provider's default; Anthropic: 2048)"},
		{Name: "rpm", Default: 0, Resumable: true, Usage: "requests per minute allowed (0: as the provider's rate-limit headers say, when it sends them; a 429 always halves the calls in flight)"},
		{Name: "tpm", Default: 0, Resumable: true, Usage: "tokens per minute allowed (0: no limit)"},
		{Name: "max-retries", Default: llm.DefaultRetry().MaxRetries, Resumable: true, Usage: "retries of a retryable fault (429, 5xx, timeout, dropped connection)"},
		{Name: "call-timeout", Default: 2 * time.Minute, Resumable: true, Usage: "limit per model call (a call over it is retried; 0: no limit)"},
		{Name: "no-cache", Default: false, Usage: "ask the model again whatever the response cache holds, and store the new answers in place of the old"},
		{Name: "cache-tag", Default: "", Usage: "the response cache's namespace: answers stored under another tag (or none) are never reused, e.g. the local model's build after changing it"},
		{Name: "effort", Default: "", Usage: "how hard a reasoning model thinks: minimal, low, medium, high or xhigh (OpenAI's reasoning_effort; Anthropic's and Gemini's thinking budget of 1,024 to 32,768 tokens; an agent CLI's own setting, refused by one that has none); default: the provider's"},
		{Name: "retry-base", Default: llm.DefaultRetry().Base, Resumable: true, Hidden: true, Usage: "first backoff between retries (doubles each time)"},
	}
}

// ScrubURL drops user info, query and fragment from a URL: what may hold a secret.
func ScrubURL(s string) string {
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

// Base is what a model subject holds: its model stack, the prices that turn usage into cost, and
// the config. Embedded in a subject, it makes the subject subject.Modeled.
type Base struct {
	Config
	model  llm.Model
	prices llm.Prices
}

// New is the Base of a subject on model, priced by prices.
func New(cfg Config, model llm.Model, prices llm.Prices) Base {
	return Base{Config: cfg, model: model, prices: prices}
}

// Open validates cfg and builds its model stack (cache, retries, limits, provider) and price
// table with the process's resources d.
func Open(cfg Config, d subject.Deps) (Base, error) {
	if err := cfg.Validate(); err != nil {
		return Base{}, err
	}
	prices, err := llm.LoadPrices(cfg.PricesFile)
	if err != nil {
		return Base{}, err
	}
	r := llm.DefaultRetry()
	r.MaxRetries = cfg.MaxRetries
	if cfg.RetryBase > 0 {
		r.Base = cfg.RetryBase
	}
	stack, err := llm.New(cfg.Model, llm.Options{BaseURL: cfg.BaseURL, Limits: llm.Limits{RPM: cfg.RPM, TPM: cfg.TPM}, Retry: r,
		CallTimeout: cfg.CallTimeout, Cache: d.Cache, CacheOpts: llm.CacheOptions{Namespace: cfg.CacheTag, Refresh: cfg.NoCache}, Getenv: d.Getenv, Prices: &prices})
	if err != nil {
		return Base{}, err
	}
	stack.Model = llm.WithEffort(stack.Model, cfg.Effort)
	return New(cfg, stack, prices), nil
}

// UseBatch makes the subject's model m (a run's batch answers, run --batch) and its prices the
// batch prices.
func (b *Base) UseBatch(m llm.Model) {
	b.model, b.prices = m, b.prices.AtBatch()
}

// Model implements subject.Modeled: the runner meters it for each unit.
func (b Base) Model() llm.Model { return b.model }

// Prices implements subject.Modeled.
func (b Base) Prices() llm.Prices { return b.prices }

// For is the model a unit calls: env's metered one, or the bare stack when env has none (a
// subject called outside a run).
func (b Base) For(env *subject.Env) llm.Model {
	if env != nil && env.Model != nil {
		return env.Model
	}
	return b.model
}

// Describe is what a run's manifest records of the model (never a key): provider, model, the
// base URL's host and the temperature, with extra, the kind's own entries.
func (b Base) Describe(extra map[string]any) map[string]any {
	info := b.model.Info()
	d := map[string]any{"provider": info.Provider, "model": info.Model, "base_url_host": info.BaseHost, "temperature": b.Temperature}
	if b.Effort != "" {
		d["effort"] = string(b.Effort)
	}
	for k, v := range extra {
		d[k] = v
	}
	return d
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
