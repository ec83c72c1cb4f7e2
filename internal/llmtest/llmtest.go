// Package llmtest provides in-process HTTP servers that speak the OpenAI
// chat-completions and Responses API and the Anthropic messages wire formats, for
// tests and benchmarks. It is the project's only fake of a model provider: nothing in a
// test calls a hosted API.
//
// A server answers each request with what a [Handler] returns: a text, tool
// calls, logprobs and usage, or a fault (an error status with the provider's
// error body and Retry-After, latency, a slow body, malformed JSON, a dropped
// connection). It parses requests in their real shapes, rejects what the real
// API rejects (a missing or bad key, an unknown model, tool results that do not
// answer the preceding tool calls), counts requests and keeps a log of what it
// received. It can enforce a rate limit as providers do
// ([WithRateLimit]: 429 with Retry-After over it, rate-limit headers on every
// answer), and [Faults] faults a reproducible share of requests.
//
//	srv := llmtest.NewOpenAI(llmtest.Fixed("vulnerable"))
//	defer srv.Close()
//	client := openai.NewClient(option.WithBaseURL(srv.BaseURL()), option.WithAPIKey("k"))
//
// A request with stream=true is answered with server-sent events as each
// provider sends them (Anthropic's message_start ... message_stop with
// input_json_delta pieces and the usage in message_delta; chat.completion.chunk
// deltas with tool-call arguments by index and, with stream_options.include_usage,
// a usage chunk, then [DONE]; the Responses API's response.created ...
// response.completed with function_call_arguments.delta pieces and the usage in
// response.completed); Reply.StreamError and Reply.StreamCut fault a stream
// halfway. The Responses API's input items (messages, function_call,
// function_call_output, custom tool calls; reasoning items ignored) read as the
// same provider-neutral conversation as chat messages.
package llmtest

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Provider names, as found in [Request.Provider].
const (
	OpenAI    = "openai"
	Anthropic = "anthropic"
)

// Request is what the server received, in a provider-neutral form. Handlers
// and tests must treat it as read-only.
type Request struct {
	Provider string // OpenAI or Anthropic
	Model    string
	// System is the system prompt: OpenAI's system and developer messages,
	// Anthropic's top-level system and system messages, joined by newlines.
	System string
	// Messages are the other messages in order. Roles are "user",
	// "assistant" and "tool"; Anthropic tool_result blocks become "tool"
	// messages, so a conversation reads the same from both providers.
	Messages []Message
	Tools    []string // names of the tools offered

	Temperature *float64
	MaxTokens   int    // max_completion_tokens or max_tokens (OpenAI), max_tokens (Anthropic)
	Seed        *int64 // OpenAI only
	Logprobs    bool   // OpenAI only
	TopLogprobs int    // OpenAI only
	// ResponseFormat is OpenAI's response_format type ("text", "json_object", "json_schema"),
	// "" when none was sent; Schema is the json_schema's name, strict flag and schema.
	ResponseFormat string
	Schema         *ResponseSchema

	// Stream is the request's stream flag: its answer is server-sent events, as the provider
	// sends them.
	Stream bool

	APIKey string      // as sent: Authorization: Bearer, or x-api-key for Anthropic
	Header http.Header // the request's headers
	Raw    []byte      // the request's body
}

// ResponseSchema is the json_schema of an OpenAI response_format.
type ResponseSchema struct {
	Name   string
	Strict bool
	Schema map[string]any
}

// Message is one message of a conversation. Text parts and blocks are joined
// by newlines into Content; other parts (images, documents, thinking) are left
// out.
type Message struct {
	Role       string
	Content    string
	ToolCallID string     // role "tool": the call it answers
	ToolCalls  []ToolCall // role "assistant": the calls it made
}

// ToolCall is a call of a tool by the model.
type ToolCall struct {
	ID        string // generated when empty in a Reply
	Name      string
	Arguments string // JSON; "{}" when empty in a Reply
}

// TokenLogprob is the log probability of one output token and, in Top, of
// the most likely alternatives at its position.
type TokenLogprob struct {
	Token   string
	Logprob float64
	Top     []TokenLogprob
}

