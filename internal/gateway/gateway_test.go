package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"github.com/vulnbench/vulnbench/internal/gateway"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

const realKey = "sk-real-key-never-shown"

// agent is a scripted model: turn 0 asks for a shell command, turn 1 answers.
func agent() llmtest.Handler {
	return llmtest.Conversation(nil,
		llmtest.Reply{Text: "Looking.", ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "bash", Arguments: `{"command":"ls"}`}},
			InputTokens: 1000, CachedInputTokens: 200, OutputTokens: 50},
		llmtest.Reply{Text: "done", InputTokens: 1300, OutputTokens: 10})
}

// specs are the unit's model per provider.
var specs = map[string]string{"anthropic": "anthropic:claude-sonnet-4-5", "openai": "openai:gpt-4o", "gemini": "gemini:gemini-2.5-flash"}

// upstreams are the providers a format's agent is tried with: its own first, then the two
// others through translation.
func upstreams(own string) []string {
	out := []string{own}
	for _, p := range []string{"anthropic", "openai", "gemini"} {
		if p != own {
			out = append(out, p)
		}
	}
	return out
}

// modelOf is the model id of a provider's spec.
func modelOf(provider string) string { return strings.SplitN(specs[provider], ":", 2)[1] }

// modeled is the llm stack as a subject's model, priced by the built-in table.
type modeled struct {
	m llm.Model
	p llm.Prices
}

func (x modeled) Model() llm.Model   { return x.m }
func (x modeled) Prices() llm.Prices { return x.p }

// setup starts the fake for provider, the llm stack on it, the unit's model as the runner
// meters it under limits (recording into the returned trace; usage is its account) and a
// gateway over it, and returns an HTTP client that dials the gateway's socket.
func setup(t *testing.T, provider string, h llmtest.Handler, limits subject.Limits) (g *gateway.Gateway, srv *llmtest.Server, rec *trace.Buffer, hc *http.Client, usage func() verdict.Usage) {
	t.Helper()
	spec := specs[provider]
	switch provider {
	case "anthropic":
		srv = llmtest.NewAnthropic(h)
	case "gemini":
		srv = llmtest.NewGemini(h)
	default:
		srv = llmtest.NewOpenAI(h)
	}
	t.Cleanup(srv.Close)
	st, err := llm.New(spec, llm.Options{BaseURL: srv.BaseURL(), Getenv: func(k string) string {
		if strings.HasSuffix(k, "_API_KEY") {
			return realKey
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	prices, err := llm.LoadPrices("")
	if err != nil {
		t.Fatal(err)
	}
	rec = trace.NewBuffer()
	env, usage := (&runner.Envs{Modeled: modeled{st.Model, prices}, Limits: limits}).Prepare(subject.Unit{Case: &suite.Case{ID: "c"}}, rec)
	raw, _ := llm.AsRaw(env.Model)
	if g, err = gateway.Start(gateway.Config{Model: raw}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	hc = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", g.Socket())
	}}}
	return g, srv, rec, hc, usage
}

// kinds lists the trace's events as KIND NAME, with the usage of model answers.
func kinds(events []trace.Event) []string {
	var out []string
	for _, e := range events {
		s := string(e.Kind)
		switch e.Kind {
		case trace.ModelResponse:
			s += fmt.Sprintf(" in=%d cached=%d out=%d priced=%v", e.Usage.InputTokens, e.Usage.CachedInputTokens, e.Usage.OutputTokens, e.CostUSD != nil)
		case trace.ToolCall:
			s += " " + e.Name + " " + e.CallID + " " + e.Args
		case trace.ToolResult:
			s += " " + e.CallID + " " + e.Content
		}
		out = append(out, s)
	}
	return out
}

var wantTrace = []string{
	"model_request",
	"model_response in=1000 cached=200 out=50 priced=true",
	"tool_call bash call_1 {\"command\":\"ls\"}",
	"tool_result call_1 file.c",
	"model_request",
	"model_response in=1300 cached=0 out=10 priced=true",
}

// checkUpstream: the provider saw the real key, the unit's model, and never the gateway's token;
// the gateway relayed 2 calls and a tool call, and the meter, the one account, has their usage
// and cost.
func checkUpstream(t *testing.T, srv *llmtest.Server, g *gateway.Gateway, model string, usage func() verdict.Usage) {
	t.Helper()
	for _, r := range srv.Log() {
		if r.APIKey != realKey || r.Model != model || strings.Contains(string(r.Raw), g.Token()) {
			t.Errorf("the provider got key %q, model %q", r.APIKey, r.Model)
		}
	}
	if s := g.Stats(); s.Calls != 2 || s.ToolCalls != 1 {
		t.Errorf("stats %+v", s)
	}
	if u := usage(); u.Calls != 2 || u.InputTokens != 2300 || u.OutputTokens != 60 || u.CostUSD == nil || *u.CostUSD <= 0 {
		t.Errorf("the meter's usage %+v", u)
	}
}

// TestAnthropicThroughGateway: Anthropic's SDK, streamed then not, with an Anthropic model and,
// translated, an OpenAI and a Gemini one.
func TestAnthropicThroughGateway(t *testing.T) {
	for _, up := range upstreams("anthropic") {
		t.Run(up, func(t *testing.T) {
			g, srv, rec, hc, usage := setup(t, up, agent(), subject.Limits{})
			c := anthropic.NewClient(aoption.WithBaseURL("http://gateway"), aoption.WithAPIKey(g.Token()), aoption.WithHTTPClient(hc), aoption.WithMaxRetries(0))
			p := anthropic.MessageNewParams{Model: "claude-opus-4-1", MaxTokens: 100, // the gateway sets the unit's model
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("audit"))},
				Tools:    []anthropic.ToolUnionParam{anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{}, "bash")}}
			var msg anthropic.Message
			stream := c.Messages.NewStreaming(context.Background(), p)
			for stream.Next() {
				_ = msg.Accumulate(stream.Current())
			}
			if err := stream.Err(); err != nil || len(msg.Content) != 2 || msg.Content[1].Name != "bash" {
				t.Fatalf("turn 0: %+v, %v", msg.Content, err)
			}
			p.Messages = append(p.Messages, msg.ToParam(), anthropic.NewUserMessage(anthropic.NewToolResultBlock("call_1", "file.c", false)))
			answer, err := c.Messages.New(context.Background(), p)
			if err != nil || answer.Content[0].Text != "done" {
				t.Fatalf("turn 1: %+v, %v", answer, err)
			}
			if d := cmp.Diff(wantTrace, kinds(rec.Events())); d != "" {
				t.Errorf("trace (-want +got):\n%s", d)
			}
			checkUpstream(t, srv, g, modelOf(up), usage)
		})
	}
}

