package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
)

// TestClassify sends each fault over the wire, as the providers send it, and checks what it
// means for a run: only what every case would hit is fatal.
func TestClassify(t *testing.T) {
	const ctxMsg = "This model's maximum context length is 128000 tokens. However, your messages resulted in 130571 tokens. Please reduce the length of the messages."
	tests := []struct {
		name     string
		provider string
		reply    llmtest.Reply
		first    bool // no call succeeded before
		want     llm.Class
		wantMsg  string // in the error's text
	}{
		{name: "context length, first call", provider: "openai", first: true,
			reply: llmtest.Reply{Status: 400, ErrorCode: "context_length_exceeded", ErrorParam: "messages", ErrorMessage: ctxMsg},
			want:  llm.PerCase, wantMsg: "maximum context length is 128000 tokens"},
		{name: "context length, later", provider: "openai",
			reply: llmtest.Reply{Status: 400, ErrorCode: "context_length_exceeded", ErrorParam: "messages", ErrorMessage: ctxMsg},
			want:  llm.PerCase, wantMsg: "context_length_exceeded"},
		{name: "invalid prompt", provider: "openai", first: true,
			reply: llmtest.Reply{Status: 400, ErrorCode: "invalid_prompt", ErrorMessage: "Invalid prompt: your prompt was flagged as potentially violating our usage policy."},
			want:  llm.PerCase, wantMsg: "usage policy"},
		{name: "content filter", provider: "openai", first: true,
			reply: llmtest.Reply{Status: 400, ErrorCode: "content_filter", ErrorMessage: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy."},
			want:  llm.PerCase, wantMsg: "content management policy"},
		{name: "413", provider: "openai", first: true, reply: llmtest.Reply{Status: 413}, want: llm.PerCase},
		{name: "422", provider: "openai", first: true, reply: llmtest.Reply{Status: 422}, want: llm.PerCase},
		{name: "finish_reason content_filter", provider: "openai", first: true,
			reply: llmtest.Reply{Text: "I", FinishReason: "content_filter"}, want: llm.PerCase, wantMsg: "content filter"},
		{name: "generic 400", provider: "openai", first: true, reply: llmtest.Reply{Status: 400}, want: llm.PerCase},
		{name: "unsupported parameter, first call", provider: "openai", first: true,
			reply: llmtest.Reply{Status: 400, ErrorCode: "unsupported_parameter", ErrorParam: "max_tokens",
				ErrorMessage: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."},
			want: llm.Fatal, wantMsg: "max_tokens"},
		{name: "unsupported value of temperature, first call", provider: "openai", first: true,
			reply: llmtest.Reply{Status: 400, ErrorCode: "unsupported_value", ErrorParam: "temperature",
				ErrorMessage: "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported."},
			want: llm.Fatal},
		{name: "a parameter named after a success", provider: "openai",
			reply: llmtest.Reply{Status: 400, ErrorCode: "unsupported_parameter", ErrorParam: "logprobs", ErrorMessage: "Unsupported parameter: 'logprobs'."},
			want:  llm.PerCase},
		{name: "401", provider: "openai", reply: llmtest.Reply{Status: 401}, want: llm.Fatal},
		{name: "403", provider: "openai", reply: llmtest.Reply{Status: 403}, want: llm.Fatal},
		{name: "404", provider: "openai", reply: llmtest.Reply{Status: 404}, want: llm.Fatal},
		{name: "insufficient quota", provider: "openai", reply: llmtest.Reply{Status: 429, ErrorType: "insufficient_quota"}, want: llm.Fatal},
		{name: "429", provider: "openai", first: true, reply: llmtest.Reply{Status: 429}, want: llm.Transient},
		{name: "500", provider: "openai", first: true, reply: llmtest.Reply{Status: 500}, want: llm.Transient},
		{name: "anthropic prompt too long", provider: "anthropic", first: true,
			reply: llmtest.Reply{Status: 400, ErrorMessage: "prompt is too long: 215003 tokens > 200000 maximum"},
			want:  llm.PerCase, wantMsg: "prompt is too long"},
		{name: "anthropic 413", provider: "anthropic", first: true, reply: llmtest.Reply{Status: 413}, want: llm.PerCase},
		{name: "anthropic max_tokens over the model's, first call", provider: "anthropic", first: true,
			reply: llmtest.Reply{Status: 400, ErrorMessage: "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-6"},
			want:  llm.Fatal, wantMsg: "max_tokens"},
		{name: "anthropic messages field, first call", provider: "anthropic", first: true,
			reply: llmtest.Reply{Status: 400, ErrorMessage: "messages.0.content: Input should be a valid list"}, want: llm.PerCase},
		{name: "anthropic refusal", provider: "anthropic", first: true, reply: llmtest.Reply{Text: "no", FinishReason: "refusal"}, want: llm.PerCase},
		{name: "anthropic 402", provider: "anthropic", reply: llmtest.Reply{Status: 402}, want: llm.Fatal},
		{name: "anthropic 529", provider: "anthropic", first: true, reply: llmtest.Reply{Status: 529}, want: llm.Transient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replies := []llmtest.Reply{tt.reply}
			if !tt.first {
				replies = []llmtest.Reply{{Text: "ok"}, tt.reply}
			}
			newSrv, newModel := llmtest.NewOpenAI, func(u string) llm.Model { return llm.NewOpenAI("m", u, "k", nil) }
			if tt.provider == "anthropic" {
				newSrv, newModel = llmtest.NewAnthropic, func(u string) llm.Model { return llm.NewAnthropic("m", u, "k", nil) }
			}
			srv := newSrv(llmtest.Sequence(replies...))
			defer srv.Close()
			m := llm.WithFirstCall(newModel(srv.BaseURL()))
			var err error
			for range replies {
				_, err = m.Complete(context.Background(), ask("x"))
			}
			if err == nil {
				t.Fatal("no error")
			}
			got := struct {
				Class llm.Class
				Fatal bool
			}{llm.Classify(err), llm.IsFatal(err)}
			want := struct {
				Class llm.Class
				Fatal bool
			}{tt.want, tt.want == llm.Fatal}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%v: (-want +got):\n%s", err, d)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not carry %q", err, tt.wantMsg)
			}
			var ae *llm.APIError
			if !errors.As(err, &ae) || ae.FirstCall != tt.first {
				t.Errorf("FirstCall %v, want %v", ae != nil && ae.FirstCall, tt.first)
			}
		})
	}
}

// TestFirstCallIsPerProcess checks that every call counts as first until one succeeds, and none
// after.
func TestFirstCallIsPerProcess(t *testing.T) {
	bad := llmtest.Reply{Status: 400, ErrorCode: "unsupported_parameter", ErrorParam: "temperature", ErrorMessage: "Unsupported parameter: 'temperature'."}
	srv := llmtest.NewOpenAI(llmtest.Sequence(bad, bad, llmtest.Reply{Text: "ok"}, bad))
	defer srv.Close()
	m := llm.WithFirstCall(llm.NewOpenAI("m", srv.BaseURL(), "k", nil))
	var got []llm.Class
	for range 4 {
		_, err := m.Complete(context.Background(), ask("x"))
		if err == nil {
			got = append(got, -1)
			continue
		}
		got = append(got, llm.Classify(err))
	}
	if d := cmp.Diff([]llm.Class{llm.Fatal, llm.Fatal, -1, llm.PerCase}, got); d != "" {
		t.Errorf("classes (-want +got):\n%s", d)
	}
}
