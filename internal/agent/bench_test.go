package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/agent"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/trace"
)

// instant is a model that answers at once: tool calls until the last step, then an answer.
type instant struct {
	steps int
	text  bool
}

func (m instant) Info() llm.Info { return llm.Info{Provider: "openai", Model: "instant"} }

func (m instant) Complete(_ context.Context, r llm.Request) (llm.Response, error) {
	n := 0
	for _, msg := range r.Messages {
		if msg.Role == "assistant" {
			n++
		}
	}
	if n >= m.steps-1 {
		return llm.Response{Text: `{"vulnerable": true}`}, nil
	}
	if m.text {
		return llm.Response{Text: "Thought: more\nAction: get_definition\nAction Input: {\"function\": \"f\"}"}, nil
	}
	return llm.Response{ToolCalls: []llm.ToolCall{{ID: "c", Name: "get_definition", Arguments: `{"function": "f"}`}}}, nil
}

// definition is a tool returning a 200-line function, as get_definition does.
func definition() agent.Tool {
	body := strings.Repeat("    x = buf[i] + 1; /* a line of C */\n", 200)
	return agent.Tool{Name: "get_definition", Parameters: map[string]any{"type": "object", "required": []string{"function"}},
		Run: func(context.Context, json.RawMessage) (string, error) { return body, nil }}
}

// BenchmarkLoopOverhead measures the loop's own cost per step (building requests, parsing the
// reply, running and bounding observations, tracing), with a model and a tool that take no time:
// the overhead beyond the model's latency and the tools' time. Target: under 2 ms per step.
func BenchmarkLoopOverhead(b *testing.B) {
	for _, proto := range []agent.Protocol{agent.Native, agent.Text} {
		b.Run(string(proto), func(b *testing.B) {
			const steps = 15
			var total, tools time.Duration
			b.ReportAllocs()
			for b.Loop() {
				l := agent.Loop{Model: instant{steps: steps, text: proto == agent.Text}, Tools: []agent.Tool{definition()}, Protocol: proto,
					System: "sys", User: "q", MaxSteps: steps, Trace: trace.NewBuffer()}
				start := time.Now()
				res, err := l.Run(context.Background())
				total += time.Since(start)
				tools += res.ToolTime
				if err != nil || res.Steps != steps {
					b.Fatalf("%v after %d steps", err, res.Steps)
				}
			}
			b.ReportMetric(float64((total-tools).Nanoseconds())/float64(b.N*steps), "ns/step")
		})
	}
}

// BenchmarkLoopFakeServer is the same loop through the OpenAI SDK and the fake server at zero
// latency: what a step costs end to end on this machine, HTTP and JSON included.
func BenchmarkLoopFakeServer(b *testing.B) {
	const steps = 15
	replies := make([]llmtest.Reply, steps)
	for i := range replies[:steps-1] {
		replies[i] = llmtest.Call(llmtest.ToolCall{ID: "c" + string(rune('a'+i)), Name: "get_definition", Arguments: `{"function":"f"}`})
	}
	replies[steps-1] = llmtest.Reply{Text: `{"vulnerable": true}`}
	srv := llmtest.NewOpenAI(llmtest.Conversation(nil, replies...), llmtest.WithoutLog())
	defer srv.Close()
	m := llm.NewOpenAI("gpt-test", srv.BaseURL(), "k", nil)
	var total time.Duration
	for b.Loop() {
		l := agent.Loop{Model: m, Tools: []agent.Tool{definition()}, System: "sys", User: "q", MaxSteps: steps, Trace: trace.NewBuffer()}
		start := time.Now()
		res, err := l.Run(context.Background())
		total += time.Since(start)
		if err != nil || res.Steps != steps {
			b.Fatalf("%v after %d steps", err, res.Steps)
		}
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N*steps), "ns/step")
}
