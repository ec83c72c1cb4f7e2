package llmtest

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// openaiClient is how adapters should build a client against the fake: the
// base URL ends in /v1, and the SDK's own retries are off.
func openaiClient(s *Server, opts ...option.RequestOption) openai.Client {
	return openai.NewClient(append([]option.RequestOption{
		option.WithBaseURL(s.BaseURL()),
		option.WithAPIKey("k"),
		option.WithMaxRetries(0),
	}, opts...)...)
}

func userParams(prompt string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
	}
}

func TestOpenAIText(t *testing.T) {
	tests := []struct {
		name   string
		h      Handler
		params openai.ChatCompletionNewParams
		// want
		content string
		finish  string
		logged  Request
	}{
		{
			name: "fixed answer, system prompt and sampling parameters",
			h:    Fixed("vulnerable"),
			params: openai.ChatCompletionNewParams{
				Model: "gpt-4o-mini",
				Messages: []openai.ChatCompletionMessageParamUnion{
					openai.SystemMessage("You are a security auditor."),
					openai.DeveloperMessage("Answer in one word."),
					openai.UserMessage("Is gets(buf) vulnerable?"),
				},
				Temperature:         openai.Float(0),
				MaxCompletionTokens: openai.Int(16),
				Seed:                openai.Int(7),
			},
			content: "vulnerable", finish: "stop",
			logged: Request{
				Provider: OpenAI, Model: "gpt-4o-mini",
				System:      "You are a security auditor.\nAnswer in one word.",
				Messages:    []Message{{Role: "user", Content: "Is gets(buf) vulnerable?"}},
				Temperature: ptr(0.0), MaxTokens: 16, Seed: ptr[int64](7), APIKey: "k",
			},
		},
		{
			name: "function of the prompt, content parts, legacy max_tokens",
			h: func(r Request) Reply {
				return Reply{Text: strings.ToUpper(r.Messages[len(r.Messages)-1].Content), FinishReason: "length"}
			},
			params: openai.ChatCompletionNewParams{
				Model: "gpt-test",
				Messages: []openai.ChatCompletionMessageParamUnion{
					openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{openai.TextContentPart("first"), openai.TextContentPart("second")}),
				},
				MaxTokens: openai.Int(5),
			},
			content: "FIRST\nSECOND", finish: "length",
			logged: Request{
				Provider: OpenAI, Model: "gpt-test",
				Messages:  []Message{{Role: "user", Content: "first\nsecond"}},
				MaxTokens: 5, APIKey: "k",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewOpenAI(tt.h)
			defer s.Close()
			c := openaiClient(s)
			resp, err := c.Chat.Completions.New(testCtx(t), tt.params)
			if err != nil {
				t.Fatal(err)
			}
			type view struct{ Object, Model, Content, Finish, Role string }
			got := view{string(resp.Object), resp.Model, resp.Choices[0].Message.Content, resp.Choices[0].FinishReason, string(resp.Choices[0].Message.Role)}
			want := view{"chat.completion", tt.logged.Model, tt.content, tt.finish, "assistant"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("completion (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]Request{tt.logged}, s.Log(), ignoreTransport); diff != "" {
				t.Errorf("Log() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOpenAIToolRoundTrip runs a two-turn agent loop: the model calls a
// tool, the client sends the result back, the model answers.
func TestOpenAIToolRoundTrip(t *testing.T) {
	s := NewOpenAI(func(r Request) Reply {
		last := r.Messages[len(r.Messages)-1]
		if last.Role == "tool" {
			return Reply{Text: "vulnerable: " + last.Content}
		}
		return Reply{ToolCalls: []ToolCall{{Name: "read_file", Arguments: `{"path":"a.c"}`}}}
	})
	defer s.Close()
	c := openaiClient(s)
	ctx := testCtx(t)
	params := userParams("Check a.c")
	params.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:       "read_file",
		Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}},
	})}

	first, err := c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	choice := first.Choices[0]
	if len(choice.Message.ToolCalls) != 1 {
		t.Fatalf("got %d tool calls, want 1", len(choice.Message.ToolCalls))
	}
	tc := choice.Message.ToolCalls[0]
	type call struct{ ID, Type, Name, Arguments, Finish, Content string }
	want := call{"call_llmtest_1_0", "function", "read_file", `{"path":"a.c"}`, "tool_calls", "null"}
	got := call{tc.ID, tc.Type, tc.Function.Name, tc.Function.Arguments, choice.FinishReason, choice.Message.JSON.Content.Raw()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool call (-want +got):\n%s", diff)
	}

	params.Messages = append(params.Messages, choice.Message.ToParam(), openai.ToolMessage("char buf[8]; gets(buf);", tc.ID))
	second, err := c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := second.Choices[0].Message.Content, "vulnerable: char buf[8]; gets(buf);"; got != want {
		t.Errorf("answer %q, want %q", got, want)
	}
	log := s.Log()
	wantMsgs := []Message{
		{Role: "user", Content: "Check a.c"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "call_llmtest_1_0", Name: "read_file", Arguments: `{"path":"a.c"}`}}},
		{Role: "tool", Content: "char buf[8]; gets(buf);", ToolCallID: "call_llmtest_1_0"},
	}
	if diff := cmp.Diff(wantMsgs, log[1].Messages); diff != "" {
		t.Errorf("second request's messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"read_file"}, log[1].Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestOpenAIUsage(t *testing.T) {
	type usage struct{ Prompt, Cached, Completion, Total int64 }
	tests := []struct {
		name   string
		reply  Reply
		prompt string
		want   usage
	}{
		{"scripted, with cache", Reply{Text: "yes", InputTokens: 1000, CachedInputTokens: 768, OutputTokens: 3}, "hi", usage{1000, 768, 3, 1003}},
		{"estimated", Reply{Text: strings.Repeat("a", 40)}, strings.Repeat("b", 400), usage{100, 0, 10, 110}},
		{"estimated, at least 1", Reply{}, "", usage{1, 0, 1, 2}},
		{"cached above the estimate", Reply{Text: "y", CachedInputTokens: 50}, "hi", usage{50, 50, 1, 51}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewOpenAI(Sequence(tt.reply))
			defer s.Close()
			c := openaiClient(s)
			resp, err := c.Chat.Completions.New(testCtx(t), userParams(tt.prompt))
			if err != nil {
				t.Fatal(err)
			}
			u := resp.Usage
			got := usage{u.PromptTokens, u.PromptTokensDetails.CachedTokens, u.CompletionTokens, u.TotalTokens}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenAILogprobs(t *testing.T) {
	scripted := []TokenLogprob{{Token: "yes", Logprob: -0.1, Top: []TokenLogprob{{Token: "yes", Logprob: -0.1}, {Token: "no", Logprob: -2.4}, {Token: "maybe", Logprob: -5}}}}
	tests := []struct {
		name     string
		reply    Reply
		logprobs bool
		top      int64
		want     []TokenLogprob
	}{
		{"synthesised", Reply{Text: "yes it is"}, true, 0, []TokenLogprob{{Token: "yes"}, {Token: " it"}, {Token: " is"}}},
		{"synthesised with top", Reply{Text: "no"}, true, 1, []TokenLogprob{{Token: "no", Top: []TokenLogprob{{Token: "no"}}}}},
		{"scripted, top cut to what was asked", Reply{Text: "yes", Logprobs: scripted}, true, 2,
			[]TokenLogprob{{Token: "yes", Logprob: -0.1, Top: []TokenLogprob{{Token: "yes", Logprob: -0.1}, {Token: "no", Logprob: -2.4}}}}},
		{"not asked for", Reply{Text: "yes", Logprobs: scripted}, false, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewOpenAI(Sequence(tt.reply))
			defer s.Close()
			params := userParams("vulnerable?")
			if tt.logprobs {
				params.Logprobs = openai.Bool(true)
			}
			if tt.top > 0 {
				params.TopLogprobs = openai.Int(tt.top)
			}
			c := openaiClient(s)
			resp, err := c.Chat.Completions.New(testCtx(t), params)
			if err != nil {
				t.Fatal(err)
			}
			var got []TokenLogprob
			for _, lp := range resp.Choices[0].Logprobs.Content {
				if string(int64sToBytes(lp.Bytes)) != lp.Token {
					t.Errorf("token %q has bytes %v", lp.Token, lp.Bytes)
				}
				tok := TokenLogprob{Token: lp.Token, Logprob: lp.Logprob}
				for _, a := range lp.TopLogprobs {
					tok.Top = append(tok.Top, TokenLogprob{Token: a.Token, Logprob: a.Logprob})
				}
				got = append(got, tok)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("logprobs (-want +got):\n%s", diff)
			}
			if raw := resp.Choices[0].JSON.Logprobs.Raw(); !tt.logprobs && raw != "null" {
				t.Errorf("logprobs = %s, want null when not asked for", raw)
			}
		})
	}
}

func int64sToBytes(v []int64) []byte {
	b := make([]byte, len(v))
	for i, x := range v {
		b[i] = byte(x)
	}
	return b
}

// TestOpenAIErrors checks what the SDK makes of each error answer: status,
// error type and code, and Retry-After headers on the error's response.
func TestOpenAIErrors(t *testing.T) {
	type apiErr struct {
		Status                   int
		Type, Code, Param        string
		RetryAfter, RetryAfterMs string
	}
	tests := []struct {
		name    string
		opts    []Option
		key     string
		reply   Reply
		params  func(*openai.ChatCompletionNewParams)
		reqOpts []option.RequestOption
		want    apiErr
	}{
		{name: "429 with Retry-After", reply: Reply{Status: 429, RetryAfter: 1500 * time.Millisecond},
			want: apiErr{Status: 429, Type: "requests", Code: "rate_limit_exceeded", RetryAfter: "2", RetryAfterMs: "1500"}},
		{name: "429 insufficient quota", reply: Reply{Status: 429, ErrorType: "insufficient_quota"},
			want: apiErr{Status: 429, Type: "insufficient_quota", Code: "insufficient_quota"}},
		{name: "500", reply: Reply{Status: 500}, want: apiErr{Status: 500, Type: "server_error"}},
		{name: "503 with Retry-After", reply: Reply{Status: 503, RetryAfter: 3 * time.Second},
			want: apiErr{Status: 503, Type: "server_error", RetryAfter: "3", RetryAfterMs: "3000"}},
		{name: "missing key", key: "", reply: Reply{Text: "unreached"},
			want: apiErr{Status: 401, Type: "invalid_request_error"}},
		{name: "bad key", opts: []Option{WithBadKey("sk-revoked-0001")}, key: "sk-revoked-0001", reply: Reply{Text: "unreached"},
			want: apiErr{Status: 401, Type: "invalid_request_error", Code: "invalid_api_key"}},
		{name: "unknown model", opts: []Option{WithModels("gpt-a", "gpt-b")}, reply: Reply{Text: "unreached"},
			want: apiErr{Status: 404, Type: "invalid_request_error", Code: "model_not_found", Param: "model"}},
		{name: "streamed logprobs refused", reply: Reply{Text: "unreached"},
			reqOpts: []option.RequestOption{option.WithJSONSet("stream", true), option.WithJSONSet("logprobs", true)},
			want:    apiErr{Status: 400, Type: "invalid_request_error", Code: "unsupported_value", Param: "logprobs"}},
		{name: "tool result without a call", reply: Reply{Text: "unreached"},
			params: func(p *openai.ChatCompletionNewParams) {
				p.Messages = append(p.Messages, openai.ToolMessage("out", "call_x"))
			},
			want: apiErr{Status: 400, Type: "invalid_request_error", Param: "messages.[1].role"}},
		{name: "tool call without a result", reply: Reply{Text: "unreached"},
			params: func(p *openai.ChatCompletionNewParams) {
				p.Messages = append(p.Messages,
					openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ChatCompletionMessageToolCallUnion{{ID: "call_1", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "f", Arguments: "{}"}}}}.ToParam(),
					openai.UserMessage("go on"))
			},
			want: apiErr{Status: 400, Type: "invalid_request_error", Param: "messages.[1].role"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := tt.key
			if key == "" && tt.name != "missing key" {
				key = "k"
			}
			var called atomic.Bool
			s := NewOpenAI(func(Request) Reply { called.Store(true); return tt.reply }, tt.opts...)
			defer s.Close()
			params := userParams("hi")
			if tt.params != nil {
				tt.params(&params)
			}
			c := openaiClient(s, option.WithAPIKey(key))
			_, err := c.Chat.Completions.New(testCtx(t), params, tt.reqOpts...)
			var e *openai.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *openai.Error", err)
			}
			h := e.Response.Header
			got := apiErr{e.StatusCode, e.Type, e.Code, e.Param, h.Get("Retry-After"), h.Get("Retry-After-Ms")}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if e.Message == "" || h.Get("X-Request-Id") == "" {
				t.Errorf("error without message or x-request-id: %s", e.RawJSON())
			}
			if wantCalled := tt.reply.Status != 0; called.Load() != wantCalled {
				t.Errorf("handler called = %v, want %v", called.Load(), wantCalled)
			}
			if s.Requests() != 1 || len(s.Log()) != 1 {
				t.Errorf("Requests() = %d, len(Log()) = %d, want 1 and 1", s.Requests(), len(s.Log()))
			}
		})
	}
}

