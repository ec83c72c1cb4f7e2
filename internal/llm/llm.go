// Package llm is vulnerability's model layer: one small Model interface, adapters for
// OpenAI-compatible and Anthropic APIs, and the middleware that makes paid calls safe: a response
// cache in the store, a rate limiter, retries that honour Retry-After, a per-call timeout, and
// prices that turn usage into cost.
package llm

import (
	"context"
	"time"
)

// Message is one turn of a conversation. Role is "system", "user", "assistant" or "tool".
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`   // an assistant turn asking for tools
	ToolCallID string     `json:"tool_call_id,omitempty"` // a tool turn answering one call
}

// Tool is a function the model may call; Parameters is its JSON Schema.
type Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
}

// ToolCall is the model asking for a tool; Arguments is a JSON object as text.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Request is one call. Repeat distinguishes repeats of one case in the cache: with temperature
// above 0 each repeat is a new draw, and a rerun gets back the same draws.
type Request struct {
	Messages    []Message `json:"messages"`
	Tools       []Tool    `json:"tools,omitempty"`
	Temperature float64   `json:"temperature"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	Seed        *int64    `json:"seed,omitempty"`
	Logprobs    bool      `json:"logprobs,omitempty"`
	TopLogprobs int       `json:"top_logprobs,omitempty"`
	Repeat      int       `json:"repeat"`
	// Schema asks for an answer that is one JSON object of this schema, through the provider's
	// structured-output mode where the model has one (OpenAI's response_format json_schema);
	// elsewhere it is not sent and the prompt must ask for the object. nil: free text.
	Schema *Schema `json:"schema,omitempty"`
	// Effort is how hard a reasoning model thinks (--effort), in the provider's terms: OpenAI's
	// reasoning_effort, Anthropic's extended thinking budget, Gemini's thinkingBudget. "": the
	// provider's default (and a cache key as before effort existed).
	Effort Effort `json:"effort,omitempty"`
}

// Schema is a named JSON Schema for a structured answer. Strict asks the provider to enforce
// it (OpenAI's strict mode: every property required, no additional properties).
type Schema struct {
	Name   string         `json:"name"`
	Schema map[string]any `json:"schema"`
	Strict bool           `json:"strict,omitempty"`
}

// Usage counts tokens as the provider reports them. InputTokens counts every prompt token, of
// which CachedInputTokens were read from the provider's prompt cache and CacheWriteTokens written
// to it (Anthropic bills cache creation apart). OutputTokens counts every generated token, of
// which ReasoningTokens were hidden reasoning (OpenAI's completion_tokens_details): they are
// billed at the output rate, inside OutputTokens, never twice.
type Usage struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens,omitempty"`
	CacheWriteTokens  int64 `json:"cache_write_tokens,omitempty"`
	OutputTokens      int64 `json:"output_tokens"`
	ReasoningTokens   int64 `json:"reasoning_tokens,omitempty"`
}

// TokenLogprob is one generated token with its log-probability and the most likely alternatives.
type TokenLogprob struct {
	Token   string         `json:"token"`
	Logprob float64        `json:"logprob"`
	Top     []TokenLogprob `json:"top,omitempty"`
}

// Response is a model's answer and what it cost to get.
type Response struct {
	Text         string         `json:"text"`
	ToolCalls    []ToolCall     `json:"tool_calls,omitempty"`
	Usage        Usage          `json:"usage"`
	Logprobs     []TokenLogprob `json:"logprobs,omitempty"`
	FinishReason string         `json:"finish_reason,omitempty"`
	Latency      time.Duration  `json:"latency_ns"`

	// Filled by the middleware, not stored in the cache.
	Cached  bool          `json:"-"` // served from the cache: no call, no cost
	Calls   int           `json:"-"` // HTTP attempts made, including failed ones
	Retries int           `json:"-"`
	Waited  time.Duration `json:"-"` // time spent in backoff and rate-limit waits
	// RateLimit is what the answer's rate-limit headers said; nil when it had none.
	RateLimit *RateLimit `json:"-"`
}

// Info names a model: the provider, its model id and where it is served.
type Info struct {
	Provider string // "openai" or "anthropic"
	Model    string
	BaseHost string // host of a custom base URL, "" for the provider's own API; never the key
}

// Spec returns "provider:model", the form --model takes and prices are listed under.
func (i Info) Spec() string { return i.Provider + ":" + i.Model }

// Model answers requests. Implementations are safe for concurrent use.
type Model interface {
	Complete(ctx context.Context, req Request) (Response, error)
	Info() Info
}
