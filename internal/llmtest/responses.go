package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// responsesDialect speaks OpenAI's Responses API (POST /v1/responses), in the shapes of
// github.com/openai/openai-go/v3/responses (ResponseNewParams, Response, the streaming
// events); the errors, key and headers are the chat completions'.
type responsesDialect struct{ openaiDialect }

type respRequest struct {
	Model           string            `json:"model"`
	Instructions    json.RawMessage   `json:"instructions"`
	Input           json.RawMessage   `json:"input"`
	Tools           []json.RawMessage `json:"tools"`
	Temperature     *float64          `json:"temperature"`
	MaxOutputTokens *int              `json:"max_output_tokens"`
	Stream          bool              `json:"stream"`
	PreviousID      *string           `json:"previous_response_id"`
}

// respItem is an input item: a message (with or without "type"), a function or custom tool
// call, its output, or a reasoning item (whose content the fake ignores).
type respItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Output    json.RawMessage `json:"output"`
}

func respText() map[string]string {
	return map[string]string{"input_text": "text", "output_text": "text", "text": "text", "refusal": "refusal"}
}

func (responsesDialect) parse(body []byte) (Request, *apiError, *apiError) {
	var in respRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, nil, &apiError{status: 400, typ: "invalid_request_error",
			message: "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.) " + err.Error()}
	}
	req := Request{Model: in.Model, Temperature: in.Temperature, Stream: in.Stream}
	if in.MaxOutputTokens != nil {
		req.MaxTokens = *in.MaxOutputTokens
	}
	invalid := func(param, code, msg string) (Request, *apiError, *apiError) {
		return req, &apiError{status: 400, typ: "invalid_request_error", message: msg, param: param, code: code}, nil
	}
	for i, raw := range in.Tools {
		var t struct{ Type, Name string }
		if err := json.Unmarshal(raw, &t); err != nil {
			return invalid(fmt.Sprintf("tools[%d]", i), "invalid_type", fmt.Sprintf("Invalid type for 'tools[%d]': expected an object.", i))
		}
		if t.Name != "" {
			req.Tools = append(req.Tools, t.Name)
		}
	}
	var system []string
	if instr, ok := textOf(in.Instructions, respText()); !ok {
		return invalid("instructions", "invalid_type", "Invalid type for 'instructions': expected a string.")
	} else if instr != "" {
		system = append(system, instr)
	}
	items, aerr := respItems(in.Input)
	if aerr != nil {
		return req, aerr, nil
	}
	for i, it := range items {
		if err := req.addItem(it, &system); err != "" {
			return invalid(fmt.Sprintf("input[%d]", i), "invalid_value", err)
		}
	}
	req.System = strings.Join(system, "\n")
	switch {
	case in.Model == "":
		return invalid("model", "missing_required_parameter", "Missing required parameter: 'model'.")
	case len(items) == 0:
		return invalid("input", "missing_required_parameter", "Missing required parameter: 'input'.")
	case in.PreviousID != nil:
		return invalid("previous_response_id", "unsupported_value", "llmtest: previous_response_id is not supported by this fake server; send the whole input (store=false).")
	}
	if _, ids, unanswered, ok := checkToolPairing(req.Messages); !ok {
		if unanswered {
			return invalid("input", "", "No tool output found for function call "+strings.Join(ids, ", ")+".")
		}
		return invalid("input", "", "No tool call found for function call output with call_id "+strings.Join(ids, ", ")+".")
	}
	return req, nil, nil
}

// respItems decodes input: a string (one user message) or a list of items.
func respItems(raw json.RawMessage) ([]respItem, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		return []respItem{{Type: "message", Role: "user", Content: raw}}, nil
	}
	var items []respItem
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, &apiError{status: 400, typ: "invalid_request_error", param: "input", code: "invalid_type",
				message: "Invalid type for 'input': expected a string or an array of input items."}
		}
	}
	return items, nil
}

