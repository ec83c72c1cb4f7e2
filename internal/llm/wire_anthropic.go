package llm

import (
	"encoding/json"
	"maps"
)

// The Messages API request, as vulnbench sends it (the answer's structs are in raw_parse.go).

type antRequest struct {
	MaxTokens   int          `json:"max_tokens"`
	Messages    []antMsg     `json:"messages"`
	Model       string       `json:"model"`
	System      []antText    `json:"system,omitempty"`
	Temperature float64      `json:"temperature,omitempty"` // only above 0 (deprecated by the API)
	Thinking    *antThinking `json:"thinking,omitempty"`
	Tools       []antTool    `json:"tools,omitempty"`
}

type antMsg struct {
	Content []any  `json:"content,omitempty"` // antText, antToolUse, antToolResult
	Role    string `json:"role"`
}

type antText struct {
	Text string `json:"text"`
	Type string `json:"type"` // "text"
}

type antToolUse struct {
	ID    string `json:"id"`
	Input any    `json:"input"`
	Name  string `json:"name"`
	Type  string `json:"type"` // "tool_use"
}

type antToolResult struct {
	ToolUseID string    `json:"tool_use_id"`
	IsError   bool      `json:"is_error"`
	Content   []antText `json:"content"`
	Type      string    `json:"type"` // "tool_result"
}

type antThinking struct {
	BudgetTokens int    `json:"budget_tokens"`
	Type         string `json:"type"` // "enabled"
}

type antTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// InputSchema is the tool's whole JSON Schema, as given (the OpenAI adapter sends it so
	// too), with "type": "object" when it names no type.
	InputSchema map[string]any `json:"input_schema,omitempty"`
}

func newAntText(s string) antText { return antText{Text: s, Type: "text"} }

// newAntRequest is the body for req: system turns in system, tool results as user turns, the
// thinking budget of req.Effort inside max_tokens (which must exceed it).
func newAntRequest(model string, req Request) antRequest {
	maxTok := req.MaxTokens
	if maxTok <= 0 {
		maxTok = DefaultMaxTokens
	}
	p := antRequest{Model: model, MaxTokens: maxTok}
	if b := req.Effort.ThinkingBudget(); b > 0 {
		p.Thinking = &antThinking{BudgetTokens: b, Type: "enabled"}
		p.MaxTokens = max(p.MaxTokens, b+maxTok)
	}
	if req.Temperature > 0 && req.Effort == "" { // thinking takes no temperature but 1
		p.Temperature = req.Temperature
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			p.System = append(p.System, newAntText(m.Content))
		case "assistant":
			var blocks []any
			if m.Content != "" {
				blocks = append(blocks, newAntText(m.Content))
			}
			for _, tc := range m.ToolCalls {
				var input any = map[string]any{}
				if tc.Arguments != "" {
					_ = json.Unmarshal([]byte(tc.Arguments), &input) // not JSON: an empty input
				}
				blocks = append(blocks, antToolUse{ID: tc.ID, Input: input, Name: tc.Name, Type: "tool_use"})
			}
			p.Messages = append(p.Messages, antMsg{Content: blocks, Role: "assistant"})
		case "tool":
			p.Messages = append(p.Messages, antMsg{Role: "user", Content: []any{
				antToolResult{ToolUseID: m.ToolCallID, Content: []antText{newAntText(m.Content)}, Type: "tool_result"}}})
		default:
			p.Messages = append(p.Messages, antMsg{Role: "user", Content: []any{newAntText(m.Content)}})
		}
	}
	for _, t := range req.Tools {
		schema := t.Parameters
		if _, ok := schema["type"]; schema != nil && !ok { // the API requires an object's schema
			schema = maps.Clone(schema)
			schema["type"] = "object"
		}
		p.Tools = append(p.Tools, antTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return p
}