// Prompt returns the system prompt when there is one, then each message's
// content and tool call arguments, joined by newlines: a handy key for handlers that answer as a
// function of the prompt.
func (r Request) Prompt() string {
	var b strings.Builder
	add := func(s string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	if r.System != "" {
		add(r.System)
	}
	for _, m := range r.Messages {
		add(m.Content)
		for _, tc := range m.ToolCalls {
			add(tc.Arguments)
		}
	}
	return b.String()
}

// Reply is what the server answers to one request. The zero Reply is a
// successful, empty answer.
//
// Faults apply in this order: Latency, then Drop, then Status, then Malformed;
// SlowBody applies to whatever body is written.
type Reply struct {
	Text      string
	ToolCalls []ToolCall
	// Logprobs are returned when the request asks for logprobs (OpenAI only).
	// When none are scripted, one entry per word of Text is synthesised, with
	// logprob 0: tokens are words with their leading whitespace, so that they
	// concatenate to Text.
	Logprobs []TokenLogprob

	// InputTokens counts every prompt token, the cached ones included, and
	// CachedInputTokens those read from the cache. OpenAI reports them as
	// prompt_tokens and prompt_tokens_details.cached_tokens; Anthropic as
	// input_tokens (the uncached ones: InputTokens-CachedInputTokens) and
	// cache_read_input_tokens. Zero InputTokens or OutputTokens are estimated
	// as a quarter of the length of the prompt or of the answer, at least 1.
	InputTokens, CachedInputTokens, OutputTokens int
	// CacheWriteTokens are prompt tokens written to the cache, among
	// InputTokens: Anthropic reports them as cache_creation_input_tokens
	// (and input_tokens without them); OpenAI reports none.
	CacheWriteTokens int
	// ReasoningTokens are hidden reasoning tokens among OutputTokens: OpenAI
	// reports them as completion_tokens_details.reasoning_tokens, inside
	// completion_tokens; Anthropic counts thinking inside output_tokens.
	ReasoningTokens int

	// FinishReason is written as is; it defaults to "stop" (OpenAI) or
	// "end_turn" (Anthropic), or to "tool_calls" or "tool_use" when there are
	// ToolCalls.
	FinishReason string

	// Status, when not 0 or 2xx, answers with the provider's error body for
	// that status, for example 429, 500, 503, or Anthropic's 529.
	Status int
	// RetryAfter, when positive on an error status, sets Retry-After in whole
	// seconds, rounded up, and retry-after-ms for OpenAI.
	RetryAfter time.Duration
	// RetryNow, on an error status with no RetryAfter, sends Retry-After: 0
	// (and retry-after-ms: 0 for OpenAI): "try again at once".
	RetryNow bool
	// ErrorType overrides the error type of the body (OpenAI error.type,
	// Anthropic error.type), e.g. "insufficient_quota" for OpenAI's 429 that
	// must not be retried.
	ErrorType string
	// ErrorMessage, ErrorCode and ErrorParam override the error body's
	// message, and OpenAI's error.code and error.param (Anthropic's body has
	// neither). For example OpenAI's context overflow is Status 400,
	// ErrorCode "context_length_exceeded", ErrorParam "messages".
	ErrorMessage, ErrorCode, ErrorParam string
	// Latency is waited before answering; a cancelled request or a closed
	// server cuts it short and gets no answer.
	Latency time.Duration
	// SlowBody spreads writing the body over this time, in pieces, after the
	// headers.
	SlowBody time.Duration
	// Malformed answers 200 with a truncated, invalid JSON body.
	Malformed bool
	// StreamError, on a streamed answer, sends the provider's mid-stream error event halfway
	// (Anthropic's overloaded_error, OpenAI's error chunk, the Responses API's
	// response.failed) instead of the rest.
	StreamError bool
	// StreamCut, on a streamed answer, closes the connection halfway.
	StreamCut bool
	// Drop closes the connection without any response.
	Drop bool
}

// Handler decides the reply to a request. It is called only for requests that
// pass the server's checks (key, model, shape), possibly concurrently.
type Handler func(Request) Reply

// Option configures a server.
type Option func(*config)

type config struct {
	models      map[string]bool
	modelList   []string
	badKey      string
	keyOptional bool
	noLog       bool
	rateLimit   *RateLimit
	batch       *BatchOptions
}

// WithModels makes the server know only these models: a request for another
// one gets the provider's 404, and OpenAI's GET /v1/models lists them.
func WithModels(ids ...string) Option {
	return func(c *config) {
		if c.models == nil {
			c.models = make(map[string]bool)
		}
		for _, id := range ids {
			if !c.models[id] {
				c.models[id] = true
				c.modelList = append(c.modelList, id)
			}
		}
	}
}

// WithBadKey makes the server answer 401 to requests with this API key, as it
// does to requests without one.
func WithBadKey(key string) Option {
	return func(c *config) { c.badKey = key }
}

// WithKeyOptional accepts requests without an API key, like a local vLLM or
// Ollama server. A key equal to the bad key is still refused.
func WithKeyOptional() Option {
	return func(c *config) { c.keyOptional = true }
}

// WithoutLog keeps no log, for benchmarks and long runs whose requests would
// otherwise all stay in memory: Log returns nil. Requests still counts.
func WithoutLog() Option {
	return func(c *config) { c.noLog = true }
}

// Server is a running fake provider. Close it when done.
type Server struct {
	// URL is the server's root, http://127.0.0.1:PORT, without a path.
	URL string

	srv     *httptest.Server
	dialect dialect
	handler Handler
	cfg     config

	requests atomic.Int64
	limiter  *limiter // nil without WithRateLimit
	batches  *batches // nil without WithBatches
	mu       sync.Mutex
	log      []Request

	done      chan struct{} // closed by Close, ends latencies and slow bodies
	closeOnce sync.Once
}

// NewOpenAI starts a server that speaks the OpenAI chat-completions API:
// POST /v1/chat/completions (and /chat/completions), the Responses API: POST /v1/responses
// (and /responses), and GET /v1/models.
// Give its SDK [Server.BaseURL], which ends in /v1. A nil h answers every
// request with an empty text.
func NewOpenAI(h Handler, opts ...Option) *Server {
	return newServer(openaiDialect{}, h, opts)
}

// NewAnthropic starts a server that speaks the Anthropic messages API:
// POST /v1/messages and GET /v1/models. Give its SDK [Server.BaseURL], which
// is the bare URL.
func NewAnthropic(h Handler, opts ...Option) *Server {
	return newServer(anthropicDialect{}, h, opts)
}

func newServer(d dialect, h Handler, opts []Option) *Server {
	if h == nil {
		h = Fixed("")
	}
	s := &Server{dialect: d, handler: h, done: make(chan struct{})}
	for _, o := range opts {
		o(&s.cfg)
	}
	if s.cfg.rateLimit != nil {
		s.limiter = newLimiter(*s.cfg.rateLimit, time.Now())
	}
	if s.cfg.batch != nil {
		s.batches = newBatches()
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	// Dropped connections and cancelled requests are expected: keep the
	// server's log quiet.
	s.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.srv.Start()
	s.URL = s.srv.URL
	return s
}

// BaseURL is the base URL the provider's official SDK expects: URL+"/v1" for
// OpenAI, whose SDK appends "chat/completions"; URL for Anthropic, whose SDK
// appends "v1/messages".
func (s *Server) BaseURL() string { return s.dialect.baseURL(s.URL) }

// Requests returns the number of HTTP requests received, whatever their path
// or outcome, faults included.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Log returns a copy of the chat requests received whose body could be
// parsed, in order of arrival, including those refused or faulted (unless
// the server was started [WithoutLog]).
func (s *Server) Log() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// Close ends pending latencies and slow bodies, shuts the server down and
// waits for its handlers to return. It may be called more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.Close()
	})
}

