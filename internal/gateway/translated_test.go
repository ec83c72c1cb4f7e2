package gateway_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/trace"
)

// gemini posts a generateContent request (the model and the stream in the path) and returns
// the status and the body (read as a stream by llm.ReadRaw, which fails on JSON).
func gemini(t *testing.T, hc *http.Client, key string, stream bool, body string) (int, []byte) {
	t.Helper()
	path := "/v1beta/models/gemini-x:generateContent"
	if stream {
		path = "/v1beta/models/gemini-x:streamGenerateContent?alt=sse"
	}
	status, b := post(t, hc, path, key, body)
	return status, []byte(b)
}

// TestGeminiThroughGateway: a Gemini client, streamed then not, with a Gemini model and,
// translated, an Anthropic and an OpenAI one: the answers read as Gemini's, the trace and the
// meter's usage are the upstream's.
func TestGeminiThroughGateway(t *testing.T) {
	tools := `"tools":[{"functionDeclarations":[{"name":"bash","parametersJsonSchema":{"type":"object","properties":{"command":{"type":"string"}}}}]}]`
	for _, up := range upstreams("gemini") {
		t.Run(up, func(t *testing.T) {
			g, srv, rec, hc, usage := setup(t, up, agent(), subject.Limits{})
			status, body := gemini(t, hc, g.Token(), true, `{"contents":[{"role":"user","parts":[{"text":"audit"}]}],`+tools+`}`)
			_, a, err := llm.ReadRaw(llm.GeminiGenerate, body, true)
			if status != 200 || err != nil || len(a.ToolCalls) != 1 || a.ToolCalls[0].ID != "call_1" || a.Text != "Looking." {
				t.Fatalf("turn 0: %d %+v %v\n%s", status, a, err, body)
			}
			status, body = gemini(t, hc, g.Token(), false, `{"contents":[{"role":"user","parts":[{"text":"audit"}]},
				{"role":"model","parts":[{"text":"Looking."},{"functionCall":{"id":"call_1","name":"bash","args":{"command":"ls"}}}]},
				{"role":"user","parts":[{"functionResponse":{"id":"call_1","name":"bash","response":{"output":"file.c"}}}]}],`+tools+`}`)
			if _, a, err = llm.ReadRaw(llm.GeminiGenerate, body, false); status != 200 || err != nil || a.Text != "done" {
				t.Fatalf("turn 1: %d %+v %v\n%s", status, a, err, body)
			}
			if d := cmp.Diff(wantTrace, kinds(rec.Events())); d != "" {
				t.Errorf("trace (-want +got):\n%s", d)
			}
			checkUpstream(t, srv, g, modelOf(up), usage)
			if up != "gemini" {
				for _, r := range srv.Log() {
					if r.Stream {
						t.Errorf("a translated call went upstream streamed")
					}
				}
			}
		})
	}
}

// TestTranslatedRefusal: the provider's refusal of a translated request reaches the agent in
// the agent's format (as its SDK reads errors), naming the provider, with the provider's status.
func TestTranslatedRefusal(t *testing.T) {
	refuse := llmtest.Sequence(llmtest.Reply{Status: 400, ErrorMessage: "prompt is too long: 300000 tokens > 200000 maximum"})
	for _, tc := range []struct{ up, path, body, want string }{
		{"openai", "/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
			`{"error":{"message":"openai: prompt is too long: 300000 tokens \u003e 200000 maximum","type":"invalid_request_error"},"type":"error"}`},
		{"gemini", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			`{"error":{"code":null,"message":"gemini: prompt is too long: 300000 tokens \u003e 200000 maximum","param":null,"type":"invalid_request_error"}}`},
		{"anthropic", "/v1/responses", `{"model":"m","input":"hi"}`,
			`{"error":{"code":null,"message":"anthropic: prompt is too long: 300000 tokens \u003e 200000 maximum","param":null,"type":"invalid_request_error"}}`},
		{"anthropic", "/v1beta/models/x:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
			`{"error":{"code":400,"message":"anthropic: prompt is too long: 300000 tokens \u003e 200000 maximum","status":"INVALID_ARGUMENT"}}`},
	} {
		g, _, _, hc, _ := setup(t, tc.up, refuse, subject.Limits{})
		status, body := post(t, hc, tc.path, g.Token(), tc.body)
		if status != 400 || body != tc.want || llm.Classify(g.Fault()) != llm.PerCase {
			t.Errorf("%s to %s: %d %s, fault %v; want 400 %s", tc.path, tc.up, status, body, g.Fault(), tc.want)
		}
	}
}

