package translate

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/llm"
)

// OpenAI Responses: POST /v1/responses.

type respRequest struct {
	Instructions    json.RawMessage `json:"instructions"`
	Input           json.RawMessage `json:"input"`
	Tools           []respTool      `json:"tools"`
	ToolChoice      json.RawMessage `json:"tool_choice"`
	MaxOutputTokens int             `json:"max_output_tokens"`
	Temperature     *float64        `json:"temperature"`
	Stream          bool            `json:"stream"`
	PreviousID      string          `json:"previous_response_id"`
	Conversation    json.RawMessage `json:"conversation"`
	Reasoning       *struct {
		Effort string `json:"effort"`
	} `json:"reasoning"`
	Text *struct {
		Format *struct {
			Type   string         `json:"type"`
			Name   string         `json:"name"`
			Schema map[string]any `json:"schema"`
			Strict bool           `json:"strict"`
		} `json:"format"`
	} `json:"text"`
}

type respTool struct {
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
	Tools       []respTool     `json:"tools"` // a namespace's
}

// nsSep joins a namespace and its tool's name in a canonical tool's name: every provider takes
// letters, digits, _ and - in names.
const nsSep = "__"

type respItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
}

var respText = map[string]bool{"input_text": true, "output_text": true, "text": true}

func decodeResponses(body []byte, req *Request) error {
	var in respRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return fmt.Errorf("not a Responses request: %w", err)
	}
	if in.PreviousID != "" || (len(in.Conversation) > 0 && string(in.Conversation) != "null") {
		return &Untranslatable{What: "previous_response_id or conversation (a conversation kept by OpenAI)"}
	}
	instr, err := rawText(in.Instructions, "instructions", respText, nil)
	if err != nil {
		return err
	}
	if instr != "" {
		req.Messages = append(req.Messages, llm.Message{Role: "system", Content: instr})
	}
	var items []respItem
	if in := json.RawMessage(strings.TrimSpace(string(in.Input))); len(in) > 0 && in[0] == '"' {
		items = []respItem{{Type: "message", Role: "user", Content: in}}
	} else if len(in) > 0 {
		if err := json.Unmarshal(in, &items); err != nil {
			return fmt.Errorf("input is neither text nor a list of items: %w", err)
		}
	}
	for i, it := range items {
		if err := respAdd(req, it, i); err != nil {
			return err
		}
	}
	for i, t := range in.Tools {
		switch {
		case t.Type == "function":
			req.Tools = append(req.Tools, llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		case t.Type == "namespace":
			req.Namespaces = append(req.Namespaces, t.Name)
			for j, f := range t.Tools {
				if f.Type != "function" {
					return &Untranslatable{What: fmt.Sprintf("a %q tool (tools[%d].tools[%d])", f.Type, i, j)}
				}
				desc := strings.TrimSpace(t.Description + " " + f.Description)
				req.Tools = append(req.Tools, llm.Tool{Name: t.Name + nsSep + f.Name, Description: desc, Parameters: f.Parameters})
			}
		default:
			return &Untranslatable{What: fmt.Sprintf("a %q tool (tools[%d])", t.Type, i)}
		}
	}
	req.ToolChoice = openaiToolChoice(in.ToolChoice)
	req.MaxTokens, req.Stream = in.MaxOutputTokens, in.Stream
	if in.Temperature != nil {
		req.Temperature, req.HasTemperature = *in.Temperature, true
	}
	if in.Reasoning != nil {
		req.Effort = parseEffort(in.Reasoning.Effort)
	}
	if in.Text != nil && in.Text.Format != nil && in.Text.Format.Type == "json_schema" {
		f := in.Text.Format
		req.Schema = &llm.Schema{Name: f.Name, Schema: f.Schema, Strict: f.Strict}
	}
	return nil
}

// respAdd adds an input item: function calls join the assistant turn before them.
func respAdd(req *Request, it respItem, i int) error {
	typ := it.Type
	if typ == "" && it.Role != "" {
		typ = "message"
	}
	where := fmt.Sprintf("input[%d]", i)
	switch typ {
	case "message":
		text, err := rawText(it.Content, where+".content", respText, map[string]bool{"refusal": true})
		if err != nil {
			return err
		}
		role := "user"
		switch it.Role {
		case "system", "developer":
			role = "system"
		case "assistant":
			role = "assistant"
		}
		if text != "" { // an empty text block says nothing, and Anthropic refuses it
			req.Messages = append(req.Messages, llm.Message{Role: role, Content: text})
		}
	case "function_call":
		tc := llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: it.Arguments}
		if it.Namespace != "" {
			tc.Name = it.Namespace + nsSep + it.Name
		}
		if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "assistant" {
			req.Messages[n-1].ToolCalls = append(req.Messages[n-1].ToolCalls, tc)
		} else {
			req.Messages = append(req.Messages, llm.Message{Role: "assistant", ToolCalls: []llm.ToolCall{tc}})
		}
	case "function_call_output":
		out, err := rawText(it.Output, where+".output", respText, nil)
		if err != nil {
			return err
		}
		req.Messages = append(req.Messages, llm.Message{Role: "tool", ToolCallID: it.CallID, Content: out})
	case "reasoning":
		// the model's own (encrypted) reasoning: no other provider takes it
	default:
		return &Untranslatable{What: fmt.Sprintf("a %q item (%s)", typ, where)}
	}
	return nil
}

