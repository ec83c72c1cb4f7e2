package llm

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wireCase is a request and the bodies each adapter sends for it.
type wireCase struct {
	name      string
	req       Request
	caps      Caps   // the OpenAI adapter's
	anthropic string // the Messages body
	chat      string // the chat-completions body
}

var seven = int64(7)

var wireCases = []wireCase{
	{name: "one user turn", req: Request{Messages: []Message{{Role: "user", Content: "is it vulnerable?"}}},
		caps:      DefaultCaps(),
		anthropic: `{"max_tokens":2048,"messages":[{"content":[{"text":"is it vulnerable?","type":"text"}],"role":"user"}],"model":"m"}`,
		chat:      `{"messages":[{"content":"is it vulnerable?","role":"user"}],"model":"m","temperature":0}`},
	{name: "empty user turn, no messages at all elsewhere", req: Request{Messages: []Message{{Role: "user"}}},
		caps:      Caps{},
		anthropic: `{"max_tokens":2048,"messages":[{"content":[{"text":"","type":"text"}],"role":"user"}],"model":"m"}`,
		chat:      `{"messages":[{"content":"","role":"user"}],"model":"m"}`},
	{name: "conversation with tools, temperature, seed, logprobs, schema",
		req: Request{Messages: []Message{{Role: "system", Content: "sys"}, {Role: "system", Content: "two"}, {Role: "user", Content: "u"},
			{Role: "assistant", Content: "a", ToolCalls: []ToolCall{{ID: "c1", Name: "f", Arguments: `{"x":1}`}, {ID: "c2", Name: "g"}, {ID: "c3", Name: "h", Arguments: "not json"}}},
			{Role: "assistant"}, {Role: "tool", ToolCallID: "c1", Content: "out"}, {Role: "tool", Content: ""}},
			Tools: []Tool{{Name: "f", Description: "d", Parameters: map[string]any{"type": "object", "required": []string{"x"},
				"properties": map[string]any{"x": map[string]any{"type": "integer"}}}}, {Name: "g"}, {Name: "h", Parameters: map[string]any{"required": []string{}}}},
			Temperature: 0.5, MaxTokens: 100, Seed: &seven, Logprobs: true, TopLogprobs: 3,
			Schema: &Schema{Name: "v", Schema: map[string]any{"type": "object"}, Strict: true}},
		caps: DefaultCaps(),
		anthropic: `{"max_tokens":100,"model":"m","temperature":0.5,
			"system":[{"text":"sys","type":"text"},{"text":"two","type":"text"}],
			"messages":[{"content":[{"text":"u","type":"text"}],"role":"user"},
				{"content":[{"text":"a","type":"text"},{"id":"c1","input":{"x":1},"name":"f","type":"tool_use"},{"id":"c2","input":{},"name":"g","type":"tool_use"},
					{"id":"c3","input":{},"name":"h","type":"tool_use"}],"role":"assistant"},
				{"role":"assistant"},
				{"content":[{"content":[{"text":"out","type":"text"}],"is_error":false,"tool_use_id":"c1","type":"tool_result"}],"role":"user"},
				{"content":[{"content":[{"text":"","type":"text"}],"is_error":false,"tool_use_id":"","type":"tool_result"}],"role":"user"}],
			"tools":[{"description":"d","input_schema":{"properties":{"x":{"type":"integer"}},"required":["x"],"type":"object"},"name":"f"},{"name":"g"},
				{"input_schema":{"required":[],"type":"object"},"name":"h"}]}`,
		chat: `{"model":"m","logprobs":true,"top_logprobs":3,"max_tokens":100,"seed":7,"temperature":0.5,
			"response_format":{"json_schema":{"name":"v","strict":true,"schema":{"type":"object"}},"type":"json_schema"},
			"messages":[{"content":"sys","role":"system"},{"content":"two","role":"system"},{"content":"u","role":"user"},
				{"content":"a","role":"assistant","tool_calls":[{"id":"c1","function":{"arguments":"{\"x\":1}","name":"f"},"type":"function"},
					{"id":"c2","function":{"arguments":"","name":"g"},"type":"function"},{"id":"c3","function":{"arguments":"not json","name":"h"},"type":"function"}]},
				{"role":"assistant"},{"content":"out","tool_call_id":"c1","role":"tool"},{"content":"","tool_call_id":"","role":"tool"}],
			"tools":[{"function":{"name":"f","description":"d","parameters":{"properties":{"x":{"type":"integer"}},"required":["x"],"type":"object"}},"type":"function"},
				{"function":{"name":"g","description":""},"type":"function"},{"function":{"name":"h","description":"","parameters":{"required":[]}},"type":"function"}]}`},
	{name: "reasoning model: effort, no temperature, max_completion_tokens, logprobs not taken; thinking budget",
		req:  Request{Messages: []Message{{Role: "user", Content: "x"}}, Temperature: 0.7, MaxTokens: 5, Effort: "high", Logprobs: true, TopLogprobs: 2},
		caps: ReasoningCaps(),
		anthropic: `{"max_tokens":16389,"messages":[{"content":[{"text":"x","type":"text"}],"role":"user"}],"model":"m",
			"thinking":{"budget_tokens":16384,"type":"enabled"}}`,
		chat: `{"messages":[{"content":"x","role":"user"}],"model":"m","max_completion_tokens":5,"reasoning_effort":"high"}`},
	{name: "schema to a server that takes none; budget above the thinking budget",
		req:  Request{Messages: []Message{{Role: "user", Content: "x"}}, MaxTokens: 9000, Effort: "low", Schema: &Schema{Name: "v", Schema: map[string]any{}}},
		caps: Caps{Temperature: true, MaxTokensParam: "max_tokens", NoJSONSchema: true},
		anthropic: `{"max_tokens":13096,"messages":[{"content":[{"text":"x","type":"text"}],"role":"user"}],"model":"m",
			"thinking":{"budget_tokens":4096,"type":"enabled"}}`,
		chat: `{"messages":[{"content":"x","role":"user"}],"model":"m","max_tokens":9000,"reasoning_effort":"low","temperature":0}`},
}