// wait waits for d, and reports false if the request or the server ended first.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.requests.Add(1)
	d := s.dialect
	reqID := "req_llmtest_" + strconv.FormatInt(n, 10)
	d.setHeaders(w.Header(), reqID)

	fail := func(e *apiError) {
		writeError(w, d, e, reqID)
	}
	if s.serveBatch(w, r, reqID) {
		return
	}
	switch d.route(r.Method, r.URL.Path) {
	case routeModels:
		writeJSON(w, http.StatusOK, d.models(s.cfg.modelList))
		return
	case routeNone:
		fail(d.notFoundPath(r.Method, r.URL.Path))
		return
	case routeResponses:
		d = responsesDialect{}
	}

	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	req, invalid, aerr := d.parse(body)
	if aerr != nil {
		fail(aerr)
		return
	}
	req.Provider = d.name()
	req.Raw = body
	req.Header = r.Header.Clone()
	req.APIKey = d.apiKey(r.Header)
	readPath(d, r, &req)
	if !s.cfg.noLog {
		s.mu.Lock()
		s.log = append(s.log, req)
		s.mu.Unlock()
	}

	switch {
	case req.APIKey == "" && !s.cfg.keyOptional:
		fail(d.missingKey())
		return
	case req.APIKey != "" && req.APIKey == s.cfg.badKey:
		fail(d.badKey(req.APIKey))
		return
	}
	if invalid != nil {
		fail(invalid)
		return
	}
	if s.cfg.models != nil && !s.cfg.models[req.Model] {
		fail(d.unknownModel(req.Model))
		return
	}
	if d.name() == OpenAI && isReasoningModel(req.Model) {
		if e := reasoningRefusal(body); e != nil {
			fail(e)
			return
		}
	}

	if s.limiter != nil {
		now := time.Now()
		ok, remaining, retry, reset := s.limiter.take(now)
		for k, v := range rateHeaders(d.name(), s.limiter.rl.Requests, remaining, reset, now) {
			w.Header()[k] = v
		}
		if !ok {
			fail(rateLimited(d, s.limiter.rl.Requests, retry))
			return
		}
	}

	rep := s.handler(req)
	ctx := r.Context()
	if !s.wait(ctx, rep.Latency) || rep.Drop {
		// A cancelled request or a closed server gets no answer either.
		drop(w)
		return
	}
	if rep.Status != 0 && rep.Status/100 != 2 {
		e := d.statusError(rep.Status, rep.ErrorType)
		if rep.ErrorMessage != "" {
			e.message = rep.ErrorMessage
		}
		if rep.ErrorCode != "" {
			e.code = rep.ErrorCode
		}
		if rep.ErrorParam != "" {
			e.param = rep.ErrorParam
		}
		e.retryAfter, e.retryNow = rep.RetryAfter, rep.RetryNow
		s.writeBody(ctx, w, rep.Status, d.errorBody(e, reqID), rep.SlowBody, e.retryAfterHeaders(d))
		return
	}
	if st, ok := d.(streamer); ok && req.Stream {
		events, aerr := st.stream(req, rep, n)
		if aerr != nil {
			fail(aerr)
			return
		}
		s.writeStream(ctx, w, events, rep.SlowBody, rep.StreamCut)
		return
	}
	out, aerr := d.reply(req, rep, n)
	if aerr != nil {
		fail(aerr)
		return
	}
	if rep.Malformed {
		out = out[:len(out)/2]
	}
	s.writeBody(ctx, w, http.StatusOK, out, rep.SlowBody, nil)
}

// writeBody writes a JSON body, in pieces spread over slow when it is positive.
func (s *Server) writeBody(ctx context.Context, w http.ResponseWriter, status int, body []byte, slow time.Duration, extra http.Header) {
	for k, v := range extra {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if slow <= 0 {
		_, _ = w.Write(body)
		return
	}
	const pieces = 8
	size := (len(body) + pieces - 1) / pieces
	if size == 0 {
		size = 1
	}
	chunks := (len(body) + size - 1) / size
	flusher, _ := w.(http.Flusher)
	for i := 0; i < len(body); i += size {
		if i > 0 && !s.wait(ctx, slow/time.Duration(chunks-1)) {
			return
		}
		if _, err := w.Write(body[i:min(i+size, len(body))]); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// drop closes the connection without writing anything.
func drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // the standard way to abort a response
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, d dialect, e *apiError, reqID string) {
	for k, v := range e.retryAfterHeaders(d) {
		w.Header()[k] = v
	}
	writeJSON(w, e.status, d.errorBody(e, reqID))
}

// estimateTokens is a crude token count: a quarter of the length, at least 1.
func estimateTokens(s string) int {
	return max(1, (len(s)+3)/4)
}
