package translate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/llm"
)

// Anthropic Messages: POST /v1/messages.

type antRequest struct {
	System      json.RawMessage `json:"system"`
	Messages    []antMessage    `json:"messages"`
	Tools       []antTool       `json:"tools"`
	ToolChoice  *antToolChoice  `json:"tool_choice"`
	MaxTokens   int             `json:"max_tokens"`
	Temperature *float64        `json:"temperature"`
	Stream      bool            `json:"stream"`
	Thinking    *struct {
		Type         string `json:"type"`
		BudgetTokens int64  `json:"budget_tokens"`
	} `json:"thinking"`
	OutputConfig *struct {
		Effort string `json:"effort"`
	} `json:"output_config"`
	Container json.RawMessage `json:"container"`
	MCP       json.RawMessage `json:"mcp_servers"`
}

type antMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type antBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type antTool struct {
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"input_schema"`
}

type antToolChoice struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

var antText = map[string]bool{"text": true}

func decodeAnthropic(body []byte, req *Request) error {
	var in antRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return fmt.Errorf("not an Anthropic messages request: %w", err)
	}
	if len(in.MCP) > 0 && string(in.MCP) != "null" && string(in.MCP) != "[]" {
		return &Untranslatable{What: "mcp_servers (tools Anthropic's servers call)"}
	}
	if len(in.Container) > 0 && string(in.Container) != "null" {
		return &Untranslatable{What: "a container (state kept by Anthropic)"}
	}
	system, err := rawText(in.System, "system", antText, nil)
	if err != nil {
		return err
	}
	if system != "" {
		req.Messages = append(req.Messages, llm.Message{Role: "system", Content: system})
	}
	for i, m := range in.Messages {
		if err := antTurn(req, m, i); err != nil {
			return err
		}
	}
	for i, t := range in.Tools {
		if t.Type != "" && t.Type != "custom" {
			return &Untranslatable{What: fmt.Sprintf("Anthropic's server-defined tool %q (%s, tools[%d])", t.Name, t.Type, i)}
		}
		req.Tools = append(req.Tools, llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	if c := in.ToolChoice; c != nil {
		switch c.Type {
		case "any":
			req.ToolChoice = ToolChoice{Mode: "required"}
		case "tool":
			req.ToolChoice = ToolChoice{Mode: "tool", Name: c.Name}
		case "none":
			req.ToolChoice = ToolChoice{Mode: "none"}
		}
	}
	req.MaxTokens, req.Stream = in.MaxTokens, in.Stream
	if in.Temperature != nil {
		req.Temperature, req.HasTemperature = *in.Temperature, true
	}
	if in.Thinking != nil && in.Thinking.Type == "enabled" {
		req.Effort = effortOfBudget(in.Thinking.BudgetTokens)
	}
	if in.OutputConfig != nil && in.OutputConfig.Effort != "" {
		if in.OutputConfig.Effort == "max" {
			req.Effort = llm.EffortXHigh
		} else if e := parseEffort(in.OutputConfig.Effort); e != "" {
			req.Effort = e
		}
	}
	return nil
}

// antTurn adds one message: a user turn's tool results become tool messages (before its
// text), an assistant turn's tool_use blocks its tool calls.
func antTurn(req *Request, m antMessage, i int) error {
	where := fmt.Sprintf("messages[%d].content", i)
	c := json.RawMessage(strings.TrimSpace(string(m.Content)))
	if len(c) > 0 && c[0] == '"' {
		var s string
		_ = json.Unmarshal(c, &s)
		if s != "" {
			req.Messages = append(req.Messages, llm.Message{Role: antRole(m.Role), Content: s})
		}
		return nil
	}
	var blocks []antBlock
	if err := json.Unmarshal(c, &blocks); err != nil {
		return fmt.Errorf("%s is neither text nor a list of blocks: %w", where, err)
	}
	msg := llm.Message{Role: antRole(m.Role)}
	var texts []string
	for j, b := range blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "thinking", "redacted_thinking":
			// the model's own signed reasoning: no other provider takes it
		case "tool_use":
			args := "{}"
			if len(b.Input) > 0 && string(b.Input) != "null" {
				args = string(b.Input)
			}
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		case "tool_result":
			out, err := rawText(b.Content, fmt.Sprintf("%s[%d].content", where, j), antText, nil)
			if err != nil {
				return err
			}
			if b.IsError && !strings.HasPrefix(out, "Error") {
				out = "Error: " + out
			}
			req.Messages = append(req.Messages, llm.Message{Role: "tool", ToolCallID: b.ToolUseID, Content: out})
		default:
			return &Untranslatable{What: fmt.Sprintf("a %q block (%s[%d])", b.Type, where, j)}
		}
	}
	msg.Content = strings.Join(texts, "\n")
	if msg.Content != "" || len(msg.ToolCalls) > 0 {
		req.Messages = append(req.Messages, msg)
	}
	return nil
}

func antRole(r string) string {
	if r == "assistant" {
		return "assistant"
	}
	return "user"
}

// encodeAnthropic is the Messages body of req, by llm's builder. A budget the client did not
// set is 8,192 tokens (Anthropic requires one). Effort is not carried (NewEncoder): Anthropic's
// extended thinking, once on, requires each earlier assistant turn's signed thinking blocks
// back, which no other format holds.
func encodeAnthropic(model string, req Request) ([]byte, error) {
	r := req.Request
	if r.MaxTokens <= 0 {
		r.MaxTokens = 8192
	}
	b, err := llm.NewAnthropic(model, "", "", nil).MessageBody(r)
	if err != nil {
		return nil, err
	}
	m, err := asMap(b)
	if err != nil {
		return nil, err
	}
	if req.HasTemperature {
		m["temperature"] = req.Temperature
	}
	switch req.ToolChoice.Mode {
	case "none":
		m["tool_choice"] = map[string]any{"type": "none"}
	case "required":
		m["tool_choice"] = map[string]any{"type": "any"}
	case "tool":
		m["tool_choice"] = map[string]any{"type": "tool", "name": req.ToolChoice.Name}
	}
	return json.Marshal(m)
}

func asMap(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("translate: %w", err)
	}
	return m, nil
}

func antStop(s Stop) string {
	switch s {
	case StopTools:
		return "tool_use"
	case StopLength:
		return "max_tokens"
	case StopFiltered:
		return "refusal"
	}
	return "end_turn"
}

func antUsage(u llm.Usage) map[string]any {
	return map[string]any{"input_tokens": max(0, u.InputTokens-u.CachedInputTokens-u.CacheWriteTokens),
		"cache_creation_input_tokens": u.CacheWriteTokens, "cache_read_input_tokens": u.CachedInputTokens, "output_tokens": u.OutputTokens}
}

func antContent(a Answer) []any {
	content := []any{}
	if a.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": a.Text})
	}
	for _, tc := range a.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": object(tc.Arguments)})
	}
	return content
}

func anthropicMessage(model string, a Answer) map[string]any {
	return map[string]any{"id": "msg_" + a.ID, "type": "message", "role": "assistant", "model": model, "content": antContent(a),
		"stop_reason": antStop(a.Stop), "stop_sequence": nil, "usage": antUsage(a.Usage)}
}

// anthropicStream is the events Anthropic sends for the answer: message_start (no content,
// the input usage), ping, each block's content_block_start, delta and content_block_stop,
// message_delta (the stop reason and the usage), message_stop.
func anthropicStream(model string, a Answer) []byte {
	start := anthropicMessage(model, a)
	start["content"], start["stop_reason"] = []any{}, nil
	su := antUsage(a.Usage)
	su["output_tokens"] = min(a.Usage.OutputTokens, 1)
	start["usage"] = su
	events := []event{{"message_start", map[string]any{"type": "message_start", "message": start}}, {"ping", map[string]any{"type": "ping"}}}
	for i, b := range antContent(a) {
		block := b.(map[string]any)
		var first, delta map[string]any
		if block["type"] == "text" {
			first = map[string]any{"type": "text", "text": ""}
			delta = map[string]any{"type": "text_delta", "text": block["text"]}
		} else {
			first = map[string]any{"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}
			delta = map[string]any{"type": "input_json_delta", "partial_json": string(block["input"].(json.RawMessage))}
		}
		events = append(events, event{"content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": first}},
			event{"content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": delta}},
			event{"content_block_stop", map[string]any{"type": "content_block_stop", "index": i}})
	}
	events = append(events, event{"message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": antStop(a.Stop), "stop_sequence": nil}, "usage": antUsage(a.Usage)}},
		event{"message_stop", map[string]any{"type": "message_stop"}})
	return sse(events)
}
