package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// ignoreTransport ignores what the SDKs add on their own: headers and the raw body.
var ignoreTransport = cmpopts.IgnoreFields(Request{}, "Raw", "Header")

func ptr[T any](v T) *T { return &v }

// testCtx bounds every call, so that a fault that hangs a client fails the
// test instead of the run.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// provider drives one fake through its official SDK, for the tests that are
// the same for both.
type provider struct {
	name  string
	start func(Handler, ...Option) *Server
	// ask sends prompt as a user message and returns the answer's text.
	ask func(ctx context.Context, s *Server, retries int, prompt string) (string, error)
	// apiError reports the status and error type of an SDK API error.
	apiError func(err error) (status int, typ string, header http.Header, ok bool)
	// retryWait is the shortest wait the SDK makes for a RetryAfter of 300ms:
	// OpenAI reads retry-after-ms, Anthropic sends whole seconds.
	retryWait time.Duration
}

func providers() []provider {
	return []provider{
		{
			name:  OpenAI,
			start: NewOpenAI,
			ask: func(ctx context.Context, s *Server, retries int, prompt string) (string, error) {
				c := openai.NewClient(option.WithBaseURL(s.BaseURL()), option.WithAPIKey("k"), option.WithMaxRetries(retries))
				r, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
					Model:    "gpt-test",
					Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
				})
				if err != nil {
					return "", err
				}
				return r.Choices[0].Message.Content, nil
			},
			apiError: func(err error) (int, string, http.Header, bool) {
				var e *openai.Error
				if !errors.As(err, &e) {
					return 0, "", nil, false
				}
				return e.StatusCode, e.Type, e.Response.Header, true
			},
			retryWait: 300 * time.Millisecond,
		},
		{
			name:  Anthropic,
			start: NewAnthropic,
			ask: func(ctx context.Context, s *Server, retries int, prompt string) (string, error) {
				c := anthropic.NewClient(aoption.WithBaseURL(s.BaseURL()), aoption.WithAPIKey("k"), aoption.WithMaxRetries(retries))
				m, err := c.Messages.New(ctx, anthropic.MessageNewParams{
					Model:     "claude-test",
					MaxTokens: 256,
					Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
				})
				if err != nil {
					return "", err
				}
				var text strings.Builder
				for _, b := range m.Content {
					text.WriteString(b.Text)
				}
				return text.String(), nil
			},
			apiError: func(err error) (int, string, http.Header, bool) {
				var e *anthropic.Error
				if !errors.As(err, &e) {
					return 0, "", nil, false
				}
				return e.StatusCode, string(e.Type()), e.Response.Header, true
			},
			retryWait: time.Second,
		},
	}
}

// TestClientErrors checks that malformed bodies, dropped connections and
// slow bodies reach the SDK as client errors, promptly, and are counted.
func TestClientErrors(t *testing.T) {
	tests := []struct {
		name    string
		reply   Reply
		retries int
		timeout time.Duration // of the call, when not 0
		// want
		requests int64
		deadline bool // the error is the call's deadline
	}{
		{name: "malformed JSON", reply: Reply{Text: "yes", Malformed: true}, requests: 1},
		{name: "dropped connection", reply: Reply{Drop: true}, requests: 1},
		// The SDKs retry dropped connections on their own.
		{name: "dropped connection, SDK retries", reply: Reply{Drop: true}, retries: 1, requests: 2},
		{name: "slow body past the deadline", reply: Reply{Text: "yes", SlowBody: time.Minute}, timeout: 200 * time.Millisecond, requests: 1, deadline: true},
		{name: "latency past the deadline", reply: Reply{Text: "yes", Latency: time.Minute}, timeout: 200 * time.Millisecond, requests: 1, deadline: true},
	}
	for _, p := range providers() {
		for _, tt := range tests {
			t.Run(p.name+"/"+tt.name, func(t *testing.T) {
				s := p.start(Sequence(tt.reply))
				defer closeWithin(t, s, 10*time.Second)
				ctx := testCtx(t)
				if tt.timeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.timeout)
					defer cancel()
				}
				_, err := p.ask(ctx, s, tt.retries, "is this vulnerable?")
				if err == nil {
					t.Fatal("no error")
				}
				if _, _, _, ok := p.apiError(err); ok {
					t.Errorf("got an API error %v, want a client error", err)
				}
				if got := errors.Is(err, context.DeadlineExceeded); got != tt.deadline {
					t.Errorf("error %v: deadline exceeded = %v, want %v", err, got, tt.deadline)
				}
				if got := s.Requests(); got != tt.requests {
					t.Errorf("Requests() = %d, want %d", got, tt.requests)
				}
			})
		}
	}
}

