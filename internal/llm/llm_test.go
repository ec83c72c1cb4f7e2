package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/store"
)

func ask(text string) llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: text}}}
}

func TestAdaptersSpeakBothProviders(t *testing.T) {
	reply := llmtest.Reply{Text: `{"vulnerable": true}`, InputTokens: 120, CachedInputTokens: 20, OutputTokens: 7,
		Logprobs: []llmtest.TokenLogprob{{Token: "true", Logprob: -0.1, Top: []llmtest.TokenLogprob{{Token: "false", Logprob: -2.4}}}}}
	oa := llmtest.NewOpenAI(func(llmtest.Request) llmtest.Reply { return reply })
	defer oa.Close()
	an := llmtest.NewAnthropic(func(llmtest.Request) llmtest.Reply { r := reply; r.Logprobs = nil; return r })
	defer an.Close()

	o := llm.NewOpenAI("gpt-4o-mini", oa.BaseURL(), "k", nil)
	req := ask("is this code vulnerable?")
	req.Logprobs, req.TopLogprobs = true, 2
	seed := int64(7)
	req.Seed = &seed
	got, err := o.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{Text: reply.Text, Usage: llm.Usage{InputTokens: 120, CachedInputTokens: 20, OutputTokens: 7},
		Logprobs:     []llm.TokenLogprob{{Token: "true", Logprob: -0.1, Top: []llm.TokenLogprob{{Token: "false", Logprob: -2.4}}}},
		FinishReason: "stop", Calls: 1}
	if d := cmp.Diff(want, got, cmpIgnoreLatency); d != "" {
		t.Errorf("openai (-want +got):\n%s", d)
	}
	sent := oa.Log()[0]
	if sent.System != "be brief" || sent.Messages[len(sent.Messages)-1].Content != "is this code vulnerable?" ||
		sent.Temperature == nil || *sent.Temperature != 0 || !sent.Logprobs || sent.TopLogprobs != 2 || sent.Seed == nil || *sent.Seed != 7 {
		t.Errorf("openai request as received: %+v", sent)
	}

	a := llm.NewAnthropic("claude-3-5-haiku-latest", an.BaseURL(), "k", nil)
	got, err = a.Complete(context.Background(), ask("and this?"))
	if err != nil {
		t.Fatal(err)
	}
	// Anthropic reports cache reads apart from input tokens; the adapter adds them back.
	want = llm.Response{Text: reply.Text, Usage: llm.Usage{InputTokens: 120, CachedInputTokens: 20, OutputTokens: 7}, FinishReason: "end_turn", Calls: 1}
	if d := cmp.Diff(want, got, cmpIgnoreLatency); d != "" {
		t.Errorf("anthropic (-want +got):\n%s", d)
	}
	if s := an.Log()[0]; s.System != "be brief" || s.MaxTokens != llm.DefaultMaxTokens {
		t.Errorf("anthropic request as received: %+v", s)
	}
}

var cmpIgnoreLatency = cmp.Comparer(func(a, b time.Duration) bool { return true })

func TestToolCallsRoundTrip(t *testing.T) {
	for _, newSrv := range []func(llmtest.Handler, ...llmtest.Option) *llmtest.Server{llmtest.NewOpenAI, llmtest.NewAnthropic} {
		srv := newSrv(func(r llmtest.Request) llmtest.Reply {
			last := r.Messages[len(r.Messages)-1]
			if last.Role == "tool" {
				return llmtest.Reply{Text: "the result was " + last.Content}
			}
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "get_callers", Arguments: `{"function":"parse"}`}}}
		})
		var m llm.Model = llm.NewOpenAI("m", srv.BaseURL(), "k", nil)
		req := ask("who calls parse?")
		req.Tools = []llm.Tool{{Name: "get_callers", Description: "callers of a function",
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"function": map[string]any{"type": "string"}}, "required": []string{"function"}}}}
		if prov := providerOf(srv); prov == "anthropic" {
			m = llm.NewAnthropic("m", srv.BaseURL(), "k", nil)
		}
		r1, err := m.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]llm.ToolCall{{ID: "call_1", Name: "get_callers", Arguments: `{"function":"parse"}`}}, r1.ToolCalls); d != "" {
			t.Fatalf("%s tool call (-want +got):\n%s", providerOf(srv), d)
		}
		req.Messages = append(req.Messages, llm.Message{Role: "assistant", ToolCalls: r1.ToolCalls},
			llm.Message{Role: "tool", ToolCallID: "call_1", Content: "main.c:12 main"})
		r2, err := m.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if r2.Text != "the result was main.c:12 main" {
			t.Errorf("%s: second turn %q", providerOf(srv), r2.Text)
		}
		if tools := srv.Log()[0].Tools; len(tools) != 1 || tools[0] != "get_callers" {
			t.Errorf("%s: tools offered %v", providerOf(srv), tools)
		}
		srv.Close()
	}
}

