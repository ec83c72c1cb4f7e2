package llmtest

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
)

// anthropicClient is how adapters should build a client against the fake:
// the base URL has no /v1, and the SDK's own retries are off.
func anthropicClient(s *Server, opts ...aoption.RequestOption) anthropic.Client {
	return anthropic.NewClient(append([]aoption.RequestOption{
		aoption.WithBaseURL(s.BaseURL()),
		aoption.WithAPIKey("k"),
		aoption.WithMaxRetries(0),
	}, opts...)...)
}

func messageParams(prompt string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 512,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
	}
}

func TestAnthropicText(t *testing.T) {
	tests := []struct {
		name   string
		h      Handler
		params anthropic.MessageNewParams
		// want
		text, stop string
		logged     Request
	}{
		{
			name: "fixed answer and system prompt",
			h:    Fixed("benign"),
			params: anthropic.MessageNewParams{
				Model:     "claude-sonnet-4-5",
				MaxTokens: 64,
				System:    []anthropic.TextBlockParam{{Text: "You are a security auditor."}, {Text: "Answer in one word."}},
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(
					anthropic.NewTextBlock("Is strlcpy(dst, src, n) vulnerable?"),
					anthropic.NewTextBlock("Think first."))},
			},
			text: "benign", stop: "end_turn",
			logged: Request{
				Provider: Anthropic, Model: "claude-sonnet-4-5",
				System:    "You are a security auditor.\nAnswer in one word.",
				Messages:  []Message{{Role: "user", Content: "Is strlcpy(dst, src, n) vulnerable?\nThink first."}},
				MaxTokens: 64, APIKey: "k",
			},
		},
		{
			name: "function of the prompt, scripted stop reason",
			h: func(r Request) Reply {
				return Reply{Text: strings.ToUpper(r.Messages[0].Content), FinishReason: "max_tokens"}
			},
			params: messageParams("cut"),
			text:   "CUT", stop: "max_tokens",
			logged: Request{Provider: Anthropic, Model: "claude-test", Messages: []Message{{Role: "user", Content: "cut"}}, MaxTokens: 512, APIKey: "k"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewAnthropic(tt.h)
			defer s.Close()
			c := anthropicClient(s)
			m, err := c.Messages.New(testCtx(t), tt.params)
			if err != nil {
				t.Fatal(err)
			}
			type view struct{ Type, Role, Model, Block, Text, Stop, StopSequence string }
			got := view{string(m.Type), string(m.Role), string(m.Model), "", "", string(m.StopReason), m.JSON.StopSequence.Raw()}
			if len(m.Content) == 1 {
				got.Block, got.Text = m.Content[0].Type, m.Content[0].Text
			}
			want := view{"message", "assistant", tt.logged.Model, "text", tt.text, tt.stop, "null"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]Request{tt.logged}, s.Log(), ignoreTransport); diff != "" {
				t.Errorf("Log() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAnthropicToolRoundTrip runs a two-turn agent loop: the model calls a
// tool, the client sends the result back, the model answers.
func TestAnthropicToolRoundTrip(t *testing.T) {
	s := NewAnthropic(func(r Request) Reply {
		last := r.Messages[len(r.Messages)-1]
		if last.Role == "tool" {
			return Reply{Text: "vulnerable: " + last.Content}
		}
		return Reply{Text: "Let me read it.", ToolCalls: []ToolCall{{Name: "read_file", Arguments: `{"path":"a.c"}`}}}
	})
	defer s.Close()
	c := anthropicClient(s)
	ctx := testCtx(t)
	params := messageParams("Check a.c")
	params.Tools = []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
		Name:        "read_file",
		InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"path": map[string]any{"type": "string"}}},
	}}}

	first, err := c.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	type block struct{ Type, Text, ID, Name, Input string }
	var blocks []block
	for _, b := range first.Content {
		blocks = append(blocks, block{b.Type, b.Text, b.ID, b.Name, string(b.Input)})
	}
	wantBlocks := []block{{Type: "text", Text: "Let me read it."}, {Type: "tool_use", ID: "toolu_llmtest_1_0", Name: "read_file", Input: `{"path":"a.c"}`}}
	if diff := cmp.Diff(wantBlocks, blocks); diff != "" {
		t.Fatalf("content (-want +got):\n%s", diff)
	}
	if first.StopReason != anthropic.StopReasonToolUse {
		t.Errorf("stop reason %q, want tool_use", first.StopReason)
	}

	params.Messages = append(params.Messages, first.ToParam(), anthropic.NewUserMessage(
		anthropic.NewToolResultBlock("toolu_llmtest_1_0", "char buf[8]; gets(buf);", false)))
	second, err := c.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := second.Content[0].Text, "vulnerable: char buf[8]; gets(buf);"; got != want {
		t.Errorf("answer %q, want %q", got, want)
	}
	log := s.Log()
	wantMsgs := []Message{
		{Role: "user", Content: "Check a.c"},
		{Role: "assistant", Content: "Let me read it.", ToolCalls: []ToolCall{{ID: "toolu_llmtest_1_0", Name: "read_file", Arguments: `{"path":"a.c"}`}}},
		{Role: "tool", Content: "char buf[8]; gets(buf);", ToolCallID: "toolu_llmtest_1_0"},
	}
	if diff := cmp.Diff(wantMsgs, log[1].Messages); diff != "" {
		t.Errorf("second request's messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"read_file"}, log[1].Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestAnthropicUsage(t *testing.T) {
	type usage struct{ Input, CacheRead, CacheCreation, Output int64 }
	tests := []struct {
		name   string
		reply  Reply
		prompt string
		want   usage
	}{
		{"scripted, with cache", Reply{Text: "yes", InputTokens: 1000, CachedInputTokens: 768, OutputTokens: 3}, "hi", usage{232, 768, 0, 3}},
		{"estimated", Reply{Text: strings.Repeat("a", 40)}, strings.Repeat("b", 400), usage{100, 0, 0, 10}},
		{"estimated, at least 1", Reply{}, "", usage{1, 0, 0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewAnthropic(Sequence(tt.reply))
			defer s.Close()
			c := anthropicClient(s)
			m, err := c.Messages.New(testCtx(t), messageParams(tt.prompt))
			if err != nil {
				t.Fatal(err)
			}
			u := m.Usage
			got := usage{u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, u.OutputTokens}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAnthropicErrors checks what the SDK makes of each error answer: status,
// error type, request id and Retry-After on the error's response.
func TestAnthropicErrors(t *testing.T) {
	type apiErr struct {
		Status                         int
		Type, RetryAfter, RetryAfterMs string
	}
	tests := []struct {
		name    string
		opts    []Option
		key     string
		reply   Reply
		params  func(*anthropic.MessageNewParams)
		reqOpts []aoption.RequestOption
		want    apiErr
	}{
		{name: "429 with Retry-After", reply: Reply{Status: 429, RetryAfter: 1500 * time.Millisecond},
			want: apiErr{Status: 429, Type: "rate_limit_error", RetryAfter: "2"}},
		{name: "529 overloaded", reply: Reply{Status: 529, RetryAfter: time.Second}, want: apiErr{Status: 529, Type: "overloaded_error", RetryAfter: "1"}},
		{name: "500", reply: Reply{Status: 500}, want: apiErr{Status: 500, Type: "api_error"}},
		{name: "bad key", opts: []Option{WithBadKey("sk-ant-revoked")}, key: "sk-ant-revoked", reply: Reply{Text: "unreached"},
			want: apiErr{Status: 401, Type: "authentication_error"}},
		{name: "unknown model", opts: []Option{WithModels("claude-a")}, reply: Reply{Text: "unreached"},
			want: apiErr{Status: 404, Type: "not_found_error"}},
		{name: "tool result without a call", reply: Reply{Text: "unreached"},
			params: func(p *anthropic.MessageNewParams) {
				p.Messages = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_x", "out", false))}
			},
			want: apiErr{Status: 400, Type: "invalid_request_error"}},
		{name: "tool call without a result", reply: Reply{Text: "unreached"},
			params: func(p *anthropic.MessageNewParams) {
				p.Messages = append(p.Messages,
					anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_1", map[string]any{}, "f")),
					anthropic.NewUserMessage(anthropic.NewTextBlock("go on")))
			},
			want: apiErr{Status: 400, Type: "invalid_request_error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := tt.key
			if key == "" {
				key = "k"
			}
			var called atomic.Bool
			s := NewAnthropic(func(Request) Reply { called.Store(true); return tt.reply }, tt.opts...)
			defer s.Close()
			params := messageParams("hi")
			if tt.params != nil {
				tt.params(&params)
			}
			c := anthropicClient(s, aoption.WithAPIKey(key))
			_, err := c.Messages.New(testCtx(t), params, tt.reqOpts...)
			var e *anthropic.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *anthropic.Error", err)
			}
			h := e.Response.Header
			got := apiErr{e.StatusCode, string(e.Type()), h.Get("Retry-After"), h.Get("Retry-After-Ms")}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if e.RequestID != "req_llmtest_1" || e.Message == "" {
				t.Errorf("request id %q, message %q: want req_llmtest_1 and a message", e.RequestID, e.Message)
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

func TestAnthropicBadToolArguments(t *testing.T) {
	s := NewAnthropic(Sequence(Reply{ToolCalls: []ToolCall{{Name: "f", Arguments: `not json`}}}))
	defer s.Close()
	c := anthropicClient(s)
	_, err := c.Messages.New(testCtx(t), messageParams("hi"))
	var e *anthropic.Error
	if !errors.As(err, &e) || e.StatusCode != 500 || !strings.Contains(e.Message, "not a JSON object") {
		t.Errorf("got %v, want a 500 that names the scripting mistake", err)
	}
}
