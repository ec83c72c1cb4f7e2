package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/trace"
)

// stack is the real model stack against the fake OpenAI server, priced at $1 per million tokens
// in and out: each call of 1000 + 100 tokens costs $0.0011.
func stack(t *testing.T) (llm.Model, llm.Prices, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewOpenAI(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: `{"vulnerable": true}`, InputTokens: 1000, OutputTokens: 100}
	}, llmtest.WithModels("m"))
	t.Cleanup(srv.Close)
	getenv := func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "test-key"
		}
		return ""
	}
	m, err := llm.New("openai:m", llm.Options{BaseURL: srv.BaseURL(), Retry: llm.RetryPolicy{}, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "prices.yaml")
	if err := os.WriteFile(path, []byte("openai:m: {input: 1.0, output: 1.0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prices, err := llm.LoadPrices(path)
	if err != nil {
		t.Fatal(err)
	}
	return m, prices, srv
}

func call(m llm.Model) error {
	_, err := m.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "is f vulnerable?"}}})
	return err
}

// Every call is traced, counted and priced; the unit's step limit stops the calls after it.
func TestMeterTracesCountsAndLimitsEveryCall(t *testing.T) {
	m, prices, srv := stack(t)
	buf := trace.NewBuffer()
	mt := newMeter(m, prices, nil, nil, subject.Limits{Steps: 2}, buf)
	for i := 0; i < 2; i++ {
		if err := call(mt); err != nil {
			t.Fatal(err)
		}
	}
	if err := call(mt); !errors.Is(err, subject.ErrLimit) {
		t.Fatalf("third call: %v, want the step limit", err)
	}
	if srv.Requests() != 2 {
		t.Errorf("the server saw %d requests, want 2: a call over the limit must not be sent", srv.Requests())
	}
	u := mt.Usage()
	if u.Calls != 2 || u.InputTokens != 2000 || u.OutputTokens != 200 || u.CostUSD == nil || *u.CostUSD < 0.00219 || *u.CostUSD > 0.00221 {
		t.Errorf("usage %+v, want 2 calls, 2000 in, 200 out, $0.0022", u)
	}
	var kinds []trace.Kind
	for _, e := range buf.Events() {
		kinds = append(kinds, e.Kind)
	}
	want := []trace.Kind{trace.ModelRequest, trace.ModelResponse, trace.ModelRequest, trace.ModelResponse}
	if d := cmp.Diff(want, kinds); d != "" {
		t.Errorf("trace (-want +got):\n%s", d)
	}
	if ev := buf.Events()[1]; ev.Usage.InputTokens != 1000 || ev.CostUSD == nil || ev.Content != `{"vulnerable": true}` {
		t.Errorf("response event %+v lacks its usage, cost or text", ev)
	}
}

// The run's budget is checked before every call: a unit that keeps calling stops at the cap.
func TestMeterStopsAtTheRunBudget(t *testing.T) {
	m, prices, srv := stack(t)
	budget := engine.NewBudget(0.005, 0) // four calls of $0.0011 fit, a fifth would not
	mt := newMeter(m, prices, localLedger{budget}, nil, subject.Limits{}, trace.Discard{})
	n := 0
	var err error
	for n < 20 {
		if err = call(mt); err != nil {
			break
		}
		n++
	}
	if !errors.Is(err, ErrBudget) || n != 4 || srv.Requests() != 4 {
		t.Errorf("%d calls, %d sent, then %v; want 4 and the budget error", n, srv.Requests(), err)
	}
	if s := budget.Spent(); s > 0.005 {
		t.Errorf("spent $%v over the $0.005 cap", s)
	}
}

func rawCall(m llm.RawModel) (llm.RawResponse, error) {
	return m.CompleteRaw(context.Background(), llm.RawRequest{API: llm.OpenAIChat,
		Body: []byte(`{"model":"m","messages":[{"role":"user","content":"is f vulnerable?"}]}`),
		Seen: llm.Seen{Last: "is f vulnerable?", ToolResults: []llm.ToolResult{{CallID: "c1", Content: "out"}}}})
}

// A raw call (the gateway's) is limited, counted, priced and budgeted as a typed one, its cost
// set on the response, and recorded in the trace by the meter, the one place a call's events
// are written: what the sender saw of the request, then the answer; a refusal is an error event,
// and the unit's later raw calls are refused unsent.
func TestMeterRawCalls(t *testing.T) {
	m, prices, srv := stack(t)
	buf := trace.NewBuffer()
	budget := engine.NewBudget(1, 0)
	mt := newMeter(m, prices, localLedger{budget}, nil, subject.Limits{Steps: 2}, buf)
	raw, ok := llm.AsRaw(mt)
	if !ok {
		t.Fatal("the meter is not an llm.RawModel")
	}
	for i := 0; i < 2; i++ {
		resp, err := rawCall(raw)
		if err != nil {
			t.Fatal(err)
		}
		if resp.CostUSD == nil || *resp.CostUSD < 0.00109 || *resp.CostUSD > 0.00111 || resp.Usage.InputTokens != 1000 {
			t.Errorf("call %d: cost %v, usage %+v; want $0.0011 for 1000 + 100 tokens", i, resp.CostUSD, resp.Usage)
		}
	}
	for i := 0; i < 2; i++ {
		if _, err := rawCall(raw); !errors.Is(err, subject.ErrLimit) {
			t.Fatalf("call %d past the limit: %v, want the step limit", 3+i, err)
		}
	}
	if srv.Requests() != 2 {
		t.Errorf("the server saw %d requests, want 2", srv.Requests())
	}
	u := mt.Usage()
	if u.Calls != 2 || u.InputTokens != 2000 || u.OutputTokens != 200 || u.CostUSD == nil || *u.CostUSD < 0.00219 || *u.CostUSD > 0.00221 {
		t.Errorf("usage %+v, want 2 calls, 2000 in, 200 out, $0.0022", u)
	}
	if s := budget.Spent(); s < 0.00219 || s > 0.00221 {
		t.Errorf("the budget was settled with $%v, want $0.0022", s)
	}
	var got []string
	for _, e := range buf.Events() {
		s := string(e.Kind) + " " + e.CallID + " " + e.Content
		if e.Kind == trace.ModelResponse {
			s += fmt.Sprintf(" in=%d priced=%v", e.Usage.InputTokens, e.CostUSD != nil)
		}
		got = append(got, s)
	}
	limit := "error  unit limit reached: 2 model calls (--max-steps 2)"
	want := []string{"tool_result c1 out", "model_request  is f vulnerable?", `model_response  {"vulnerable": true} in=1000 priced=true`,
		"tool_result c1 out", "model_request  is f vulnerable?", `model_response  {"vulnerable": true} in=1000 priced=true`,
		"tool_result c1 out", "model_request  is f vulnerable?", limit,
		"tool_result c1 out", "model_request  is f vulnerable?", limit}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("trace (-want +got):\n%s", d)
	}
}