// addItem adds an input item to the conversation: tool calls join the assistant message before
// them, tool outputs become tool messages. It returns what the API would refuse, or "".
func (r *Request) addItem(it respItem, system *[]string) string {
	typ := it.Type
	if typ == "" && it.Role != "" {
		typ = "message"
	}
	switch typ {
	case "message":
		text, ok := textOf(it.Content, respText())
		if !ok {
			return "Invalid content: expected a string or a list of content parts."
		}
		switch it.Role {
		case "system", "developer":
			*system = append(*system, text)
		case "user", "assistant":
			r.Messages = append(r.Messages, Message{Role: it.Role, Content: text})
		default:
			return fmt.Sprintf("Invalid value: '%s'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", it.Role)
		}
	case "function_call", "custom_tool_call":
		args := it.Arguments
		if typ == "custom_tool_call" {
			args = it.Input
		}
		tc := ToolCall{ID: it.CallID, Name: it.Name, Arguments: args}
		if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == "assistant" {
			r.Messages[n-1].ToolCalls = append(r.Messages[n-1].ToolCalls, tc)
		} else {
			r.Messages = append(r.Messages, Message{Role: "assistant", ToolCalls: []ToolCall{tc}})
		}
	case "function_call_output", "custom_tool_call_output":
		text, ok := textOf(it.Output, respText())
		if !ok {
			return "Invalid output: expected a string or a list of content parts."
		}
		r.Messages = append(r.Messages, Message{Role: "tool", Content: text, ToolCallID: it.CallID})
	case "reasoning", "item_reference":
	default:
		return fmt.Sprintf("llmtest: input items of type %q are not supported by this fake server.", typ)
	}
	return ""
}

type respOut struct {
	ID                string           `json:"id"`
	Object            string           `json:"object"`
	CreatedAt         int64            `json:"created_at"`
	Status            string           `json:"status"`
	Model             string           `json:"model"`
	Output            []map[string]any `json:"output"`
	Usage             *respUsage       `json:"usage"`
	ParallelToolCalls bool             `json:"parallel_tool_calls"`
	ToolChoice        string           `json:"tool_choice"`
	Tools             []any            `json:"tools"`
	Error             any              `json:"error"`
	IncompleteDetails any              `json:"incomplete_details"`
	Instructions      any              `json:"instructions"`
	Metadata          map[string]any   `json:"metadata"`
	Temperature       float64          `json:"temperature"`
	TopP              float64          `json:"top_p"`
	Text              map[string]any   `json:"text"`
	Store             bool             `json:"store"`
	Truncation        string           `json:"truncation"`
}

type respUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

// response is the reply as a completed Response: a message item for the text, a
// function_call item per tool call.
func (responsesDialect) response(req Request, rep Reply, n int64) (respOut, *apiError) {
	id := "resp_llmtest" + strconv.FormatInt(n, 10)
	out := respOut{ID: id, Object: "response", CreatedAt: time.Now().Unix(), Status: "completed", Model: req.Model,
		Output: []map[string]any{}, ParallelToolCalls: true, ToolChoice: "auto", Tools: []any{}, Metadata: map[string]any{},
		Temperature: 1, TopP: 1, Text: map[string]any{"format": map[string]string{"type": "text"}}, Truncation: "disabled"}
	answer := rep.Text
	if rep.Text != "" {
		out.Output = append(out.Output, map[string]any{"type": "message", "id": "msg_llmtest" + strconv.FormatInt(n, 10), "status": "completed",
			"role": "assistant", "content": []map[string]any{{"type": "output_text", "text": rep.Text, "annotations": []any{}, "logprobs": []any{}}}})
	}
	for i, tc := range rep.ToolCalls {
		callID := tc.ID
		if callID == "" {
			callID = fmt.Sprintf("call_llmtest_%d_%d", n, i)
		}
		args := tc.Arguments
		if args == "" {
			args = "{}"
		}
		if trimmed := bytes.TrimSpace([]byte(args)); !json.Valid(trimmed) || trimmed[0] != '{' {
			return out, &apiError{status: 500, typ: "server_error",
				message: fmt.Sprintf("llmtest: the scripted call of tool %q has arguments that are not a JSON object: %q", tc.Name, tc.Arguments)}
		}
		out.Output = append(out.Output, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_llmtest_%d_%d", n, i), "call_id": callID,
			"name": tc.Name, "arguments": args, "status": "completed"})
		answer += tc.Name + args
	}
	in, o := usageOf(req, rep, answer)
	u := &respUsage{InputTokens: in, OutputTokens: max(o, rep.ReasoningTokens)}
	u.InputTokensDetails.CachedTokens = rep.CachedInputTokens
	u.OutputTokensDetails.ReasoningTokens = rep.ReasoningTokens
	u.TotalTokens = u.InputTokens + u.OutputTokens
	out.Usage = u
	return out, nil
}

