package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// API is a provider endpoint that takes requests as the provider's wire format has them.
type API string

// The raw APIs.
const (
	AnthropicMessages API = "anthropic.messages" // POST /v1/messages
	OpenAIChat        API = "openai.chat"        // POST /chat/completions
	OpenAIResponses   API = "openai.responses"   // POST /responses
)

// Provider is the provider that serves the API.
func (a API) Provider() string {
	if a == AnthropicMessages {
		return "anthropic"
	}
	return "openai"
}

// RawRequest is one call in the provider's own format, as an agent CLI sent it: the body goes
// to the provider verbatim (the CLIs use features a typed Request would lose). Its "model" must
// be the model's own (Info().Model): the gateway sets it.
type RawRequest struct {
	API  API
	Body []byte
	// Header holds the headers to forward; only the provider's protocol headers are sent
	// (anthropic-version, anthropic-beta, openai-beta), never a key or a client's identity.
	Header http.Header
	Repeat int // as Request.Repeat: distinguishes repeats of one case in the cache
}

// forwarded are the request headers a raw call passes on.
var forwarded = []string{"Anthropic-Version", "Anthropic-Beta", "Openai-Beta"}

// Answer is what a raw response said, parsed from its JSON or its events.
type Answer struct {
	Text         string     `json:"text,omitempty"`
	ToolCalls    []ToolCall `json:"tool_calls,omitempty"`
	FinishReason string     `json:"finish_reason,omitempty"`
}

// RawResponse is the provider's answer, whole: the JSON body, or every server-sent event of a
// streamed answer (the caller replays them), with the usage and the answer read from it.
type RawResponse struct {
	Status      int           `json:"status"`
	ContentType string        `json:"content_type"`
	Body        []byte        `json:"body"`
	Stream      bool          `json:"stream,omitempty"`
	Usage       Usage         `json:"usage"`
	Answer      Answer        `json:"answer"`
	Latency     time.Duration `json:"latency_ns"`

	// Filled by the middleware, not stored in the cache (as Response's).
	Cached    bool          `json:"-"`
	Calls     int           `json:"-"`
	Retries   int           `json:"-"`
	Waited    time.Duration `json:"-"`
	RateLimit *RateLimit    `json:"-"`
	// CostUSD is set by a meter that priced the call (runner's); nil otherwise.
	CostUSD *float64 `json:"-"`
}

// RawModel takes raw requests. Every layer of the stack New builds is one, so AsRaw(stack)
// holds: a raw call goes through the same cache, first-call marking, retries (Retry-After
// honoured, a mid-stream error event retried like its status), adaptive limits (rate-limit
// headers read), timeout and fault classes as a typed one. A meter wrapping a Model should
// implement it too (see the runner).
type RawModel interface {
	Info() Info
	CompleteRaw(ctx context.Context, req RawRequest) (RawResponse, error)
}

// AsRaw returns m as a RawModel when it is one.
func AsRaw(m Model) (RawModel, bool) {
	r, ok := m.(RawModel)
	return r, ok
}

// ErrNotRaw is returned by a layer whose next model takes no raw requests.
var ErrNotRaw = errors.New("llm: this model takes no raw requests")

func nextRaw(next Model) (RawModel, error) {
	if r, ok := next.(RawModel); ok {
		return r, nil
	}
	return nil, fmt.Errorf("%w (%T)", ErrNotRaw, next)
}

// rawFields are the fields of a raw body the stack reads: the model, the stream flag, the
// answer's budget (for the token-rate estimate).
type rawFields struct {
	Model           string `json:"model"`
	Stream          bool   `json:"stream"`
	MaxTokens       int    `json:"max_tokens"`
	MaxOutputTokens int    `json:"max_output_tokens"`
	MaxCompletion   int    `json:"max_completion_tokens"`
}

func readFields(body []byte) (rawFields, error) {
	var f rawFields
	if err := json.Unmarshal(body, &f); err != nil {
		return f, &APIError{Status: 400, Type: "invalid_request_error", Message: "the request body is not a JSON object: " + err.Error()}
	}
	return f, nil
}

// estimate is the typed request whose token estimate stands for a raw one: the body's length
// (prompt, tools and all) and its answer budget.
func (f rawFields) estimate(body []byte) Request {
	return Request{Messages: []Message{{Content: string(body)}}, MaxTokens: max(f.MaxTokens, f.MaxOutputTokens, f.MaxCompletion)}
}