// TestChatThroughGateway: OpenAI's SDK on chat completions, streamed then not, with an OpenAI
// model and, translated, an Anthropic and a Gemini one.
func TestChatThroughGateway(t *testing.T) {
	for _, up := range upstreams("openai") {
		t.Run(up, func(t *testing.T) {
			g, srv, rec, hc, usage := setup(t, up, agent(), subject.Limits{})
			c := openai.NewClient(option.WithBaseURL("http://gateway/v1"), option.WithAPIKey(g.Token()), option.WithHTTPClient(hc), option.WithMaxRetries(0))
			p := openai.ChatCompletionNewParams{Model: "gpt-4o", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("audit")},
				Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "bash"})}}
			var acc openai.ChatCompletionAccumulator
			stream := c.Chat.Completions.NewStreaming(context.Background(), p) // no include_usage: the gateway adds it
			for stream.Next() {
				acc.AddChunk(stream.Current())
			}
			if err := stream.Err(); err != nil || len(acc.Choices) == 0 || len(acc.Choices[0].Message.ToolCalls) != 1 {
				t.Fatalf("turn 0: %+v, %v", acc.Choices, err)
			}
			p.Messages = append(p.Messages, acc.Choices[0].Message.ToParam(), openai.ToolMessage("file.c", "call_1"))
			answer, err := c.Chat.Completions.New(context.Background(), p)
			if err != nil || answer.Choices[0].Message.Content != "done" {
				t.Fatalf("turn 1: %+v, %v", answer, err)
			}
			if d := cmp.Diff(wantTrace, kinds(rec.Events())); d != "" {
				t.Errorf("trace (-want +got):\n%s", d)
			}
			checkUpstream(t, srv, g, modelOf(up), usage)
		})
	}
}

