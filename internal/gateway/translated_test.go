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
)

// gemini posts a generateContent request as Gemini's clients do (the key in x-goog-api-key, the
// model and the stream in the path) and returns the status and the body.
func gemini(t *testing.T, hc *http.Client, key string, stream bool, body string) (int, []byte) {
	t.Helper()
	path := "/v1beta/models/gemini-x:generateContent"
	if stream {
		path = "/v1beta/models/gemini-x:streamGenerateContent?alt=sse"
	}
	req, _ := http.NewRequest(http.MethodPost, "http://gateway"+path, strings.NewReader(body))
	req.Header.Set("X-Goog-Api-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if stream && resp.StatusCode == 200 && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("a stream answered as %s", resp.Header.Get("Content-Type"))
	}
	return resp.StatusCode, b
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
// the agent's format, naming the provider, with the provider's status.
func TestTranslatedRefusal(t *testing.T) {
	g, _, _, hc, _ := setup(t, "anthropic", llmtest.Sequence(llmtest.Reply{Status: 400, ErrorMessage: "prompt is too long: 300000 tokens > 200000 maximum"}), subject.Limits{})
	status, body := gemini(t, hc, g.Token(), false, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	want := `{"error":{"code":400,"message":"anthropic: prompt is too long: 300000 tokens \u003e 200000 maximum","status":"INVALID_ARGUMENT"}}`
	if status != 400 || string(body) != want || llm.Classify(g.Fault()) != llm.PerCase {
		t.Errorf("%d %s, fault %v; want 400 %s", status, body, g.Fault(), want)
	}
}

// TestTranslatedCallIDs: Gemini gives its calls no ids, and llm numbers them per answer; the
// agent gets a new id for each call of the unit.
func TestTranslatedCallIDs(t *testing.T) {
	call := llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "bash", Arguments: `{"command":"ls"}`}}, InputTokens: 10, OutputTokens: 5}
	g, _, _, hc, _ := setup(t, "gemini", llmtest.Sequence(call, call), subject.Limits{})
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
}
