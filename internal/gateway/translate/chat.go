package translate

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/llm"
)

// OpenAI Chat Completions: POST /v1/chat/completions.

type chatRequest struct {
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoice      json.RawMessage `json:"tool_choice"`
	MaxTokens       int             `json:"max_tokens"`
	MaxCompletion   int             `json:"max_completion_tokens"`
	Temperature     *float64        `json:"temperature"`
	Seed            *int64          `json:"seed"`
	ReasoningEffort string          `json:"reasoning_effort"`
	Stream          bool            `json:"stream"`
	StreamOptions   struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string         `json:"name"`
			Schema map[string]any `json:"schema"`
			Strict bool           `json:"strict"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

var chatText = map[string]bool{"text": true}

func decodeChat(body []byte, req *Request) error {
	var in chatRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return fmt.Errorf("not a chat completions request: %w", err)
	}
	for i, m := range in.Messages {
		where := fmt.Sprintf("messages[%d].content", i)
		text, err := rawText(m.Content, where, chatText, map[string]bool{"refusal": true})
		if err != nil {
			return err
		}
		switch m.Role {
		case "system", "developer", "user":
			role := "user"
			if m.Role != "user" {
				role = "system"
			}
			if text != "" { // an empty text block says nothing, and Anthropic refuses it
				req.Messages = append(req.Messages, llm.Message{Role: role, Content: text})
			}
		case "tool":
			req.Messages = append(req.Messages, llm.Message{Role: "tool", ToolCallID: m.ToolCallID, Content: text})
		case "assistant":
			msg := llm.Message{Role: "assistant", Content: text}
			for j, tc := range m.ToolCalls {
				if tc.Type != "" && tc.Type != "function" {
					return &Untranslatable{What: fmt.Sprintf("a %q tool call (messages[%d].tool_calls[%d])", tc.Type, i, j)}
				}
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
			}
			if msg.Content != "" || len(msg.ToolCalls) > 0 {
				req.Messages = append(req.Messages, msg)
			}
		default:
			return &Untranslatable{What: fmt.Sprintf("a message of role %q (messages[%d])", m.Role, i)}
		}
	}
	for i, t := range in.Tools {
		if t.Type != "function" {
			return &Untranslatable{What: fmt.Sprintf("a %q tool (tools[%d])", t.Type, i)}
		}
		req.Tools = append(req.Tools, llm.Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	req.ToolChoice = openaiToolChoice(in.ToolChoice)
	req.MaxTokens = max(in.MaxTokens, in.MaxCompletion)
	if in.Temperature != nil {
		req.Temperature, req.HasTemperature = *in.Temperature, true
	}
	req.Seed, req.Effort = in.Seed, parseEffort(in.ReasoningEffort)
	if f := in.ResponseFormat; f != nil && f.Type == "json_schema" && f.JSONSchema != nil {
		req.Schema = &llm.Schema{Name: f.JSONSchema.Name, Schema: f.JSONSchema.Schema, Strict: f.JSONSchema.Strict}
	}
	req.Stream, req.StreamUsage = in.Stream, in.StreamOptions.IncludeUsage
	return nil
}

// openaiToolChoice reads tool_choice as both OpenAI APIs write it: "auto", "none",
// "required", or a function named ({"type":"function","function":{"name"}} in chat
// completions, {"type":"function","name"} in Responses).
func openaiToolChoice(raw json.RawMessage) ToolChoice {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "none" || s == "required" {
			return ToolChoice{Mode: s}
		}
		return ToolChoice{}
	}
	var o struct {
		Name     string `json:"name"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(raw, &o) == nil && (o.Name != "" || o.Function.Name != "") {
		return ToolChoice{Mode: "tool", Name: o.Name + o.Function.Name}
	}
	return ToolChoice{}
}

// encodeChat is the chat completions body of req, by llm's builder o (with what the price
// table says the model takes). A temperature the client did not set is not sent.
func encodeChat(o *llm.OpenAI, req Request) ([]byte, error) {
	b, err := o.ChatBody(req.Request)
	if err != nil {
		return nil, err
	}
	m, err := asMap(b)
	if err != nil {
		return nil, err
	}
	if !req.HasTemperature {
		delete(m, "temperature")
	}
	switch req.ToolChoice.Mode {
	case "none", "required":
		m["tool_choice"] = req.ToolChoice.Mode
	case "tool":
		m["tool_choice"] = map[string]any{"type": "function", "function": map[string]any{"name": req.ToolChoice.Name}}
	}
	return json.Marshal(m)
}

func chatStop(s Stop) string {
	switch s {
	case StopTools:
		return "tool_calls"
	case StopLength:
		return "length"
	case StopFiltered:
		return "content_filter"
	}
	return "stop"
}

func chatUsage(u llm.Usage) map[string]any {
	return map[string]any{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.InputTokens + u.OutputTokens,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.CachedInputTokens}, "completion_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens}}
}

func chatCalls(a Answer) []any {
	var calls []any
	for _, tc := range a.ToolCalls {
		args := tc.Arguments
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		calls = append(calls, map[string]any{"id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": args}})
	}
	return calls
}

func chatCompletion(model string, a Answer) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if a.Text != "" || len(a.ToolCalls) == 0 {
		msg["content"] = a.Text
	}
	if calls := chatCalls(a); calls != nil {
		msg["tool_calls"] = calls
	}
	return map[string]any{"id": "chatcmpl-" + a.ID, "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": chatStop(a.Stop)}}, "usage": chatUsage(a.Usage)}
}

// chatStream is the chunks OpenAI sends for the answer: the role, the text, each tool call's
// id and name then its arguments (by index), the finish reason, the usage when the client
// asked for it, and [DONE].
func chatStream(model string, a Answer, usage bool) []byte {
	created := time.Now().Unix()
	var events []event
	chunk := func(delta map[string]any, finish any) {
		c := map[string]any{"id": "chatcmpl-" + a.ID, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
		if usage {
			c["usage"] = nil
		}
		events = append(events, event{data: c})
	}
	chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil)
	if a.Text != "" {
		chunk(map[string]any{"content": a.Text}, nil)
	}
	for i, c := range chatCalls(a) {
		call := c.(map[string]any)
		fn := call["function"].(map[string]any)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": call["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": ""}}}}, nil)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": fn["arguments"]}}}}, nil)
	}
	chunk(map[string]any{}, chatStop(a.Stop))
	if usage {
		events = append(events, event{data: map[string]any{"id": "chatcmpl-" + a.ID, "object": "chat.completion.chunk", "created": created,
			"model": model, "choices": []any{}, "usage": chatUsage(a.Usage)}})
	}
	return sse(append(events, event{data: "[DONE]"}))
}