// closeWithin closes s, failing the test if that takes longer than d: a
// handler that ignores cancellation would make Close hang.
func closeWithin(t *testing.T, s *Server, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Errorf("Close did not return within %v", d)
	}
}

// TestRetryAfterHonoured checks that each SDK's own retry waits as long as
// Retry-After says.
func TestRetryAfterHonoured(t *testing.T) {
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			fault := Reply{Status: http.StatusTooManyRequests, RetryAfter: 300 * time.Millisecond}
			s := p.start(FailFirst(1, fault, Fixed("ok")))
			defer s.Close()
			start := time.Now()
			got, err := p.ask(testCtx(t), s, 2, "hi")
			elapsed := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if got != "ok" {
				t.Errorf("answer = %q, want ok", got)
			}
			if n := s.Requests(); n != 2 {
				t.Errorf("Requests() = %d, want 2", n)
			}
			if min := p.retryWait - 10*time.Millisecond; elapsed < min {
				t.Errorf("took %v, want at least %v", elapsed, min)
			}
			var retries []string
			for _, r := range s.Log() {
				retries = append(retries, r.Header.Get("X-Stainless-Retry-Count"))
			}
			if diff := cmp.Diff([]string{"0", "1"}, retries); diff != "" {
				t.Errorf("X-Stainless-Retry-Count (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLatencyAndSlowBody(t *testing.T) {
	tests := []struct {
		name  string
		reply Reply
		least time.Duration
	}{
		{"latency", Reply{Text: "slow answer", Latency: 150 * time.Millisecond}, 150 * time.Millisecond},
		{"slow body", Reply{Text: "slow answer", SlowBody: 150 * time.Millisecond}, 150 * time.Millisecond},
		{"both", Reply{Text: "slow answer", Latency: 100 * time.Millisecond, SlowBody: 100 * time.Millisecond}, 200 * time.Millisecond},
	}
	const tolerance = 5 * time.Millisecond
	for _, p := range providers() {
		for _, tt := range tests {
			t.Run(p.name+"/"+tt.name, func(t *testing.T) {
				s := p.start(Sequence(tt.reply))
				defer s.Close()
				start := time.Now()
				got, err := p.ask(testCtx(t), s, 0, "hi")
				elapsed := time.Since(start)
				if err != nil {
					t.Fatal(err)
				}
				if got != tt.reply.Text {
					t.Errorf("answer = %q, want %q", got, tt.reply.Text)
				}
				if elapsed < tt.least-tolerance {
					t.Errorf("took %v, want at least %v", elapsed, tt.least)
				}
			})
		}
	}
}

func TestStatusFaultsBothProviders(t *testing.T) {
	tests := []struct {
		name                  string
		reply                 Reply
		openaiType, anthrType string
	}{
		{"429", Reply{Status: 429}, "requests", "rate_limit_error"},
		{"500", Reply{Status: 500}, "server_error", "api_error"},
		{"503", Reply{Status: 503}, "server_error", "api_error"},
		{"529", Reply{Status: 529}, "server_error", "overloaded_error"},
		{"override", Reply{Status: 500, ErrorType: "custom_error"}, "custom_error", "custom_error"},
	}
	for _, p := range providers() {
		for _, tt := range tests {
			t.Run(p.name+"/"+tt.name, func(t *testing.T) {
				s := p.start(Sequence(tt.reply))
				defer s.Close()
				_, err := p.ask(testCtx(t), s, 0, "hi")
				status, typ, _, ok := p.apiError(err)
				if !ok {
					t.Fatalf("error %v is not an API error", err)
				}
				want := tt.openaiType
				if p.name == Anthropic {
					want = tt.anthrType
				}
				if status != tt.reply.Status || typ != want {
					t.Errorf("got %d %q, want %d %q", status, typ, tt.reply.Status, want)
				}
			})
		}
	}
}

// TestConcurrentCounting sends requests from many goroutines and checks that
// each is counted and logged once.
func TestConcurrentCounting(t *testing.T) {
	const n = 40
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			s := p.start(func(r Request) Reply {
				return Reply{Text: strings.ToUpper(r.Messages[0].Content)}
			})
			defer s.Close()
			ctx := testCtx(t)
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i := range n {
				wg.Go(func() {
					prompt := fmt.Sprintf("prompt %02d", i)
					got, err := p.ask(ctx, s, 0, prompt)
					if err == nil && got != strings.ToUpper(prompt) {
						err = fmt.Errorf("answer %q to %q", got, prompt)
					}
					errs[i] = err
				})
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			if got := s.Requests(); got != n {
				t.Errorf("Requests() = %d, want %d", got, n)
			}
			var prompts, want []string
			for i, r := range s.Log() {
				prompts = append(prompts, r.Messages[0].Content)
				want = append(want, fmt.Sprintf("prompt %02d", i))
			}
			sort.Strings(prompts)
			if diff := cmp.Diff(want, prompts); diff != "" {
				t.Errorf("logged prompts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRawRequests posts bodies in the shapes the SDKs do not all produce
// (string content, content parts, system messages, custom tools) and checks
// what the server understood and answered.
func TestRawRequests(t *testing.T) {
	tests := []struct {
		name     string
		provider string
		opts     []Option
		path     string
		header   map[string]string
		body     string
		// want
		status  int
		errType string   // error.type of the body
		req     *Request // the logged request; nil for none
	}{
		{
			name: "openai: parts, developer, tool calls, custom tool", provider: OpenAI, path: "/v1/chat/completions",
			header: map[string]string{"Authorization": "Bearer sk-1"},
			body: `{"model":"gpt-x","temperature":0.5,"max_tokens":64,"seed":3,"logprobs":true,"top_logprobs":2,
				"tools":[{"type":"function","function":{"name":"read_file","parameters":{}}},{"type":"custom","custom":{"name":"grep"}}],
				"messages":[
				{"role":"system","content":[{"type":"text","text":"sys one"}]},
				{"role":"developer","content":"sys two"},
				{"role":"user","content":[{"type":"text","text":"look at"},{"type":"image_url","image_url":{"url":"data:,"}},{"type":"text","text":"this"}]},
				{"role":"assistant","content":null,"tool_calls":[
					{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.c\"}"}},
					{"id":"c2","type":"custom","custom":{"name":"grep","input":"strcpy"}}]},
				{"role":"tool","tool_call_id":"c2","content":[{"type":"text","text":"a.c:3"}]},
				{"role":"tool","tool_call_id":"c1","content":"int main(){}"}]}`,
			status: 200,
			req: &Request{
				Provider: OpenAI, Model: "gpt-x", System: "sys one\nsys two",
				Messages: []Message{
					{Role: "user", Content: "look at\nthis"},
					{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.c"}`}, {ID: "c2", Name: "grep", Arguments: "strcpy"}}},
					{Role: "tool", Content: "a.c:3", ToolCallID: "c2"},
					{Role: "tool", Content: "int main(){}", ToolCallID: "c1"},
				},
				Tools:       []string{"read_file", "grep"},
				Temperature: ptr(0.5), MaxTokens: 64, Seed: ptr[int64](3), Logprobs: true, TopLogprobs: 2,
				APIKey: "sk-1",
			},
		},
		{
			name: "openai: root path and no key", provider: OpenAI, path: "/chat/completions",
			body:   `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			status: 401, errType: "invalid_request_error",
			req: &Request{Provider: OpenAI, Model: "m", Messages: []Message{{Role: "user", Content: "hi"}}},
		},
		{
			name: "openai: key optional", provider: OpenAI, path: "/v1/chat/completions", opts: []Option{WithKeyOptional()},
			body:   `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			status: 200,
			req:    &Request{Provider: OpenAI, Model: "m", Messages: []Message{{Role: "user", Content: "hi"}}},
		},
		{
			name: "openai: top_logprobs without logprobs", provider: OpenAI, path: "/v1/chat/completions",
			header: map[string]string{"Authorization": "Bearer k"},
			body:   `{"model":"m","top_logprobs":3,"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, errType: "invalid_request_error",
			req: &Request{Provider: OpenAI, Model: "m", TopLogprobs: 3, Messages: []Message{{Role: "user", Content: "hi"}}, APIKey: "k"},
		},
		{
			name: "openai: invalid JSON", provider: OpenAI, path: "/v1/chat/completions",
			header: map[string]string{"Authorization": "Bearer k"},
			body:   `{"model":`, status: 400, errType: "invalid_request_error",
		},
		{
			name: "openai: unknown path", provider: OpenAI, path: "/v1/completions",
			body: `{}`, status: 404, errType: "invalid_request_error",
		},
		{
			name: "anthropic: string content, system string, tool results", provider: Anthropic, path: "/v1/messages",
			header: map[string]string{"X-Api-Key": "sk-ant"},
			body: `{"model":"claude-x","max_tokens":100,"temperature":0,"system":"be brief",
				"tools":[{"name":"read_file","input_schema":{"type":"object"}}],
				"messages":[
				{"role":"user","content":"look at a.c"},
				{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"text","text":"reading"},
					{"type":"tool_use","id":"t1","name":"read_file","input":{ "path" : "a.c" }},
					{"type":"tool_use","id":"t2","name":"read_file","input":{"path":"b.c"}}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"int a;"},
					{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"int b;"}],"is_error":true},
					{"type":"text","text":"and?"}]},
				{"role":"system","content":[{"type":"text","text":"answer now"}]}]}`,
			status: 200,
			req: &Request{
				Provider: Anthropic, Model: "claude-x", System: "be brief\nanswer now",
				Messages: []Message{
					{Role: "user", Content: "look at a.c"},
					{Role: "assistant", Content: "reading", ToolCalls: []ToolCall{{ID: "t1", Name: "read_file", Arguments: `{"path":"a.c"}`}, {ID: "t2", Name: "read_file", Arguments: `{"path":"b.c"}`}}},
					{Role: "tool", Content: "int a;", ToolCallID: "t1"},
					{Role: "tool", Content: "int b;", ToolCallID: "t2"},
					{Role: "user", Content: "and?"},
				},
				Tools:       []string{"read_file"},
				Temperature: ptr(0.0), MaxTokens: 100, APIKey: "sk-ant",
			},
		},
		{
			name: "anthropic: no key", provider: Anthropic, path: "/v1/messages",
			body:   `{"model":"c","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`,
			status: 401, errType: "authentication_error",
			req: &Request{Provider: Anthropic, Model: "c", MaxTokens: 1, Messages: []Message{{Role: "user", Content: "hi"}}},
		},
		{
			name: "anthropic: max_tokens required", provider: Anthropic, path: "/v1/messages",
			header: map[string]string{"X-Api-Key": "k"},
			body:   `{"model":"c","messages":[{"role":"user","content":"hi"}]}`,
			status: 400, errType: "invalid_request_error",
			req: &Request{Provider: Anthropic, Model: "c", Messages: []Message{{Role: "user", Content: "hi"}}, APIKey: "k"},
		},
		{
			name: "anthropic: text before tool_result", provider: Anthropic, path: "/v1/messages",
			header: map[string]string{"X-Api-Key": "k"},
			body: `{"model":"c","max_tokens":1,"messages":[{"role":"user","content":"go"},
				{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},
				{"role":"user","content":[{"type":"text","text":"here"},{"type":"tool_result","tool_use_id":"t1","content":"x"}]}]}`,
			status: 400, errType: "invalid_request_error",
			req: &Request{Provider: Anthropic, Model: "c", MaxTokens: 1, APIKey: "k", Messages: []Message{
				{Role: "user", Content: "go"},
				{Role: "assistant", ToolCalls: []ToolCall{{ID: "t1", Name: "f", Arguments: "{}"}}},
				{Role: "user", Content: "here"},
				{Role: "tool", Content: "x", ToolCallID: "t1"},
			}},
		},
		{
			name: "anthropic: unknown path", provider: Anthropic, path: "/v1/complete",
			body: `{}`, status: 404, errType: "not_found_error",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := providerStart(tt.provider)(Fixed("ok"), tt.opts...)
			defer s.Close()
			req, err := http.NewRequestWithContext(testCtx(t), http.MethodPost, s.URL+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tt.status {
				t.Errorf("status %d, want %d: %s", res.StatusCode, tt.status, body)
			}
			if tt.errType != "" {
				var e struct {
					Error struct {
						Type string `json:"type"`
					} `json:"error"`
				}
				if err := json.Unmarshal(body, &e); err != nil || e.Error.Type != tt.errType {
					t.Errorf("error type %q (%v), want %q in %s", e.Error.Type, err, tt.errType, body)
				}
			}
			var want []Request
			if tt.req != nil {
				want = []Request{*tt.req}
			}
			if diff := cmp.Diff(want, s.Log(), ignoreTransport, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Log() (-want +got):\n%s", diff)
			}
			if s.Requests() != 1 {
				t.Errorf("Requests() = %d, want 1", s.Requests())
			}
		})
	}
}

func providerStart(name string) func(Handler, ...Option) *Server {
	if name == Anthropic {
		return NewAnthropic
	}
	return NewOpenAI
}

func TestMalformedBodyIsTruncatedJSON(t *testing.T) {
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			s := p.start(Sequence(Reply{Text: "yes", Malformed: true}))
			defer s.Close()
			body := `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`
			req, _ := http.NewRequestWithContext(testCtx(t), http.MethodPost, s.URL+map[string]string{OpenAI: "/v1/chat/completions", Anthropic: "/v1/messages"}[p.name], strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer k")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || json.Valid(got) || !bytes.HasPrefix(got, []byte("{")) {
				t.Errorf("got %d %s, want 200 and a truncated JSON object", res.StatusCode, got)
			}
		})
	}
}

func TestSequenceAndFailFirst(t *testing.T) {
	a, b, fault := Reply{Text: "a"}, Reply{Text: "b"}, Reply{Status: 500}
	tests := []struct {
		name string
		h    Handler
		want []Reply
	}{
		{"sequence", Sequence(a, b), []Reply{a, b, b, b}},
		{"empty sequence", Sequence(), []Reply{{}, {}}},
		{"fail first", FailFirst(2, fault, Fixed("b")), []Reply{fault, fault, b, b}},
		{"fail none", FailFirst(0, fault, Fixed("a")), []Reply{a, a}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Reply
			for range tt.want {
				got = append(got, tt.h(Request{}))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("replies (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSynthesisedLogprobs(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"", []string{}},
		{"yes", []string{"yes"}},
		{"vul yes", []string{"vul", " yes"}},
		{" lead  and\ntrail ", []string{" lead", "  and", "\ntrail", " "}},
		{"naïve café", []string{"naïve", " café"}},
	}
	for _, tt := range tests {
		var got []string
		for _, lp := range logprobsFor(Reply{Text: tt.text}) {
			if lp.Logprob != 0 || lp.Top != nil {
				t.Errorf("%q: token %+v, want logprob 0 and no alternatives", tt.text, lp)
			}
			got = append(got, lp.Token)
		}
		if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%q: tokens (-want +got):\n%s", tt.text, diff)
		}
		if strings.Join(got, "") != tt.text {
			t.Errorf("%q: tokens do not concatenate to the text", tt.text)
		}
	}
}

func TestCloseIsIdempotent(t *testing.T) {
	s := NewOpenAI(nil)
	s.Close()
	s.Close()
}

// TestCloseDuringLatency checks that Close cuts a pending latency short and
// that the waiting client gets an error, not an empty answer.
func TestCloseDuringLatency(t *testing.T) {
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			called := make(chan struct{})
			var once sync.Once
			s := p.start(func(Request) Reply {
				once.Do(func() { close(called) })
				return Reply{Text: "late", Latency: time.Hour}
			})
			errc := make(chan error, 1)
			go func() {
				_, err := p.ask(testCtx(t), s, 0, "hi")
				errc <- err
			}()
			<-called
			closeWithin(t, s, 10*time.Second)
			err := <-errc
			if err == nil {
				t.Fatal("no error")
			}
			if _, _, _, ok := p.apiError(err); ok || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v, want a connection error", err)
			}
		})
	}
}