// decoded is a JSON text as values, for comparing bodies whatever their key order.
func decoded(t *testing.T, what string, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v in %s", what, err, b)
	}
	return v
}

// The bodies the adapters build: those written here, and those the SDK-based adapters sent.
func TestRequestBodies(t *testing.T) {
	for _, tc := range wireCases {
		t.Run(tc.name, func(t *testing.T) {
			ab, err := NewAnthropic("m", "", "k", nil).MessageBody(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			cb, err := NewOpenAI("m", "", "k", nil).WithCaps(tc.caps).ChatBody(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			sa, err := sdkMessageBody("m", tc.req)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := sdkChatBody("m", tc.caps, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]any{"anthropic": decoded(t, "anthropic", ab), "chat": decoded(t, "chat", cb)}
			if d := cmp.Diff(map[string]any{"anthropic": decoded(t, "want", []byte(tc.anthropic)), "chat": decoded(t, "want", []byte(tc.chat))}, got); d != "" {
				t.Errorf("bodies (-want +got):\n%s", d)
			}
			if d := cmp.Diff(map[string]any{"anthropic": decoded(t, "sdk", sa), "chat": decoded(t, "sdk", sc)}, got); d != "" {
				t.Errorf("bodies (-sdk +got):\n%s", d)
			}
		})
	}
}

// The endpoint's URL: the path under the base, whose query (a proxy's token) is kept.
func TestEndpointURL(t *testing.T) {
	for _, tc := range []struct{ base, path, want string }{
		{"https://api.openai.com/v1/", "/chat/completions", "https://api.openai.com/v1/chat/completions"},
		{"http://h:8/v1?token=x", "/chat/completions", "http://h:8/v1/chat/completions?token=x"},
		{"http://h:8/v1/?token=x&b=2", "/responses", "http://h:8/v1/responses?token=x&b=2"},
		{"http://h:8?k=1", "/v1beta/models/g%2F1:streamGenerateContent?alt=sse", "http://h:8/v1beta/models/g%2F1:streamGenerateContent?k=1&alt=sse"},
		{"", "/v1/messages", "https://api.anthropic.com/v1/messages"},
	} {
		if got := newRawEndpoint(tc.base, "https://api.anthropic.com", "k", nil).url(tc.path); got != tc.want {
			t.Errorf("%q + %q = %q, want %q", tc.base, tc.path, got, tc.want)
		}
	}
}