// encodeResponses is the Responses body of req (llm has no builder for it: its typed calls
// use chat completions).
func encodeResponses(model string, req Request) ([]byte, error) {
	m := map[string]any{"model": model, "store": false}
	var system []string
	input := []any{}
	for _, msg := range req.Messages {
		switch msg.Role {
		case "system":
			system = append(system, msg.Content)
		case "tool":
			input = append(input, map[string]any{"type": "function_call_output", "call_id": msg.ToolCallID, "output": msg.Content})
		case "assistant":
			if msg.Content != "" {
				input = append(input, map[string]any{"type": "message", "role": "assistant",
					"content": []any{map[string]any{"type": "output_text", "text": msg.Content}}})
			}
			for _, tc := range msg.ToolCalls {
				args := tc.Arguments
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				input = append(input, map[string]any{"type": "function_call", "call_id": tc.ID, "name": tc.Name, "arguments": args})
			}
		default:
			input = append(input, map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": msg.Content}}})
		}
	}
	m["input"] = input
	if len(system) > 0 {
		m["instructions"] = strings.Join(system, "\n")
	}
	var tools []any
	for _, t := range req.Tools {
		tools = append(tools, map[string]any{"type": "function", "name": t.Name, "description": t.Description, "parameters": t.Parameters, "strict": false})
	}
	if tools != nil {
		m["tools"] = tools
	}
	switch req.ToolChoice.Mode {
	case "none", "required":
		m["tool_choice"] = req.ToolChoice.Mode
	case "tool":
		m["tool_choice"] = map[string]any{"type": "function", "name": req.ToolChoice.Name}
	}
	if req.MaxTokens > 0 {
		m["max_output_tokens"] = req.MaxTokens
	}
	if req.HasTemperature {
		m["temperature"] = req.Temperature
	}
	if req.Effort != "" {
		m["reasoning"] = map[string]any{"effort": string(req.Effort)}
	}
	if s := req.Schema; s != nil {
		m["text"] = map[string]any{"format": map[string]any{"type": "json_schema", "name": s.Name, "schema": s.Schema, "strict": s.Strict}}
	}
	return json.Marshal(m)
}

func respUsage(u llm.Usage) map[string]any {
	return map[string]any{"input_tokens": u.InputTokens, "input_tokens_details": map[string]any{"cached_tokens": u.CachedInputTokens},
		"output_tokens": u.OutputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		"total_tokens": u.InputTokens + u.OutputTokens}
}

func respOutput(a Answer, namespaces []string) []map[string]any {
	out := []map[string]any{}
	if a.Text != "" {
		out = append(out, map[string]any{"type": "message", "id": "msg_" + a.ID, "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": a.Text, "annotations": []any{}, "logprobs": []any{}}}})
	}
	for i, tc := range a.ToolCalls {
		args := tc.Arguments
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%s_%d", a.ID, i), "call_id": tc.ID,
			"name": tc.Name, "arguments": args, "status": "completed"}
		for _, ns := range namespaces {
			if name, ok := strings.CutPrefix(tc.Name, ns+nsSep); ok {
				item["name"], item["namespace"] = name, ns
				break
			}
		}
		out = append(out, item)
	}
	return out
}

// responsesResponse is the answer as a Response; an answer cut by its budget is "incomplete"
// (incomplete_details.reason max_output_tokens), as the API says it.
func responsesResponse(model string, a Answer, status string, namespaces []string) map[string]any {
	r := map[string]any{"id": "resp_" + a.ID, "object": "response", "created_at": time.Now().Unix(), "status": status, "model": model,
		"output": respOutput(a, namespaces), "usage": respUsage(a.Usage), "error": nil, "incomplete_details": nil, "parallel_tool_calls": true,
		"tool_choice": "auto", "tools": []any{}, "metadata": map[string]any{}, "text": map[string]any{"format": map[string]any{"type": "text"}},
		"store": false, "truncation": "disabled", "instructions": nil}
	if status == "completed" && a.Stop == StopLength {
		r["status"], r["incomplete_details"] = "incomplete", map[string]any{"reason": "max_output_tokens"}
	}
	return r
}

// responsesStream is the events the Responses API sends for the answer, each with its type and
// sequence_number: response.created and response.in_progress, per output item
// output_item.added, its content part or arguments with their delta and done events,
// output_item.done, then response.completed (or response.incomplete) with the usage.
func responsesStream(model string, a Answer, namespaces []string) []byte {
	var events []event
	add := func(typ string, fields map[string]any) {
		fields["type"], fields["sequence_number"] = typ, len(events)
		events = append(events, event{typ, fields})
	}
	pending := responsesResponse(model, a, "in_progress", namespaces)
	pending["output"], pending["usage"] = []any{}, nil
	add("response.created", map[string]any{"response": pending})
	add("response.in_progress", map[string]any{"response": pending})
	for i, item := range respOutput(a, namespaces) {
		started := map[string]any{}
		for k, v := range item {
			started[k] = v
		}
		started["status"] = "in_progress"
		id := item["id"]
		if item["type"] == "message" {
			started["content"] = []any{}
			add("response.output_item.added", map[string]any{"output_index": i, "item": started})
			part := func(t string) map[string]any {
				return map[string]any{"type": "output_text", "text": t, "annotations": []any{}, "logprobs": []any{}}
			}
			add("response.content_part.added", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": part("")})
			add("response.output_text.delta", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "delta": a.Text, "logprobs": []any{}})
			add("response.output_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": a.Text, "logprobs": []any{}})
			add("response.content_part.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": part(a.Text)})
		} else {
			started["arguments"] = ""
			add("response.output_item.added", map[string]any{"output_index": i, "item": started})
			add("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": item["arguments"]})
			add("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "arguments": item["arguments"], "name": item["name"]})
		}
		add("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	final := responsesResponse(model, a, "completed", namespaces)
	if final["status"] == "incomplete" {
		add("response.incomplete", map[string]any{"response": final})
	} else {
		add("response.completed", map[string]any{"response": final})
	}
	return sse(events)
}
