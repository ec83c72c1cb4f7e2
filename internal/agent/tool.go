// Package agent is the tool-calling loop that agents (the JitVul ReAct agent, the VEX-Bench
// agent) share: native tool calls on OpenAI-compatible and Anthropic APIs, or a text ReAct
// protocol, over a list of tools, within the unit's limits, every step traced.
package agent

import (
	"context"
	"encoding/json"
)

// Tool is one function an agent may call. The model sees Name, Description and Parameters (a
// JSON Schema of the arguments object); Run gets the arguments as the model wrote them and
// returns the observation: plain text, bounded in size, saying when it was cut. An error from Run
// is an infrastructure fault; a bad argument or a missing function is an observation that says
// so, for the model to read.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any
	Run         func(ctx context.Context, args json.RawMessage) (string, error)
}

// StringParams is the Parameters schema of an arguments object whose properties are all strings:
// props maps each name to its description; required lists those the model must give.
func StringParams(props map[string]string, required ...string) map[string]any {
	p := map[string]any{}
	for name, desc := range props {
		p[name] = map[string]any{"type": "string", "description": desc}
	}
	if required == nil {
		required = []string{}
	}
	return map[string]any{"type": "object", "properties": p, "required": required}
}
