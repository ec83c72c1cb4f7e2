package llm_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/store"
)

// toolReply asks for a shell command, with usage the tests check.
var toolReply = llmtest.Reply{Text: "Looking.", ToolCalls: []llmtest.ToolCall{{ID: "call_9", Name: "bash", Arguments: `{"command":"ls -la"}`}},
	InputTokens: 300, CachedInputTokens: 100, OutputTokens: 40}

// rawBodies are one request per API, streamed or not.
func rawBody(api llm.API, model string, stream bool) string {
	s := "false"
	if stream {
		s = "true"
	}
	switch api {
	case llm.AnthropicMessages:
		return `{"model":"` + model + `","max_tokens":100,"stream":` + s + `,"metadata":{"user_id":"session-1"},"messages":[{"role":"user","content":"hi"}]}`
	case llm.OpenAIChat:
		return `{"model":"` + model + `","stream":` + s + `,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`
	}
	return `{"model":"` + model + `","stream":` + s + `,"prompt_cache_key":"thread-1","input":[{"type":"message","id":"msg_1","role":"user","content":"hi"}]}`
}

func rawStack(t *testing.T, api llm.API, h llmtest.Handler, o llm.Options) (llm.RawModel, *llmtest.Server) {
	t.Helper()
	var srv *llmtest.Server
	spec := "openai:gpt-test"
	if api == llm.AnthropicMessages {
		srv, spec = llmtest.NewAnthropic(h), "anthropic:claude-test"
	} else {
		srv = llmtest.NewOpenAI(h)
	}
	t.Cleanup(srv.Close)
	o.BaseURL = srv.BaseURL()
	o.Getenv = func(k string) string {
		return map[string]string{"ANTHROPIC_API_KEY": "sk-real", "OPENAI_API_KEY": "sk-real"}[k]
	}
	if o.Retry.Sleep == nil {
		o.Retry = llm.RetryPolicy{MaxRetries: 3, Base: time.Millisecond, Max: time.Second}
	}
	st, err := llm.New(spec, o)
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := llm.AsRaw(st.Model)
	if !ok {
		t.Fatal("the stack takes no raw requests")
	}
	return raw, srv
}

var apis = []llm.API{llm.AnthropicMessages, llm.OpenAIChat, llm.OpenAIResponses}

func modelOf(api llm.API) string {
	if api == llm.AnthropicMessages {
		return "claude-test"
	}
	return "gpt-test"
}

// TestRawUsageAndAnswer: a raw call's usage and answer are read from its JSON or its events,
// the body reaches the provider verbatim with the real key and the protocol headers only.
func TestRawUsageAndAnswer(t *testing.T) {
	for _, api := range apis {
		for _, stream := range []bool{false, true} {
			t.Run(string(api)+map[bool]string{false: "", true: "/stream"}[stream], func(t *testing.T) {
				raw, srv := rawStack(t, api, llmtest.Sequence(toolReply), llm.Options{})
				body := rawBody(api, modelOf(api), stream)
				h := http.Header{"Anthropic-Beta": {"tools-2025"}, "X-Api-Key": {"dummy"}, "Authorization": {"Bearer dummy"}, "X-Claude-Code-Session-Id": {"s1"}}
				resp, err := raw.CompleteRaw(context.Background(), llm.RawRequest{API: api, Body: []byte(body), Header: h})
				if err != nil {
					t.Fatal(err)
				}
				wantUsage := llm.Usage{InputTokens: 300, CachedInputTokens: 100, OutputTokens: 40}
				want := llm.Answer{Text: "Looking.", ToolCalls: []llm.ToolCall{{ID: "call_9", Name: "bash", Arguments: `{"command":"ls -la"}`}}}
				if d := cmp.Diff(wantUsage, resp.Usage); d != "" {
					t.Errorf("usage (-want +got):\n%s", d)
				}
				got := resp.Answer
				got.FinishReason = ""
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("answer (-want +got):\n%s", d)
				}
				if resp.Stream != stream || resp.Status != 200 || (stream && !strings.Contains(string(resp.Body), "data: ")) {
					t.Errorf("stream %v status %d body %.80q", resp.Stream, resp.Status, resp.Body)
				}
				l := srv.Log()[0]
				if string(l.Raw) != body || l.APIKey != "sk-real" || l.Header.Get("X-Claude-Code-Session-Id") != "" {
					t.Errorf("the provider got body %s, key %q, headers %v", l.Raw, l.APIKey, l.Header)
				}
				if api == llm.AnthropicMessages && l.Header.Get("Anthropic-Beta") != "tools-2025" {
					t.Errorf("anthropic-beta not forwarded: %v", l.Header)
				}
			})
		}
	}
}

