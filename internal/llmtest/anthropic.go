package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// anthropicDialect speaks the messages API, in the shapes of
// github.com/anthropics/anthropic-sdk-go/v2 (MessageNewParams, Message,
// Usage, shared.ErrorResponse).
type anthropicDialect struct{}

func (anthropicDialect) name() string               { return Anthropic }
func (anthropicDialect) baseURL(root string) string { return root }
func (anthropicDialect) retryAfterMs() bool         { return false }

func (anthropicDialect) route(method, path string) route {
	switch {
	case method == http.MethodPost && path == "/v1/messages":
		return routeChat
	case method == http.MethodGet && path == "/v1/models":
		return routeModels
	}
	return routeNone
}

func (anthropicDialect) setHeaders(h http.Header, reqID string) {
	h.Set("Request-Id", reqID)
}

func (anthropicDialect) apiKey(h http.Header) string {
	if k := h.Get("X-Api-Key"); k != "" {
		return k
	}
	return bearer(h)
}

type antRequest struct {
	Model     string          `json:"model"`
	MaxTokens *int            `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []antMessage    `json:"messages"`
	Tools     []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Temperature *float64 `json:"temperature"`
	Stream      bool     `json:"stream"`
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
}

func antText() map[string]string { return map[string]string{"text": "text"} }

func (anthropicDialect) parse(body []byte) (Request, *apiError, *apiError) {
	var in antRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, nil, &apiError{status: 400, typ: "invalid_request_error", message: "There was an error parsing the body: " + err.Error()}
	}
	req := Request{Model: in.Model, Temperature: in.Temperature}
	if in.MaxTokens != nil {
		req.MaxTokens = *in.MaxTokens
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, t.Name)
	}
	invalid := func(msg string) (Request, *apiError, *apiError) {
		return req, &apiError{status: 400, typ: "invalid_request_error", message: msg}, nil
	}
	system, ok := textOf(in.System, antText())
	if !ok {
		return invalid("system: Input should be a valid string or a list of text blocks")
	}
	var systems []string
	if system != "" {
		systems = append(systems, system)
	}
	for i, m := range in.Messages {
		if m.Role == "system" {
			text, ok := textOf(m.Content, antText())
			if !ok {
				return invalid(fmt.Sprintf("messages.%d.content: Input should be a valid list of text blocks", i))
			}
			systems = append(systems, text)
			continue
		}
		if m.Role != "user" && m.Role != "assistant" {
			return invalid(fmt.Sprintf("messages.%d.role: Input should be 'user', 'assistant' or 'system'", i))
		}
		blocks, err := antBlocks(m.Content)
		if err != nil {
			return invalid(fmt.Sprintf("messages.%d.content: %v", i, err))
		}
		msg := Message{Role: m.Role}
		var texts []string
		flush := func() {
			if len(texts) > 0 || (msg.Role == "assistant" && len(msg.ToolCalls) > 0) {
				msg.Content = strings.Join(texts, "\n")
				req.Messages = append(req.Messages, msg)
			}
			texts = nil
		}
		for j, b := range blocks {
			switch b.Type {
			case "text":
				texts = append(texts, b.Text)
			case "tool_use":
				if m.Role != "assistant" {
					return invalid(fmt.Sprintf("messages.%d.content.%d: `tool_use` blocks can only be in `assistant` messages", i, j))
				}
				args := "{}"
				if len(bytes.TrimSpace(b.Input)) > 0 {
					var buf bytes.Buffer
					if err := json.Compact(&buf, b.Input); err != nil {
						return invalid(fmt.Sprintf("messages.%d.content.%d.input: %v", i, j, err))
					}
					args = buf.String()
				}
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
			case "tool_result":
				if m.Role != "user" {
					return invalid(fmt.Sprintf("messages.%d.content.%d: `tool_result` blocks can only be in `user` messages", i, j))
				}
				text, ok := textOf(b.Content, antText())
				if !ok {
					return invalid(fmt.Sprintf("messages.%d.content.%d.content: Input should be a valid string or list of blocks", i, j))
				}
				flush()
				req.Messages = append(req.Messages, Message{Role: "tool", Content: text, ToolCallID: b.ToolUseID})
			}
		}
		flush()
	}
	req.System = strings.Join(systems, "\n")

	switch {
	case in.Model == "":
		return invalid("model: Field required")
	case in.MaxTokens == nil:
		return invalid("max_tokens: Field required")
	case len(in.Messages) == 0:
		return invalid("messages: at least one message is required")
	}
	req.Stream = in.Stream
	if _, ids, unanswered, ok := checkToolPairing(req.Messages); !ok {
		if unanswered {
			return invalid("messages: `tool_use` ids were found without `tool_result` blocks immediately after: " + strings.Join(ids, ", ") +
				". Each `tool_use` block must have a corresponding `tool_result` block in the next message.")
		}
		return invalid("messages: unexpected `tool_use_id` found in `tool_result` blocks: " + strings.Join(ids, ", ") +
			". Each `tool_result` block must have a corresponding `tool_use` block in the previous message.")
	}
	return req, nil, nil
}

// antBlocks decodes message content: a string, or an array of blocks.
func antBlocks(raw json.RawMessage) ([]antBlock, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []antBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []antBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, fmt.Errorf("Input should be a valid string or list of blocks")
	}
	return blocks, nil
}

type antMessageOut struct {
	ID           string   `json:"id"`
	Type         string   `json:"type"`
	Role         string   `json:"role"`
	Model        string   `json:"model"`
	Content      []any    `json:"content"`
	StopReason   string   `json:"stop_reason"`
	StopSequence *string  `json:"stop_sequence"`
	Usage        antUsage `json:"usage"`
}

type antTextOut struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type antToolUseOut struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type antUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	CacheCreation            struct {
		Ephemeral5m int `json:"ephemeral_5m_input_tokens"`
		Ephemeral1h int `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
	OutputTokens int    `json:"output_tokens"`
	ServiceTier  string `json:"service_tier"`
}

