package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/buger/jsonparser"
)

// API is a provider endpoint that takes requests as the provider's wire format has them.
type API string

// The raw APIs.
const (
	AnthropicMessages API = "anthropic.messages" // POST /v1/messages
	OpenAIChat        API = "openai.chat"        // POST /chat/completions
	OpenAIResponses   API = "openai.responses"   // POST /responses
	// GeminiGenerate is Gemini's generateContent: POST /v1beta/models/MODEL:generateContent, or
	// :streamGenerateContent?alt=sse when RawRequest.Stream says so (the model and the stream
	// are in the path, not the body).
	GeminiGenerate API = "gemini.generate"
)

// Provider is the provider that serves the API.
func (a API) Provider() string {
	switch a {
	case AnthropicMessages:
		return "anthropic"
	case GeminiGenerate:
		return "gemini"
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
	// Model and Stream, for GeminiGenerate, whose body holds neither (they are in its path):
	// the model (the gateway sets the unit's) and whether the answer is streamed.
	Model  string
	Stream bool
	// Seen is what the call's trace shows of the request (the unit's meter records it); it is
	// not sent.
	Seen Seen

	fields *rawFields // read once, by the first layer that needs them
}

// Seen is what a raw request's sender read of it for the trace: the text of its last message,
// and the tool outputs it sends back that earlier calls of the unit did not (the agent resends
// the whole conversation every turn).
type Seen struct {
	Last        string
	ToolResults []ToolResult
}

// ToolResult is a tool's output sent back to the model, for the call CallID.
type ToolResult struct {
	CallID, Content string
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
	Model                                     string
	Stream                                    bool
	MaxTokens, MaxOutputTokens, MaxCompletion int
}

// readFields reads them with jsonparser, which skips every other value (a CLI's body is tens of
// kilobytes of system prompt and tools) rather than decoding it.
func (r *RawRequest) readFields() (rawFields, error) {
	if r.fields != nil {
		return *r.fields, nil
	}
	f, err := readFields(r.Body)
	if err == nil && r.API == GeminiGenerate {
		f.Model, f.Stream = r.Model, r.Stream
		if n, e := jsonparser.GetInt(r.Body, "generationConfig", "maxOutputTokens"); e == nil {
			f.MaxOutputTokens = int(n)
		}
	}
	if err == nil {
		r.fields = &f
	}
	return f, err
}

func readFields(body []byte) (rawFields, error) {
	var f rawFields
	if b := bytes.TrimSpace(body); len(b) == 0 || b[0] != '{' {
		return f, &APIError{Status: 400, Type: "invalid_request_error", Message: "the request body is not a JSON object"}
	}
	var bad error
	jsonparser.EachKey(body, func(i int, v []byte, _ jsonparser.ValueType, err error) {
		if err != nil {
			bad = err
			return
		}
		switch i {
		case 0:
			f.Model, err = jsonparser.ParseString(v)
		case 1:
			f.Stream, err = jsonparser.ParseBoolean(v)
		default:
			var n int64
			n, err = jsonparser.ParseInt(v)
			switch i {
			case 2:
				f.MaxTokens = int(n)
			case 3:
				f.MaxOutputTokens = int(n)
			default:
				f.MaxCompletion = int(n)
			}
		}
		if err != nil {
			bad = err
		}
	}, []string{"model"}, []string{"stream"}, []string{"max_tokens"}, []string{"max_output_tokens"}, []string{"max_completion_tokens"})
	if bad != nil {
		return f, &APIError{Status: 400, Type: "invalid_request_error", Message: "the request body's model, stream or token budget is not readable: " + bad.Error()}
	}
	return f, nil
}

// estimate is the typed request whose token estimate stands for a raw one: the body's length
// (prompt, tools and all) and its answer budget.
func (f rawFields) estimate(body []byte) Request {
	return Request{Messages: []Message{{Content: string(body)}}, MaxTokens: max(f.MaxTokens, f.MaxOutputTokens, f.MaxCompletion)}
}
