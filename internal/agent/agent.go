package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/trace"
)

// Protocol is how tools are offered to the model and how it calls them.
type Protocol string

// The tool protocols (--tool-protocol).
const (
	// Native passes the tools in the request (OpenAI tools, Anthropic tools): the model answers
	// with tool calls, and each is answered by a tool message.
	Native Protocol = "native"
	// Text describes the tools in the system prompt and reads Thought / Action / Action Input
	// from the model's text (ReAct), answering with an Observation: for servers without tools.
	Text Protocol = "text"
)

// ParseProtocol reads a protocol name as written on the command line.
func ParseProtocol(s string) (Protocol, error) {
	switch Protocol(s) {
	case Native, Text:
		return Protocol(s), nil
	}
	return "", fmt.Errorf("unknown tool protocol %q: use native or text", s)
}

// DefaultMaxSteps is the cap of model calls per attempt when neither the loop nor the unit's
// limits set one: LangChain's AgentExecutor default, which the JitVul paper ran with.
const DefaultMaxSteps = 15

// The default bounds of one observation.
const (
	DefaultObservationLines = 800
	DefaultObservationBytes = 48 << 10
)

// ErrMaxSteps, wrapped, says the loop reached its step cap without a final answer.
var ErrMaxSteps = errors.New("step cap reached without a final answer")

// Loop is one agent conversation: the model, the tools it may call, and the opening messages.
type Loop struct {
	Model    llm.Model
	Tools    []Tool
	Protocol Protocol // "" is Native
	// System and User open the conversation; under Text the tools and the ReAct format are
	// appended to System.
	System, User string
	// MaxSteps caps the model calls; 0 is DefaultMaxSteps. The last call is told to answer.
	MaxSteps int
	// Observation bounds; 0 for the defaults. A longer observation is cut and says so.
	MaxObservationLines, MaxObservationBytes int
	// Check says whether a final reply holds an answer (nil: any reply does). A reply without one
	// gets one reminder, while steps remain, to answer in the requested format.
	Check func(final string) error
	// Request settings of every call.
	Temperature float64
	MaxTokens   int
	Seed        *int64
	Repeat      int
	// Trace records every tool call and result (the metered model records model calls).
	Trace trace.Recorder
}

// Result is how a loop ended.
type Result struct {
	// Final is the model's last reply that is not a tool call: the answer to parse. "" when the
	// loop stopped without one (see Stopped).
	Final string
	// Steps counts model calls made; ToolCalls the tool calls answered.
	Steps, ToolCalls int
	// Stopped is why the loop ended without a final answer: ErrMaxSteps, or a unit limit
	// (wrapping llm.ErrLimit) that the meter refused a call with. nil when it answered.
	Stopped error
	// Messages is the whole conversation, the opening messages included.
	Messages []llm.Message
	// ToolTime is the time spent inside the tools' Run.
	ToolTime time.Duration
}

// Answer is the text to parse for the verdict: Final, or, when the loop stopped without one, the
// last non-empty reply of the model, which may still hold an answer.
func (r Result) Answer() string {
	if r.Stopped == nil {
		return r.Final
	}
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if m := r.Messages[i]; m.Role == "assistant" && m.Content != "" {
			return m.Content
		}
	}
	return r.Final
}