func (d anthropicDialect) reply(req Request, rep Reply, n int64) ([]byte, *apiError) {
	m, aerr := d.message(req, rep, n)
	if aerr != nil {
		return nil, aerr
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, &apiError{status: 500, typ: "api_error", message: "llmtest: cannot encode the scripted reply: " + err.Error()}
	}
	return b, nil
}

// message is the reply as a Message.
func (anthropicDialect) message(req Request, rep Reply, n int64) (antMessageOut, *apiError) {
	m := antMessageOut{
		ID:      "msg_llmtest" + strconv.FormatInt(n, 10),
		Type:    "message",
		Role:    "assistant",
		Model:   req.Model,
		Content: []any{},
	}
	if rep.Text != "" {
		m.Content = append(m.Content, antTextOut{Type: "text", Text: rep.Text})
	}
	answer := rep.Text
	for i, tc := range rep.ToolCalls {
		out := antToolUseOut{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: json.RawMessage(tc.Arguments)}
		if out.ID == "" {
			out.ID = fmt.Sprintf("toolu_llmtest_%d_%d", n, i)
		}
		if tc.Arguments == "" {
			out.Input = json.RawMessage("{}")
		}
		if trimmed := bytes.TrimSpace(out.Input); !json.Valid(trimmed) || trimmed[0] != '{' {
			return m, &apiError{status: 500, typ: "api_error",
				message: fmt.Sprintf("llmtest: the scripted call of tool %q has arguments that are not a JSON object: %q", tc.Name, tc.Arguments)}
		}
		m.Content = append(m.Content, out)
		answer += tc.Name + tc.Arguments
	}
	m.StopReason = rep.FinishReason
	if m.StopReason == "" {
		m.StopReason = "end_turn"
		if len(rep.ToolCalls) > 0 {
			m.StopReason = "tool_use"
		}
	}
	in, out := usageOf(req, rep, answer)
	in = max(in, rep.CachedInputTokens+rep.CacheWriteTokens)
	m.Usage.InputTokens = in - rep.CachedInputTokens - rep.CacheWriteTokens
	m.Usage.CacheReadInputTokens = rep.CachedInputTokens
	m.Usage.CacheCreationInputTokens = rep.CacheWriteTokens
	m.Usage.CacheCreation.Ephemeral5m = rep.CacheWriteTokens
	m.Usage.OutputTokens = out
	m.Usage.ServiceTier = "standard"
	return m, nil
}

func (anthropicDialect) models(ids []string) []byte {
	type model struct {
		Type        string `json:"type"`
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
		CreatedAt   string `json:"created_at"`
	}
	list := struct {
		Data    []model `json:"data"`
		HasMore bool    `json:"has_more"`
		FirstID *string `json:"first_id"`
		LastID  *string `json:"last_id"`
	}{Data: []model{}}
	for _, id := range ids {
		list.Data = append(list.Data, model{Type: "model", ID: id, DisplayName: id, CreatedAt: "2025-01-01T00:00:00Z"})
	}
	if len(ids) > 0 {
		list.FirstID, list.LastID = &ids[0], &ids[len(ids)-1]
	}
	return mustJSON(list)
}

func (anthropicDialect) notFoundPath(string, string) *apiError {
	return &apiError{status: 404, typ: "not_found_error", message: "Not Found"}
}

func (anthropicDialect) missingKey() *apiError {
	return &apiError{status: 401, typ: "authentication_error", message: "x-api-key header is required"}
}

func (anthropicDialect) badKey(string) *apiError {
	return &apiError{status: 401, typ: "authentication_error", message: "invalid x-api-key"}
}

func (anthropicDialect) unknownModel(model string) *apiError {
	return &apiError{status: 404, typ: "not_found_error", message: "model: " + model}
}

func (anthropicDialect) statusError(status int, typ string) *apiError {
	e := &apiError{status: status}
	switch {
	case status == 400:
		e.typ, e.message = "invalid_request_error", "Invalid request."
	case status == 401:
		e.typ, e.message = "authentication_error", "invalid x-api-key"
	case status == 402:
		e.typ, e.message = "billing_error", "Your credit balance is too low to access the Anthropic API."
	case status == 403:
		e.typ, e.message = "permission_error", "Your API key does not have permission to use the specified resource."
	case status == 404:
		e.typ, e.message = "not_found_error", "The requested resource could not be found."
	case status == 413:
		e.typ, e.message = "request_too_large", "Request exceeds the maximum allowed number of bytes."
	case status == 429:
		e.typ, e.message = "rate_limit_error", "Number of requests has exceeded your rate limit. Please try again later."
	case status == 504:
		e.typ, e.message = "timeout_error", "Request timed out."
	case status == 529:
		e.typ, e.message = "overloaded_error", "Overloaded"
	case status >= 500:
		e.typ, e.message = "api_error", "Internal server error"
	default:
		e.typ, e.message = "invalid_request_error", http.StatusText(status)
	}
	if typ != "" {
		e.typ = typ
	}
	return e
}

func (anthropicDialect) errorBody(e *apiError, reqID string) []byte {
	type errObj struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	return mustJSON(struct {
		Type      string `json:"type"`
		Error     errObj `json:"error"`
		RequestID string `json:"request_id"`
	}{"error", errObj{e.typ, e.message}, reqID})
}
