package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
)

// TestGemini: a typed call to a gemini: model goes as generateContent to the fake, with the
// system instruction, the function call and its response, the declarations and the effort's
// thinking budget; the answer's function call and usage (thoughts counted as output) come back.
// The same model takes a streamed raw call, its chunks joined.
func TestGemini(t *testing.T) {
	srv := llmtest.NewGemini(func(r llmtest.Request) llmtest.Reply {
		if len(r.ToolResults()) == 0 {
			return llmtest.Reply{Status: 400, ErrorMessage: "no tool result in " + r.Prompt()}
		}
		return llmtest.Reply{Text: "final answer", ToolCalls: []llmtest.ToolCall{{ID: "c2", Name: "read", Arguments: `{"path":"b.c"}`}},
			InputTokens: 120, CachedInputTokens: 20, OutputTokens: 30, ReasoningTokens: 10}
	})
	defer srv.Close()
	stack, err := llm.New("gemini:gemini-2.5-flash", llm.Options{BaseURL: srv.BaseURL(), Getenv: func(k string) string {
		return map[string]string{"GEMINI_API_KEY": "g-key"}[k]
	}})
	if err != nil {
		t.Fatal(err)
	}
	m := llm.WithEffort(stack, llm.EffortHigh)
	resp, err := m.Complete(context.Background(), llm.Request{Messages: []llm.Message{
		{Role: "system", Content: "be brief"}, {Role: "user", Content: "look"},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read", Arguments: `{"path":"a.c"}`}}},
		{Role: "tool", ToolCallID: "c1", Content: "int main;"},
	}, Tools: []llm.Tool{{Name: "read", Parameters: map[string]any{"type": "object"}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{InputTokens: 120, CachedInputTokens: 20, OutputTokens: 30, ReasoningTokens: 10}
	if d := cmp.Diff(want, resp.Usage); d != "" || resp.Text != "final answer" || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Arguments != `{"path":"b.c"}` {
		t.Errorf("response %+v (usage -want +got %s)", resp, d)
	}
	got := srv.Log()[0]
	if got.APIKey != "g-key" || got.Model != "gemini-2.5-flash" || got.System != "be brief" || !strings.Contains(string(got.Raw), `"thinkingBudget":16384`) ||
		!cmp.Equal(got.Tools, []string{"read"}) {
		t.Errorf("request %+v\n%s", got, got.Raw)
	}
	raw, _ := llm.AsRaw(stack)
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"id":"x","name":"read","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"id":"x","name":"read","response":{"output":"ok"}}}]}]}`)
	rr, err := raw.CompleteRaw(context.Background(), llm.RawRequest{API: llm.GeminiGenerate, Model: "gemini-2.5-flash", Stream: true, Body: body})
	if err != nil || !rr.Stream || rr.Answer.Text != "final answer" || rr.Usage != want {
		t.Errorf("streamed: %v %+v %+v", err, rr.Answer, rr.Usage)
	}
	if !srv.Log()[1].Stream {
		t.Error("the raw call was not streamed")
	}
}