// TestResponsesThroughGateway: OpenAI's SDK on the Responses API, streamed then not, with an
// OpenAI model and, translated, an Anthropic and a Gemini one.
func TestResponsesThroughGateway(t *testing.T) {
	for _, up := range upstreams("openai") {
		t.Run(up, func(t *testing.T) {
			g, srv, rec, hc, usage := setup(t, up, agent(), subject.Limits{})
			c := openai.NewClient(option.WithBaseURL("http://gateway/v1"), option.WithAPIKey(g.Token()), option.WithHTTPClient(hc), option.WithMaxRetries(0))
			input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("audit", responses.EasyInputMessageRoleUser)}
			p := responses.ResponseNewParams{Model: "gpt-5-codex", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
				Tools: []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "bash", Parameters: map[string]any{"type": "object"}}}}}
			stream := c.Responses.NewStreaming(context.Background(), p)
			var done responses.Response
			for stream.Next() {
				if e, ok := stream.Current().AsAny().(responses.ResponseCompletedEvent); ok {
					done = e.Response
				}
			}
			if err := stream.Err(); err != nil || len(done.Output) != 2 {
				t.Fatalf("turn 0: %+v, %v", done.Output, err)
			}
			out := responses.ResponseInputItemParamOfFunctionCallOutput("file.c")
			out.OfFunctionCallOutput.CallID = openai.String("call_1")
			p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: append(input,
				responses.ResponseInputItemParamOfFunctionCall(`{"command":"ls"}`, "call_1", "bash"), out)}
			answer, err := c.Responses.New(context.Background(), p)
			if err != nil || answer.OutputText() != "done" {
				t.Fatalf("turn 1: %+v, %v", answer, err)
			}
			if d := cmp.Diff(wantTrace, kinds(rec.Events())); d != "" {
				t.Errorf("trace (-want +got):\n%s", d)
			}
			checkUpstream(t, srv, g, modelOf(up), usage)
		})
	}
}

func post(t *testing.T, hc *http.Client, path, key, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://gateway"+path, strings.NewReader(body))
	req.Header.Set("X-Api-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestGatewayRefusals: another key, a request no translation carries and an unknown path are refused
// without a model call.
func TestGatewayRefusals(t *testing.T) {
	g, srv, _, hc, _ := setup(t, "anthropic", agent(), subject.Limits{})
	msg := `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`
	for _, tc := range []struct {
		path, key, body string
		status          int
		want            string
	}{
		{"/v1/messages", realKey, msg, 401, "unknown API key"},
		{"/v1/chat/completions", g.Token(), `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:,"}}]}]}`, 400, `cannot translate openai-chat to anthropic for this unit's model: a \"image_url\" part (messages[0].content[0])`},
		{"/v1/complete", g.Token(), msg, 404, "no POST /v1/complete here"},
		{"/v1/messages/count_tokens", g.Token(), msg, 200, `"input_tokens":`},
	} {
		status, body := post(t, hc, tc.path, tc.key, tc.body)
		if status != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("%s with key %.12s: %d %s; want %d %q", tc.path, tc.key, status, body, tc.status, tc.want)
		}
	}
	if srv.Requests() != 0 {
		t.Errorf("%d requests reached the provider", srv.Requests())
	}
}

// TestGatewayFaults: the meter's refusal (a unit's --max-steps) ends the unit's calls with a
// final 400, the later ones refused unsent; a provider's refusal of a request goes back as the
// provider said it; Fault keeps the first.
func TestGatewayFaults(t *testing.T) {
	g, srv, rec, hc, usage := setup(t, "anthropic", agent(), subject.Limits{Steps: 1})
	msg := `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`
	if status, body := post(t, hc, "/v1/messages", g.Token(), msg); status != 200 {
		t.Fatalf("first call: %d %s", status, body)
	}
	for range 2 {
		status, body := post(t, hc, "/v1/messages", g.Token(), msg)
		if status != 400 || !strings.Contains(body, "unit limit reached") || !strings.Contains(body, `"type":"error"`) {
			t.Errorf("past the limit: %d %s", status, body)
		}
	}
	if !errors.Is(g.Fault(), llm.ErrLimit) || srv.Requests() != 1 {
		t.Errorf("fault %v, the provider saw %d calls; want the limit and 1", g.Fault(), srv.Requests())
	}
	if s, u := g.Stats(), usage(); u.Calls != 1 || u.CostUSD == nil || *u.CostUSD <= 0 || s.Errors != 2 {
		t.Errorf("stats %+v, the meter's usage %+v: want 1 priced call, 2 errors", s, u)
	}
	var got []string
	for _, e := range rec.Events() {
		got = append(got, string(e.Kind)+" "+e.Content)
	}
	want := []string{"model_request hi", "model_response Looking.", "tool_call ",
		"model_request hi", "error unit limit reached: 1 model calls (--max-steps 1)",
		"model_request hi", "error unit limit reached: 1 model calls (--max-steps 1)"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("trace (-want +got):\n%s", d)
	}

	g2, _, _, hc2, _ := setup(t, "anthropic", llmtest.Sequence(llmtest.Reply{Status: 400, ErrorMessage: "prompt is too long: 300000 tokens > 200000 maximum"}), subject.Limits{})
	status, body := post(t, hc2, "/v1/messages", g2.Token(), msg)
	if status != 400 || !strings.Contains(body, "prompt is too long") || llm.Classify(g2.Fault()) != llm.PerCase {
		t.Errorf("a provider's refusal: %d %s, fault %v", status, body, g2.Fault())
	}
}