// Run runs the loop until the model answers without calling a tool, the step cap is reached, or a
// unit limit stops it (all three give a Result). An error is an infrastructure fault: the
// model's call failed for another reason than a limit, a tool failed, or ctx ended.
func (l *Loop) Run(ctx context.Context) (Result, error) {
	if l.Model == nil {
		return Result{}, errors.New("agent: no model")
	}
	proto := l.Protocol
	if proto == "" {
		proto = Native
	}
	if _, err := ParseProtocol(string(proto)); err != nil {
		return Result{}, fmt.Errorf("agent: %w", err)
	}
	rec := l.Trace
	if rec == nil {
		rec = trace.Discard{}
	}
	maxSteps := l.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	byName := make(map[string]*Tool, len(l.Tools))
	for i := range l.Tools {
		byName[l.Tools[i].Name] = &l.Tools[i]
	}
	sys := l.System
	if proto == Text {
		sys = strings.TrimSpace(sys + "\n\n" + textInstructions(l.Tools))
	}
	res := Result{Messages: []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: l.User}}}
	var tools []llm.Tool
	if proto == Native {
		for _, t := range l.Tools {
			tools = append(tools, llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		}
	}
	reminded := false
	for res.Steps < maxSteps {
		if res.Steps == maxSteps-1 && res.ToolCalls > 0 {
			res.Messages = appendUser(res.Messages, lastCallNote)
		}
		req := llm.Request{Messages: res.Messages, Tools: tools, Temperature: l.Temperature, MaxTokens: l.MaxTokens,
			Seed: l.Seed, Repeat: l.Repeat}
		resp, err := l.Model.Complete(ctx, req)
		if err != nil {
			if errors.Is(err, llm.ErrLimit) {
				res.Stopped = err
				return res, nil
			}
			return res, fmt.Errorf("agent step %d: %w", res.Steps+1, err)
		}
		res.Steps++
		var calls []call
		text := resp.Text
		if proto == Native {
			for _, tc := range resp.ToolCalls {
				calls = append(calls, call{id: tc.ID, name: tc.Name, args: tc.Arguments})
			}
			res.Messages = append(res.Messages, llm.Message{Role: "assistant", Content: text, ToolCalls: resp.ToolCalls})
		} else {
			var c *llm.ToolCall
			text, c = ParseReAct(text)
			if c != nil {
				calls = append(calls, call{id: "react-" + strconv.Itoa(res.ToolCalls+1), name: c.Name, args: c.Arguments})
			}
			res.Messages = append(res.Messages, llm.Message{Role: "assistant", Content: text})
		}
		if len(calls) == 0 {
			final := finalText(text)
			if l.Check != nil && !reminded && res.Steps < maxSteps {
				if err := l.Check(final); err != nil {
					reminded = true
					res.Messages = appendUser(res.Messages, fmt.Sprintf(reminderNote, oneLine(err.Error())))
					continue
				}
			}
			res.Final = final
			return res, nil
		}
		var obs []string
		for _, c := range calls {
			o, d, err := l.call(ctx, rec, byName, c)
			res.ToolTime += d
			if err != nil {
				return res, err
			}
			res.ToolCalls++
			if proto == Native {
				res.Messages = append(res.Messages, llm.Message{Role: "tool", Content: o, ToolCallID: c.id})
			} else {
				obs = append(obs, o)
			}
		}
		if proto == Text {
			res.Messages = appendUser(res.Messages, observation(strings.Join(obs, "\n")))
		}
	}
	res.Stopped = fmt.Errorf("%w (%d model calls)", ErrMaxSteps, res.Steps)
	return res, nil
}

type call struct{ id, name, args string }

// call runs one tool call: an unknown tool or arguments that are not a JSON object are
// observations for the model to read; only the tool's own error is a fault.
func (l *Loop) call(ctx context.Context, rec trace.Recorder, byName map[string]*Tool, c call) (string, time.Duration, error) {
	rec.Record(trace.Event{Kind: trace.ToolCall, Name: c.name, CallID: c.id, Args: c.args})
	start := time.Now()
	var obs string
	t := byName[c.name]
	var args json.RawMessage
	ok := false
	if t != nil {
		args, ok = argsFor(t, c.args)
	}
	switch {
	case t == nil:
		obs = fmt.Sprintf("There is no tool %q. The tools are: %s.", oneLine(c.name), strings.Join(toolNames(l.Tools), ", "))
	case !ok:
		obs = fmt.Sprintf("The arguments of %s must be a JSON object, like %s; got: %s", t.Name, example(t), oneLine(c.args))
	default:
		var err error
		if obs, err = t.Run(ctx, args); err != nil {
			d := time.Since(start)
			rec.Record(trace.Event{Kind: trace.Error, Name: c.name, CallID: c.id, Content: err.Error(), LatencyMS: d.Milliseconds()})
			return "", d, fmt.Errorf("agent: tool %s: %w", t.Name, err)
		}
	}
	d := time.Since(start)
	// The trace keeps the observation as the model saw it: bounded, with the note saying so.
	obs = Bound(obs, l.MaxObservationLines, l.MaxObservationBytes)
	rec.Record(trace.Event{Kind: trace.ToolResult, Name: c.name, CallID: c.id, Content: obs, LatencyMS: d.Milliseconds()})
	return obs, d, nil
}

const (
	lastCallNote = "This is your last turn: no more tool calls will be answered. Give your final answer now, in the answer format asked for above."
	reminderNote = "Your reply did not contain an answer in the requested format (%s). Give your final answer now, in the answer format asked for above."
)

func appendUser(msgs []llm.Message, text string) []llm.Message {
	return append(msgs, llm.Message{Role: "user", Content: text})
}

func toolNames(ts []Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

// example is an arguments object for t built from its schema's required properties.
func example(t *Tool) string {
	props, _ := t.Parameters["properties"].(map[string]any)
	req := required(t)
	if len(req) == 0 {
		for k := range props {
			req = append(req, k)
		}
		slices.Sort(req)
	}
	obj := map[string]string{}
	for _, k := range req {
		obj[k] = "..."
	}
	b, _ := json.Marshal(obj)
	return string(b)
}

func required(t *Tool) []string {
	var out []string
	switch r := t.Parameters["required"].(type) {
	case []string:
		out = append(out, r...)
	case []any:
		for _, v := range r {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = trace.Cut(s, 200)
	}
	return s
}
