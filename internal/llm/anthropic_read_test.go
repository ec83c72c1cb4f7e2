package llm

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/llmtest"
)

// On the fake's real answers (text, tool calls, cache reads and writes, a refusal, a cut
// answer), Complete reads what the SDK read.
func TestAnthropicReadsAsTheSDK(t *testing.T) {
	replies := []llmtest.Reply{
		{Text: `{"vulnerable": true, "cwe": ["CWE-89"]}`, InputTokens: 1200, CachedInputTokens: 1000, CacheWriteTokens: 100, OutputTokens: 12},
		{Text: "a \"quoted\"\nline\twith tabs, caf\u00e9, \u2603 and \U0001F600 </script>", OutputTokens: 90},
		{Text: "let me look", ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "read_file", Arguments: `{"path": "a/b.go"}`}, {Name: "list", Arguments: ""}}},
		{Text: "no", FinishReason: "refusal"},
		{Text: "cut", FinishReason: "max_tokens"},
		{Text: ""},
	}
	i := 0
	srv := llmtest.NewAnthropic(func(llmtest.Request) llmtest.Reply { r := replies[i%len(replies)]; i++; return r })
	defer srv.Close()
	rec := &recorder{}
	a := NewAnthropic("claude-test", srv.BaseURL(), "test-key", &http.Client{Transport: rec})
	req := Request{Messages: []Message{{Role: "user", Content: "is it vulnerable?"}}, MaxTokens: 100,
		Tools: []Tool{{Name: "read_file", Parameters: map[string]any{"type": "object"}}}}
	for range replies {
		got, gerr := a.Complete(context.Background(), req)
		body := rec.bodies[len(rec.bodies)-1]
		want, werr := sdkReadMessage(body)
		got.Calls, got.Latency, got.RateLimit = 0, 0, nil
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("body %s: Complete read (-sdk +got):\n%s", body, d)
		}
		if errText(werr) != errText(gerr) {
			t.Errorf("body %s: error %q, the SDK's %q", body, errText(gerr), errText(werr))
		}
		batch, berr := ReadMessage(body)
		if d := cmp.Diff(want, batch); d != "" || errText(berr) != errText(werr) {
			t.Errorf("body %s: ReadMessage read (-sdk +got):\n%s\nerror %q, the SDK's %q", body, d, errText(berr), errText(werr))
		}
	}
	if len(rec.bodies) != len(replies) {
		t.Fatalf("%d bodies for %d replies", len(rec.bodies), len(replies))
	}
}
