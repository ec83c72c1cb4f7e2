package llm

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Options configure the stack New builds.
type Options struct {
	BaseURL     string // OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio) or a proxy
	Limits      Limits
	Retry       RetryPolicy
	CallTimeout time.Duration
	Cache       CacheStore // nil: no cache
	CacheOpts   CacheOptions
	Getenv      func(string) string
	HTTPClient  *http.Client // nil: http.DefaultTransport's settings, keeping idle connections for many calls at once
	// Prices holds the models' request capabilities (and prices); nil: the embedded table. Give
	// the table LoadPrices returned, so that a --prices file's capabilities count.
	Prices *Prices
}

// Stack is a model with its middleware: cache → first-call marking → retry → limits → timeout →
// provider.
type Stack struct {
	Model
	Cache *Cache // nil without a cache store
}

// ParseSpec splits "provider:model".
func ParseSpec(spec string) (provider, model string, err error) {
	provider, model, ok := strings.Cut(spec, ":")
	if !ok || model == "" {
		return "", "", fmt.Errorf("--model %q is not PROVIDER:MODEL (like openai:gpt-4o-mini or anthropic:claude-3-5-haiku-latest)", spec)
	}
	switch provider {
	case "openai", "anthropic", "gemini":
		return provider, model, nil
	case "moonshot", "deepseek":
		return "", "", fmt.Errorf("--model %q: %s serves an OpenAI-compatible API: use --model openai:%s with --base-url (its API's URL) and its key in OPENAI_API_KEY", spec, provider, model)
	}
	return "", "", fmt.Errorf("--model %q: unknown provider %q (use openai for any OpenAI-compatible server, anthropic or gemini)", spec, provider)
}

// New builds the stack for spec. The API key comes only from the environment; a custom base URL
// (a local server) may go without one.
func New(spec string, o Options) (*Stack, error) {
	provider, model, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	if o.BaseURL == "" {
		// Honour the providers' usual variable (OPENAI_BASE_URL, ...), explicitly, so the manifest names the host.
		o.BaseURL = o.Getenv(strings.ToUpper(provider) + "_BASE_URL")
	}
	key := o.Getenv(KeyEnv(provider))
	if key == "" {
		if o.BaseURL == "" {
			return nil, fmt.Errorf("%s needs an API key: set %s in the environment (or use --base-url for a local server)", provider, KeyEnv(provider))
		}
		key = "none"
	}
	if o.HTTPClient == nil {
		o.HTTPClient = keepingClient()
	}
	var m Model
	switch provider {
	case "anthropic":
		m = NewAnthropic(model, o.BaseURL, key, o.HTTPClient)
	case "gemini":
		m = NewGemini(model, o.BaseURL, key, o.HTTPClient)
	default:
		oa := NewOpenAI(model, o.BaseURL, key, o.HTTPClient)
		if o.Prices != nil {
			oa = oa.WithCaps(o.Prices.Capabilities(spec))
		}
		m = oa
	}
	m = WithTimeout(m, o.CallTimeout)
	m = WithLimits(m, o.Limits)
	m = WithRetry(m, o.Retry)
	m = WithFirstCall(m)
	s := &Stack{Model: m}
	if o.Cache != nil {
		s.Cache = WithCache(m, o.Cache, o.CacheOpts)
		s.Model = s.Cache
	}
	return s, nil
}

// idlePerHost is how many idle connections to the provider are kept: more than a run's calls in
// flight, so that none is closed to be dialled again at once (http.DefaultTransport keeps 2, and
// 16 calls in flight dialled a connection for most calls, 6 % of a plain-LLM run's CPU).
const idlePerHost = 256

// keepingClient is http.DefaultClient with idlePerHost idle connections kept.
func keepingClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns, t.MaxIdleConnsPerHost = idlePerHost, idlePerHost
	return &http.Client{Transport: t}
}