func (d responsesDialect) reply(req Request, rep Reply, n int64) ([]byte, *apiError) {
	out, aerr := d.response(req, rep, n)
	if aerr != nil {
		return nil, aerr
	}
	return mustJSON(out), nil
}

// stream answers a stream=true request with the events the Responses API sends, each with its
// type and sequence_number: response.created and response.in_progress (no output yet), then per
// output item output_item.added; for a message content_part.added, output_text.delta pieces,
// output_text.done, content_part.done; for a function call function_call_arguments.delta pieces
// and function_call_arguments.done; output_item.done; and response.completed with the usage.
// With Reply.StreamError a response.failed (server_error) comes halfway instead of the rest.
func (d responsesDialect) stream(req Request, rep Reply, n int64) ([]sseEvent, *apiError) {
	out, aerr := d.response(req, rep, n)
	if aerr != nil {
		return nil, aerr
	}
	var events []sseEvent
	add := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = len(events)
		events = append(events, sseEvent{name: typ, data: mustJSON(fields)})
	}
	pending := out
	pending.Status, pending.Output, pending.Usage = "in_progress", []map[string]any{}, nil
	add("response.created", map[string]any{"response": pending})
	add("response.in_progress", map[string]any{"response": pending})
	for i, item := range out.Output {
		d.streamItem(add, i, item)
	}
	add("response.completed", map[string]any{"response": out})
	if rep.StreamError {
		failed := pending
		failed.Status = "failed"
		failed.Error = map[string]string{"code": "server_error", "message": "The server had an error while processing your request. Sorry about that!"}
		events = events[:len(events)/2]
		add("response.failed", map[string]any{"response": failed})
	}
	return events, nil
}

func (responsesDialect) streamItem(add func(string, map[string]any), i int, item map[string]any) {
	id := item["id"]
	started := map[string]any{}
	for k, v := range item {
		started[k] = v
	}
	started["status"] = "in_progress"
	switch item["type"] {
	case "message":
		started["content"] = []any{}
		add("response.output_item.added", map[string]any{"output_index": i, "item": started})
		text := item["content"].([]map[string]any)[0]["text"].(string)
		part := func(t string) map[string]any {
			return map[string]any{"type": "output_text", "text": t, "annotations": []any{}, "logprobs": []any{}}
		}
		add("response.content_part.added", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": part("")})
		for _, p := range pieces(text, textPiece) {
			add("response.output_text.delta", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "delta": p, "logprobs": []any{}})
		}
		add("response.output_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": text, "logprobs": []any{}})
		add("response.content_part.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": part(text)})
	case "function_call":
		started["arguments"] = ""
		add("response.output_item.added", map[string]any{"output_index": i, "item": started})
		args := item["arguments"].(string)
		for _, p := range pieces(args, argsPiece) {
			add("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": p})
		}
		add("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "arguments": args, "name": item["name"]})
	}
	add("response.output_item.done", map[string]any{"output_index": i, "item": item})
}
