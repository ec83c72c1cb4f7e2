package llmtest

import (
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"

	"github.com/vulnbench/vulnbench/internal/tokens"
)

// words counts words, so that each part's share of a count is plain.
func words(_, text string) int { return len(strings.Fields(text)) }

func TestCountTokens(t *testing.T) {
	req := Request{Model: "m", System: "be brief", Messages: []Message{
		{Role: "user", Content: "is this code vulnerable"},
		{Role: "assistant", ToolCalls: []ToolCall{{Name: "read_file", Arguments: `{"path": "a.c"}`}}},
		{Role: "tool", Content: "int x;", ToolCallID: "c1"},
	}}
	tests := []struct {
		name        string
		reply, want Reply
	}{
		{"counted", Reply{Text: "no it is not"}, Reply{Text: "no it is not", InputTokens: 2 + 4 + 1 + 2 + 2, OutputTokens: 4}},
		{"tool calls counted", Reply{ToolCalls: []ToolCall{{Name: "search", Arguments: `{"pattern": "gets"}`}}},
			Reply{ToolCalls: []ToolCall{{Name: "search", Arguments: `{"pattern": "gets"}`}}, InputTokens: 11, OutputTokens: 1 + 2}},
		{"scripted counts kept", Reply{Text: "yes", InputTokens: 900, OutputTokens: 40}, Reply{Text: "yes", InputTokens: 900, OutputTokens: 40}},
		{"faults untouched", Reply{Status: 429, RetryNow: true}, Reply{Status: 429, RetryNow: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CountTokens(words, Sequence(tt.reply))(req)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("reply (-want +got):\n%s", d)
			}
		})
	}
}

// Over the wire, with the real tokenizer: the usage both fakes report is the o200k_base count
// of the system prompt plus the user's message, and of the answer.
func TestCountTokensOverTheWire(t *testing.T) {
	tc := tokens.New()
	count := func(model, text string) int { n, _ := tc.Count(model, text); return n }
	system, prompt, answer := "You are a security auditor.", "Is `strcpy(buf, argv[1]);` safe?", `{"vulnerable": true, "cwe": "CWE-787"}`
	in := count("gpt-test", system) + count("gpt-test", prompt)
	out := count("gpt-test", answer)
	if in < 10 || out < 10 {
		t.Fatalf("counts %d and %d: too small to tell from an estimate", in, out)
	}

	s := NewOpenAI(CountTokens(count, Fixed(answer)))
	defer s.Close()
	params := userParams(prompt)
	params.Messages = append([]openai.ChatCompletionMessageParamUnion{openai.SystemMessage(system)}, params.Messages...)
	oc := openaiClient(s)
	resp, err := oc.Chat.Completions.New(testCtx(t), params)
	if err != nil {
		t.Fatal(err)
	}
	if got := [2]int64{resp.Usage.PromptTokens, resp.Usage.CompletionTokens}; got != [2]int64{int64(in), int64(out)} {
		t.Errorf("OpenAI usage %v, want [%d %d]", got, in, out)
	}

	a := NewAnthropic(CountTokens(count, Fixed(answer)))
	defer a.Close()
	mp := messageParams(prompt)
	mp.System = []anthropic.TextBlockParam{{Text: system}}
	ac := anthropicClient(a)
	m, err := ac.Messages.New(testCtx(t), mp)
	if err != nil {
		t.Fatal(err)
	}
	in = count("claude-test", system) + count("claude-test", prompt)
	out = count("claude-test", answer)
	if got := [2]int64{m.Usage.InputTokens, m.Usage.OutputTokens}; got != [2]int64{int64(in), int64(out)} {
		t.Errorf("Anthropic usage %v, want [%d %d]", got, in, out)
	}
}