// TestRawFaults: raw calls are retried as typed ones (a 529, a mid-stream error event, a cut
// stream), a Retry-After is honoured, and refusals keep their class.
func TestRawFaults(t *testing.T) {
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			var slept []time.Duration
			sleep := func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
			faults := []llmtest.Reply{{Status: 529, RetryAfter: 2 * time.Second}, {Text: "x", StreamError: true}, {Text: strings.Repeat("y ", 50), StreamCut: true}}
			if api == llm.OpenAIChat {
				faults[0].Status = 503
			}
			h := llmtest.Sequence(append(faults, toolReply)...)
			raw, srv := rawStack(t, api, h, llm.Options{Retry: llm.RetryPolicy{MaxRetries: 5, Base: time.Millisecond, Max: time.Minute, Sleep: sleep}})
			resp, err := raw.CompleteRaw(context.Background(), llm.RawRequest{API: api, Body: []byte(rawBody(api, modelOf(api), true))})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Retries != 3 || resp.Calls != 4 || srv.Requests() != 4 || resp.Answer.Text != "Looking." {
				t.Errorf("retries %d calls %d (server %d), answer %q; want 3, 4, the fourth answer", resp.Retries, resp.Calls, srv.Requests(), resp.Answer.Text)
			}
			if len(slept) != 3 || slept[0] != 2*time.Second {
				t.Errorf("waits %v; want 3, the first the Retry-After", slept)
			}
		})
	}
	raw, _ := rawStack(t, llm.OpenAIResponses, llmtest.Sequence(llmtest.Reply{Status: 401}), llm.Options{})
	_, err := raw.CompleteRaw(context.Background(), llm.RawRequest{API: llm.OpenAIResponses, Body: []byte(rawBody(llm.OpenAIResponses, "gpt-test", true))})
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Status != 401 || llm.Classify(err) != llm.Fatal {
		t.Errorf("a 401: %v (class %v); want a fatal API error", err, llm.Classify(err))
	}
	raw, _ = rawStack(t, llm.AnthropicMessages, llmtest.Sequence(llmtest.Reply{Status: 400, ErrorMessage: "prompt is too long: 300000 tokens > 200000 maximum"}), llm.Options{})
	_, err = raw.CompleteRaw(context.Background(), llm.RawRequest{API: llm.AnthropicMessages, Body: []byte(rawBody(llm.AnthropicMessages, "claude-test", false))})
	if llm.Classify(err) != llm.PerCase || !strings.Contains(err.Error(), "prompt is too long") {
		t.Errorf("a context overflow: %v (class %v); want per-case", err, llm.Classify(err))
	}
	_, err = raw.CompleteRaw(context.Background(), llm.RawRequest{API: llm.AnthropicMessages, Body: []byte(rawBody(llm.AnthropicMessages, "claude-other", false))})
	if err == nil || !strings.Contains(err.Error(), `model "claude-other" sent to anthropic:claude-test`) {
		t.Errorf("another model's request: %v", err)
	}
}

// TestRawCache: a repeated conversation is answered from the store, whatever session ids the
// client put in it; another repeat index or another question is not.
func TestRawCache(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, api := range apis {
		raw, srv := rawStack(t, api, llmtest.Sequence(toolReply), llm.Options{Cache: st})
		ask := func(body string, repeat int) llm.RawResponse {
			t.Helper()
			resp, err := raw.CompleteRaw(context.Background(), llm.RawRequest{API: api, Body: []byte(body), Repeat: repeat})
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}
		body := rawBody(api, modelOf(api), true)
		first := ask(body, 0)
		other := strings.NewReplacer("session-1", "session-2", "thread-1", "thread-2", "msg_1", "msg_2").Replace(body)
		again := ask(other, 0)
		if first.Cached || !again.Cached || string(again.Body) != string(first.Body) || again.Usage != first.Usage {
			t.Errorf("%s: cached %v then %v; want the second from the cache with the first's body and usage", api, first.Cached, again.Cached)
		}
		ask(body, 1)
		ask(strings.Replace(body, `"hi"`, `"hello"`, 1), 0)
		if srv.Requests() != 3 {
			t.Errorf("%s: the provider got %d requests; want 3 (the repeat and the other question)", api, srv.Requests())
		}
	}
}