// TestToolSchemaSentWhole checks that both adapters send a tool's JSON Schema as given, including
// keywords beyond properties and a "required" decoded from JSON ([]any, not []string).
func TestToolSchemaSentWhole(t *testing.T) {
	const schema = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`
	var params map[string]any
	if err := json.Unmarshal([]byte(schema), &params); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		provider string
		newSrv   func(llmtest.Handler, ...llmtest.Option) *llmtest.Server
		newModel func(baseURL string) llm.Model
		sent     func(raw []byte) (json.RawMessage, error) // the schema in the request body
	}{
		{"openai", llmtest.NewOpenAI, func(u string) llm.Model { return llm.NewOpenAI("m", u, "k", nil) },
			func(raw []byte) (json.RawMessage, error) {
				var body struct {
					Tools []struct {
						Function struct{ Parameters json.RawMessage } `json:"function"`
					} `json:"tools"`
				}
				err := json.Unmarshal(raw, &body)
				if err != nil || len(body.Tools) != 1 {
					return nil, fmt.Errorf("tools in %s: %v", raw, err)
				}
				return body.Tools[0].Function.Parameters, nil
			}},
		{"anthropic", llmtest.NewAnthropic, func(u string) llm.Model { return llm.NewAnthropic("m", u, "k", nil) },
			func(raw []byte) (json.RawMessage, error) {
				var body struct {
					Tools []struct {
						InputSchema json.RawMessage `json:"input_schema"`
					} `json:"tools"`
				}
				err := json.Unmarshal(raw, &body)
				if err != nil || len(body.Tools) != 1 {
					return nil, fmt.Errorf("tools in %s: %v", raw, err)
				}
				return body.Tools[0].InputSchema, nil
			}},
	} {
		t.Run(tt.provider, func(t *testing.T) {
			srv := tt.newSrv(llmtest.Fixed("ok"))
			defer srv.Close()
			req := ask("read a.c")
			req.Tools = []llm.Tool{{Name: "read_file", Parameters: params}}
			if _, err := tt.newModel(srv.BaseURL()).Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			raw, err := tt.sent(srv.Log()[0].Raw)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(params, got); d != "" {
				t.Errorf("schema sent (-want +got):\n%s", d)
			}
		})
	}
}

func providerOf(s *llmtest.Server) string {
	if strings.HasSuffix(s.BaseURL(), "/v1") {
		return "openai"
	}
	return "anthropic"
}

// recorder stands in for time in retry tests: it records each wait instead of sleeping.
type recorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *recorder) sleep(_ context.Context, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, d)
	return nil
}

func TestRetryHonoursRetryAfterAndFailsFastOnFatal(t *testing.T) {
	tests := []struct {
		name      string
		h         llmtest.Handler
		calls     int
		waits     []time.Duration // nil: any
		wantErr   string
		wantFatal bool
	}{
		{name: "429 with Retry-After twice, then ok",
			h:     llmtest.FailFirst(2, llmtest.Reply{Status: 429, RetryAfter: 3 * time.Second}, llmtest.Fixed("ok")),
			calls: 3, waits: []time.Duration{3 * time.Second, 3 * time.Second}},
		{name: "429 with Retry-After: 0 is retried at once",
			h:     llmtest.FailFirst(1, llmtest.Reply{Status: 429, RetryNow: true}, llmtest.Fixed("ok")),
			calls: 2, waits: []time.Duration{0}},
		{name: "500 then ok: one jittered backoff in [0, 1 s]",
			h: llmtest.FailFirst(1, llmtest.Reply{Status: 500}, llmtest.Fixed("ok")), calls: 2},
		{name: "malformed JSON then ok", h: llmtest.FailFirst(1, llmtest.Reply{Malformed: true}, llmtest.Fixed("ok")), calls: 2},
		{name: "dropped connection then ok", h: llmtest.FailFirst(1, llmtest.Reply{Drop: true}, llmtest.Fixed("ok")), calls: 2},
		{name: "401 is fatal: one call", h: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: 401} },
			calls: 1, wantErr: "HTTP 401", wantFatal: true},
		{name: "404 is fatal: one call", h: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: 404} },
			calls: 1, wantErr: "HTTP 404", wantFatal: true},
		{name: "always 503: gives up after 1+3 attempts", h: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: 503} },
			calls: 4, wantErr: "gave up after 4 attempts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewOpenAI(tt.h)
			defer srv.Close()
			rec := &recorder{}
			m := llm.WithRetry(llm.NewOpenAI("m", srv.BaseURL(), "k", nil), llm.RetryPolicy{MaxRetries: 3, Base: time.Second, Max: time.Minute, Sleep: rec.sleep})
			resp, err := m.Complete(context.Background(), ask("x"))
			if got := int(srv.Requests()); got != tt.calls || resp.Calls != tt.calls || resp.Retries != tt.calls-1 {
				t.Errorf("server saw %d requests, response counts %d calls %d retries; want %d calls", got, resp.Calls, resp.Retries, tt.calls)
			}
			if tt.waits != nil {
				if d := cmp.Diff(tt.waits, rec.waits); d != "" {
					t.Errorf("waits (-want +got):\n%s", d)
				}
			}
			for i, w := range rec.waits {
				if tt.waits == nil && (w < 0 || w > time.Second<<i) {
					t.Errorf("backoff %d: %v outside the jittered exponential range [0, %v]", i, w, time.Second<<i)
				}
			}
			var sum time.Duration
			for _, w := range rec.waits {
				sum += w
			}
			if resp.Waited != sum {
				t.Errorf("response says it waited %v, the waits sum to %v", resp.Waited, sum)
			}
			if tt.wantErr == "" {
				if err != nil || resp.Text != "ok" {
					t.Fatalf("got %q, %v; want ok", resp.Text, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || llm.IsFatal(err) != tt.wantFatal {
				t.Errorf("err = %v (fatal %v), want %q (fatal %v)", err, llm.IsFatal(err), tt.wantErr, tt.wantFatal)
			}
		})
	}
}

func TestFatalMessagesNameProviderAndWhatToCheck(t *testing.T) {
	for _, tt := range []struct {
		newSrv   func(llmtest.Handler, ...llmtest.Option) *llmtest.Server
		provider string
		status   int
		want     string
	}{
		{llmtest.NewOpenAI, "openai", 401, "openai rejected the API key (HTTP 401): check the key in OPENAI_API_KEY"},
		{llmtest.NewAnthropic, "anthropic", 401, "anthropic rejected the API key (HTTP 401): check the key in ANTHROPIC_API_KEY"},
		{llmtest.NewOpenAI, "openai", 404, "openai does not know the model or endpoint (HTTP 404): check --model and --base-url"},
	} {
		srv := tt.newSrv(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: tt.status} })
		var m llm.Model = llm.NewOpenAI("m", srv.BaseURL(), "k", nil)
		if tt.provider == "anthropic" {
			m = llm.NewAnthropic("m", srv.BaseURL(), "k", nil)
		}
		_, err := m.Complete(context.Background(), ask("x"))
		var ae *llm.APIError
		if !errors.As(err, &ae) || ae.Fatal() != tt.want {
			t.Errorf("%s %d: %v, want %q", tt.provider, tt.status, err, tt.want)
		}
		srv.Close()
	}
}

func TestCacheMakesNoSecondCall(t *testing.T) {
	srv := llmtest.NewOpenAI(llmtest.Fixed(`{"vulnerable": false}`))
	defer srv.Close()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := llm.WithCache(llm.NewOpenAI("m", srv.BaseURL(), "k", nil), st, llm.CacheOptions{})
	first, err := c.Complete(context.Background(), ask("a"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Complete(context.Background(), ask("a"))
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != 1 || !again.Cached || first.Cached || again.Text != first.Text || again.Usage != first.Usage {
		t.Errorf("requests %d, first %+v, again %+v: want one call and an identical cached answer", srv.Requests(), first, again)
	}
	// Another repeat, temperature or prompt is another question.
	r := ask("a")
	r.Repeat = 1
	c.Complete(context.Background(), r)
	r = ask("a")
	r.Temperature = 0.7
	c.Complete(context.Background(), r)
	c.Complete(context.Background(), ask("b"))
	if srv.Requests() != 4 {
		t.Errorf("server saw %d requests, want 4", srv.Requests())
	}
	if s := c.Stats(); s.Hits != 1 || s.Misses != 4 || s.PutErrors != 0 {
		t.Errorf("stats %+v", s)
	}
	// The key never depends on the API key.
	k1, _ := llm.CacheKey("", llm.Info{Provider: "openai", Model: "m"}, ask("a"))
	k2, _ := llm.CacheKey("", llm.Info{Provider: "openai", Model: "m", BaseHost: "127.0.0.1:8000"}, ask("a"))
	if k1 == k2 || len(k1) != 64 {
		t.Errorf("keys %q %q: the serving host must count", k1, k2)
	}
}

func TestCallTimeoutIsARetryableFault(t *testing.T) {
	srv := llmtest.NewOpenAI(llmtest.FailFirst(1, llmtest.Reply{Text: "late", Latency: 2 * time.Second}, llmtest.Fixed("ok")))
	defer srv.Close()
	rec := &recorder{}
	m := llm.WithRetry(llm.WithTimeout(llm.NewOpenAI("m", srv.BaseURL(), "k", nil), 100*time.Millisecond),
		llm.RetryPolicy{MaxRetries: 2, Base: time.Millisecond, Max: time.Second, Sleep: rec.sleep})
	start := time.Now()
	resp, err := m.Complete(context.Background(), ask("x"))
	if err != nil || resp.Text != "ok" || resp.Retries != 1 {
		t.Fatalf("got %+v, %v; want ok after one retry", resp, err)
	}
	if el := time.Since(start); el > 1500*time.Millisecond {
		t.Errorf("took %v: the 2 s answer was not cut at 100 ms", el)
	}
}

// TestA429PausesOnlyItsOwnCall: a 429 that does not say a budget is spent (no rate-limit headers)
// delays the call that got it (its retry), not the next caller.
func TestA429PausesOnlyItsOwnCall(t *testing.T) {
	srv := llmtest.NewOpenAI(llmtest.FailFirst(1, llmtest.Reply{Status: 429, RetryAfter: 300 * time.Millisecond}, llmtest.Fixed("ok")))
	defer srv.Close()
	m := llm.WithLimits(llm.NewOpenAI("m", srv.BaseURL(), "k", nil), llm.Limits{})
	if _, err := m.Complete(context.Background(), ask("x")); err == nil {
		t.Fatal("the 429 was not reported")
	}
	resp, err := m.Complete(context.Background(), ask("y")) // another caller: must not wait
	if err != nil {
		t.Fatal(err)
	}
	if resp.Waited > 100*time.Millisecond {
		t.Errorf("next call waited %v: a 429 paused every caller", resp.Waited)
	}
}

// TestSpentBudgetHoldsNewCalls runs against a fake that enforces 3 requests per 600 ms and sends
// the rate-limit headers: once they say none is left, calls wait instead of being refused.
func TestSpentBudgetHoldsNewCalls(t *testing.T) {
	for _, tt := range []struct {
		name   string
		newSrv func(llmtest.Handler, ...llmtest.Option) *llmtest.Server
		model  func(string) llm.Model
	}{
		{"openai", llmtest.NewOpenAI, func(u string) llm.Model { return llm.NewOpenAI("m", u, "k", nil) }},
		{"anthropic", llmtest.NewAnthropic, func(u string) llm.Model { return llm.NewAnthropic("m", u, "k", nil) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := tt.newSrv(llmtest.Fixed("ok"), llmtest.WithRateLimit(llmtest.RateLimit{Requests: 3, Window: 600 * time.Millisecond}))
			defer srv.Close()
			// A configured RPM: the fake's 600 ms window is not the per-minute budget the headers
			// are read as.
			m := llm.WithRetry(llm.WithLimits(tt.model(srv.BaseURL()), llm.Limits{RPM: 60000}),
				llm.RetryPolicy{MaxRetries: 10, Base: time.Millisecond, Max: 5 * time.Second})
			start := time.Now()
			for i := range 6 {
				if _, err := m.Complete(context.Background(), ask(fmt.Sprint("q", i))); err != nil {
					t.Fatal(err)
				}
			}
			refused := 0
			for _, c := range srv.RateCounts() {
				refused += c.Refused
			}
			// Anthropic's reset is in whole seconds (RFC 3339): its first wait may fall short once more.
			if refused > 2 {
				t.Errorf("%d requests refused for 6 calls: the spent budget did not hold them", refused)
			}
			if el := time.Since(start); el < 550*time.Millisecond {
				t.Errorf("6 calls in %v against 3 per 600 ms", el)
			}
		})
	}
}

func TestNewNeedsAKeyUnlessLocal(t *testing.T) {
	noEnv := func(string) string { return "" }
	_, err := llm.New("openai:gpt-4o-mini", llm.Options{Getenv: noEnv})
	if err == nil || !strings.Contains(err.Error(), "set OPENAI_API_KEY") {
		t.Errorf("no key: %v", err)
	}
	if _, err := llm.New("openai:llama3", llm.Options{Getenv: noEnv, BaseURL: "http://127.0.0.1:11434/v1"}); err != nil {
		t.Errorf("local server without key: %v", err)
	}
	for _, bad := range []string{"gpt-4o", "azure:gpt-4o", "openai:"} {
		if _, err := llm.New(bad, llm.Options{Getenv: noEnv}); err == nil {
			t.Errorf("--model %q accepted", bad)
		}
	}
}

// TestReasoningModelsGetWhatTheyTake runs OpenAI's reasoning models against a fake that refuses,
// as OpenAI does, max_tokens, a temperature and logprobs: the adapter sends
// max_completion_tokens and none of the others; told otherwise (a --prices file), the refusal is
// fatal on the first call.
func TestReasoningModelsGetWhatTheyTake(t *testing.T) {
	srv := llmtest.NewOpenAI(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "ok", InputTokens: 20, OutputTokens: 500, ReasoningTokens: 448}
	})
	defer srv.Close()
	req := ask("x")
	req.MaxTokens, req.Logprobs, req.TopLogprobs = 4000, true, 5
	for _, model := range []string{"o1", "o3-mini", "o3-mini-2025-01-31", "o4-mini", "gpt-5", "gpt-5-mini-2025-08-07", "gpt-5.5", "gpt-5.4-mini"} {
		resp, err := llm.NewOpenAI(model, srv.BaseURL(), "k", nil).Complete(context.Background(), req)
		if err != nil {
			t.Errorf("%s: %v", model, err)
			continue
		}
		if d := cmp.Diff(llm.Usage{InputTokens: 20, OutputTokens: 500, ReasoningTokens: 448}, resp.Usage); d != "" {
			t.Errorf("%s: usage (-want +got):\n%s", model, d)
		}
	}
	for _, sent := range srv.Log() {
		if sent.MaxTokens != 4000 || sent.Temperature != nil || sent.Logprobs || sent.TopLogprobs != 0 ||
			!strings.Contains(string(sent.Raw), `"max_completion_tokens":4000`) {
			t.Errorf("%s got %s", sent.Model, sent.Raw)
		}
	}
	// A table that says o3 takes max_tokens (as the old code assumed): refused, and fatal.
	m := llm.WithFirstCall(llm.NewOpenAI("o3", srv.BaseURL(), "k", nil).WithCaps(llm.DefaultCaps()))
	_, err := m.Complete(context.Background(), req)
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Param != "max_tokens" || ae.Code != "unsupported_parameter" || !llm.IsFatal(err) ||
		!strings.Contains(ae.Fatal(), "max_tokens") {
		t.Errorf("o3 with max_tokens: %v (fatal %v)", err, llm.IsFatal(err))
	}
	// gpt-4o still gets a temperature, max_tokens and logprobs.
	if _, err := llm.NewOpenAI("gpt-4o", srv.BaseURL(), "k", nil).Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	last := srv.Log()[len(srv.Log())-1]
	if last.Temperature == nil || !last.Logprobs || !strings.Contains(string(last.Raw), `"max_tokens":4000`) {
		t.Errorf("gpt-4o got %s", last.Raw)
	}
}

// TestAnthropicCacheWrites checks that cache creation is read apart and billed at its rate.
func TestAnthropicCacheWrites(t *testing.T) {
	srv := llmtest.NewAnthropic(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "ok", InputTokens: 1000, CachedInputTokens: 300, CacheWriteTokens: 500, OutputTokens: 10}
	})
	defer srv.Close()
	resp, err := llm.NewAnthropic("claude-sonnet-4-6", srv.BaseURL(), "k", nil).Complete(context.Background(), ask("x"))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(llm.Usage{InputTokens: 1000, CachedInputTokens: 300, CacheWriteTokens: 500, OutputTokens: 10}, resp.Usage); d != "" {
		t.Errorf("usage (-want +got):\n%s", d)
	}
	p, _ := llm.LoadPrices("")
	// 200 fresh x 3 + 300 read x 0.30 + 500 written x 3.75 + 10 out x 15, per million.
	if c, ok := p.Cost("anthropic:claude-sonnet-4-6", resp.Usage); !ok || math.Abs(c-(600+90+1875+150)/1e6) > 1e-12 {
		t.Errorf("cost %v %v", c, ok)
	}
}