// TestTranslatedCallIDs: Gemini gives its calls no ids, and llm numbers them per answer; the
// agent gets a new id for each call of the unit.
func TestTranslatedCallIDs(t *testing.T) {
	call := llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "bash", Arguments: `{"command":"ls"}`}}, InputTokens: 10, OutputTokens: 5}
	g, _, rec, hc, _ := setup(t, "gemini", llmtest.Sequence(call, call, call), subject.Limits{})
	var ids []string
	for range 2 {
		status, body := post(t, hc, "/v1/messages", g.Token(), `{"model":"m","max_tokens":50,"messages":[{"role":"user","content":"go"}],
			"tools":[{"name":"bash","input_schema":{"type":"object"}}]}`)
		_, a, err := llm.ReadRaw(llm.AnthropicMessages, []byte(body), false)
		if status != 200 || err != nil || len(a.ToolCalls) != 1 {
			t.Fatalf("%d %v %s", status, err, body)
		}
		ids = append(ids, a.ToolCalls[0].ID)
	}
	if ids[0] == ids[1] || ids[0] == "" {
		t.Errorf("the two calls' ids: %q", ids)
	}
	// The agent sends the renamed call's result back: the trace pairs it with the call as
	// the trace has it (the provider's id).
	status, body := post(t, hc, "/v1/messages", g.Token(), `{"model":"m","max_tokens":50,"messages":[{"role":"user","content":"go"},
		{"role":"assistant","content":[{"type":"tool_use","id":"`+ids[1]+`","name":"bash","input":{"command":"ls"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+ids[1]+`","content":"a.c"}]}],"tools":[{"name":"bash","input_schema":{"type":"object"}}]}`)
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	var calls, results []string
	for _, e := range rec.Events() {
		switch e.Kind {
		case trace.ToolCall:
			calls = append(calls, e.CallID)
		case trace.ToolResult:
			results = append(results, e.CallID)
		}
	}
	if len(results) != 1 || len(calls) < 2 || results[0] != calls[1] {
		t.Errorf("the trace's calls %q and results %q: the result of the second call is not paired with it", calls, results)
	}
}

// TestModelsInTheAgentsFormat: the model list is in the format the agent asks in, whatever the
// unit's model's provider.
func TestModelsInTheAgentsFormat(t *testing.T) {
	g, _, _, hc, _ := setup(t, "anthropic", agent(), subject.Limits{})
	for _, tc := range []struct{ path, header, value, want string }{
		{"/v1beta/models", "X-Goog-Api-Key", g.Token(), `{"models":[{"displayName":"claude-sonnet-4-5","name":"models/claude-sonnet-4-5",`},
		{"/v1/models", "Authorization", "Bearer " + g.Token(), `{"data":[{"created":0,"id":"claude-sonnet-4-5","object":"model","owned_by":"vulnbench"}],"object":"list"}`},
		{"/v1/models", "X-Api-Key", g.Token(), `{"data":[{"created_at":"2025-01-01T00:00:00Z","display_name":"claude-sonnet-4-5","id":"claude-sonnet-4-5","type":"model"}],`},
	} {
		req, _ := http.NewRequest(http.MethodGet, "http://gateway"+tc.path, nil)
		req.Header.Set(tc.header, tc.value)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(string(b), tc.want) {
			t.Errorf("GET %s with %s: %d %s; want %s...", tc.path, tc.header, resp.StatusCode, b, tc.want)
		}
	}
}