func TestOpenAIModels(t *testing.T) {
	s := NewOpenAI(Fixed("ok"), WithModels("gpt-a", "gpt-b", "gpt-a"))
	defer s.Close()
	c := openaiClient(s)
	page, err := c.Models.List(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range page.Data {
		ids = append(ids, m.ID)
	}
	if diff := cmp.Diff([]string{"gpt-a", "gpt-b"}, ids); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	params := userParams("hi")
	params.Model = "gpt-b"
	if _, err := c.Chat.Completions.New(testCtx(t), params); err != nil {
		t.Errorf("known model: %v", err)
	}
}

// BenchmarkOpenAIRoundTrip measures whole requests through the official SDK
// against the fake at zero latency, from as many goroutines as GOMAXPROCS,
// with a 2 KB prompt, with and without logprobs (whose decoding dominates the
// SDK's time).
func BenchmarkOpenAIRoundTrip(b *testing.B) {
	s := NewOpenAI(Fixed("VULNERABLE: CWE-787 out-of-bounds write in copy_name()."), WithoutLog())
	defer s.Close()
	// Keep-alive connections for every goroutine, as an adapter's client would have.
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 64
	c := openaiClient(s, option.WithHTTPClient(&http.Client{Transport: transport}))
	code := strings.Repeat("static int copy_name(char *dst, const char *src) {\n\tstrcpy(dst, src);\n\treturn 0;\n}\n", 20)
	plain := openai.ChatCompletionNewParams{
		Model: "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("You are a security expert. Answer VULNERABLE or BENIGN, then the CWE."),
			openai.UserMessage("Is this function vulnerable?\n\n" + code),
		},
		Temperature: openai.Float(0),
	}
	logprobs := plain
	logprobs.Logprobs = openai.Bool(true)
	logprobs.TopLogprobs = openai.Int(2)
	for _, bb := range []struct {
		name   string
		params openai.ChatCompletionNewParams
	}{{"plain", plain}, {"logprobs", logprobs}} {
		b.Run(bb.name, func(b *testing.B) {
			ctx := b.Context()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := c.Chat.Completions.New(ctx, bb.params); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
	if s.Log() != nil {
		b.Error("WithoutLog server kept a log")
	}
}
