package llm

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/vulnbench/vulnbench/internal/llmtest"
)

// recorder keeps the bodies of the responses it carries.
type recorder struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return res, err
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.bodies = append(r.bodies, b)
	r.mu.Unlock()
	res.Body = io.NopCloser(bytes.NewReader(b))
	return res, nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// On the fake's real answers (text, logprobs with alternatives, tool calls, a filtered answer,
// escapes and non-ASCII text), Complete reads what the SDK's decoder read, and reads it without
// that decoder.
func TestCompleteReadsAsTheSDK(t *testing.T) {
	replies := []llmtest.Reply{
		{Text: `{"vulnerable": true, "cwe": ["CWE-89"]}`, InputTokens: 1200, CachedInputTokens: 1000, OutputTokens: 12},
		{Text: "a \"quoted\"\nline\twith tabs, caf\u00e9, \u2603 and \U0001F600 </script>", ReasoningTokens: 40, OutputTokens: 90},
		{Text: "one two three", Logprobs: []llmtest.TokenLogprob{{Token: "one", Logprob: -0.25, Top: []llmtest.TokenLogprob{{Token: "one", Logprob: -0.25}, {Token: "1", Logprob: -1.5e-3}}},
			{Token: " two", Logprob: -3}, {Token: " three", Logprob: 0}}},
		{Text: "synthesised logprobs for each word"},
		{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path": "a/b.go"}`}, {Name: "list", Arguments: ""}}},
		{Text: "", FinishReason: "content_filter"},
		{Text: "cut", FinishReason: "length"},
		{Text: ""},
	}
	i := 0
	srv := llmtest.NewOpenAI(func(llmtest.Request) llmtest.Reply { r := replies[i%len(replies)]; i++; return r })
	defer srv.Close()
	rec := &recorder{}
	o := NewOpenAI("gpt-4o-mini", srv.BaseURL(), "test-key", &http.Client{Transport: rec})
	req := Request{Messages: []Message{{Role: "user", Content: "is it vulnerable?"}}, Logprobs: true, TopLogprobs: 2, MaxTokens: 100,
		Tools: []Tool{{Name: "read_file", Parameters: map[string]any{"type": "object"}}}}
	for range replies {
		got, gerr := o.Complete(context.Background(), req)
		body := rec.bodies[len(rec.bodies)-1]
		want, werr := sdkReadChat(body)
		got.Calls, got.Latency, got.RateLimit = 0, 0, nil
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("body %s: Complete read (-sdk +fast):\n%s", body, d)
		}
		if errText(werr) != errText(gerr) {
			t.Errorf("body %s: error %q, the SDK's %q", body, errText(gerr), errText(werr))
		}
		var c chatRead
		if !c.read(body) {
			t.Errorf("body %s was left to the SDK's decoder", body)
		}
	}
	if len(rec.bodies) != len(replies) {
		t.Fatalf("%d bodies for %d replies", len(rec.bodies), len(replies))
	}
}

// On bodies of odd shapes, readChatBody reads what the SDK's decoder reads, or fails as it does.
func TestReadChatBodyOddShapes(t *testing.T) {
	for _, body := range []string{
		`{}`, `{"choices": []}`, `{"choices": null, "usage": null}`, `{"choices": [{}]}`,
		`{"choices": [{"message": null, "finish_reason": null, "logprobs": null}]}`,
		`{"choices": [{"message": {"content": null, "tool_calls": null}}], "usage": {"prompt_tokens": null}}`,
		`{"choices": [{"message": {"content": "a"}}, {"message": {"content": "b"}}]}`,
		`{"choices": [{"message": {"content": "first"}}], "choices": [{"message": {"content": "last"}}]}`,
		`{"choices": [{"message": {"content": "x", "refusal": "no"}, "logprobs": {"content": [{"token": "x", "logprob": -1, "top_logprobs": []}], "refusal": null}}]}`,
		`{"usage": {"prompt_tokens": 5, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 2}, "completion_tokens_details": {"reasoning_tokens": 3}}, "choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]}`,
		`{"choices": [{"message": {"tool_calls": [{"id": "c", "type": "custom", "custom": {"name": "n", "input": "i"}}]}}]}`,
		`{"choices": [{"message": {"content": "lone \ud800 surrogate"}}]}`,
		"{\"choices\": [{\"message\": {\"content\": \"bad \xff utf-8\"}}]}",
		`{"choices": [{"message": {"content": "esc \u00e9 \/ \\ \" \b\f\n\r\t"}}]}`,
		`{"choices": [{"message": {"content": 5}}]}`, `{"usage": {"prompt_tokens": 1.5}}`, `{"usage": {"prompt_tokens": "3"}}`,
		`{"choices": {"0": {}}}`, `{"choices": [{"message": {"content": true}}]}`, `{"choices": [{"message": {"content": [1, {"a": 2}]}, "finish_reason": 1e21}]}`,
		`{"choices": [{"message": {"content": -0.000001}, "finish_reason": 123456789012}]}`, `{"choices": [{"message": "x", "finish_reason": 3}]}`,
		`{"choices": [{"message": {"content": "a", "content": "b"}, "logprobs": {"content": [{"token": 1, "logprob": "-0.5", "top_logprobs": {}}]}}]}`,
		`{"usage": {"prompt_tokens": -2, "completion_tokens": 1e3, "prompt_tokens_details": [1]}, "choices": [{"message": {"content": "x\u00e9", "tool_calls": [{"id": 4, "function": {"name": null, "arguments": {}}}]}}]}`,
		"{\"choices\": [{\"message\": {\"content\": 1.50}}], \"choices\": 5, \"usage\": {\"prompt_tokens\": \"x\xff\"}}", `{"choi\u0063es": [{"message": {"content": "escaped key"}}]}`,
		`{"choices": [{"message": {"content": "ok"}}]} trailing`, `{"choices": [`, ``, `null`, `[]`, `"text"`, ` {"choices": [{"message": {"content": "sp"}}]} `,
	} {
		want, werr := sdkReadChat([]byte(body))
		var got Response
		gerr := readChatBody([]byte(body), &got)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: read (-sdk +fast):\n%s", body, d)
		}
		// The one difference: the type a body that is not an object fails to be read into.
		if sdkText := strings.ReplaceAll(errText(werr), "openai.ChatCompletion", "llm.looseChat"); sdkText != errText(gerr) {
			t.Errorf("%s: error %q, the SDK's %q", body, errText(gerr), sdkText)
		}
	}
}

// Complete fails on a 200 that is not JSON as the SDK did, with a transient fault.
func TestCompleteNotJSON(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "hello")
	}))
	defer ts.Close()
	o := NewOpenAI("gpt-4o-mini", ts.URL+"/v1/", "k", nil)
	req := Request{Messages: []Message{{Role: "user", Content: "x"}}}
	_, err := o.Complete(context.Background(), req)
	sdk := openai.NewClient(option.WithAPIKey("k"), option.WithMaxRetries(0), option.WithBaseURL(ts.URL+"/v1/"))
	_, serr := sdk.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "gpt-4o-mini",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("x")}})
	if err == nil || serr == nil || err.Error() != (&APIError{Provider: "openai", Message: serr.Error()}).Error() {
		t.Errorf("a text/plain 200: %v; the SDK's %v", err, serr)
	}
	if Classify(err) != Transient {
		t.Errorf("a text/plain 200 is %v, want transient", Classify(err))
	}
}
