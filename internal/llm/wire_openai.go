package llm

// The chat-completions request, as vulnbench sends it (the answer's structs are in
// raw_parse_openai.go).

type chatRequest struct {
	Messages            []chatMsg           `json:"messages"`
	Model               string              `json:"model"`
	Logprobs            bool                `json:"logprobs,omitempty"`
	MaxCompletionTokens int                 `json:"max_completion_tokens,omitempty"`
	MaxTokens           int                 `json:"max_tokens,omitempty"`
	ReasoningEffort     Effort              `json:"reasoning_effort,omitempty"`
	ResponseFormat      *chatResponseFormat `json:"response_format,omitempty"`
	Seed                *int64              `json:"seed,omitempty"`
	Temperature         *float64            `json:"temperature,omitempty"` // 0 is sent when the model takes one
	TopLogprobs         int                 `json:"top_logprobs,omitempty"`
	Tools               []chatTool          `json:"tools,omitempty"`
}

// chatMsg is one message; Content is absent from an assistant turn with only tool calls.
type chatMsg struct {
	Content    *string        `json:"content,omitempty"`
	ToolCalls  []chatCallSent `json:"tool_calls,omitempty"`
	ToolCallID *string        `json:"tool_call_id,omitempty"`
	Role       string         `json:"role"`
}

type chatCallSent struct {
	ID       string       `json:"id"`
	Function chatFunction `json:"function"`
	Type     string       `json:"type"` // "function"
}

type chatFunction struct {
	Arguments string `json:"arguments"`
	Name      string `json:"name"`
}

type chatTool struct {
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters,omitempty"`
	} `json:"function"`
	Type string `json:"type"` // "function"
}

type chatResponseFormat struct {
	JSONSchema struct {
		Name   string         `json:"name"`
		Strict bool           `json:"strict"`
		Schema map[string]any `json:"schema,omitempty"`
	} `json:"json_schema"`
	Type string `json:"type"` // "json_schema"
}

// newChatRequest is the body for req, with only what caps says the model takes.
func newChatRequest(model string, caps Caps, req Request) chatRequest {
	p := chatRequest{Model: model, ReasoningEffort: req.Effort, Seed: req.Seed}
	if caps.Temperature {
		t := req.Temperature
		p.Temperature = &t
	}
	if req.MaxTokens > 0 {
		if caps.MaxTokensParam == "max_completion_tokens" {
			p.MaxCompletionTokens = req.MaxTokens
		} else {
			p.MaxTokens = req.MaxTokens
		}
	}
	if req.Logprobs && caps.Logprobs {
		p.Logprobs, p.TopLogprobs = true, max(req.TopLogprobs, 0)
	}
	if req.Schema != nil && !caps.NoJSONSchema {
		f := &chatResponseFormat{Type: "json_schema"}
		f.JSONSchema.Name, f.JSONSchema.Strict, f.JSONSchema.Schema = req.Schema.Name, req.Schema.Strict, req.Schema.Schema
		p.ResponseFormat = f
	}
	for _, m := range req.Messages {
		p.Messages = append(p.Messages, newChatMsg(m))
	}
	for _, t := range req.Tools {
		var ct chatTool
		ct.Type, ct.Function.Name, ct.Function.Description, ct.Function.Parameters = "function", t.Name, t.Description, t.Parameters
		p.Tools = append(p.Tools, ct)
	}
	return p
}

func newChatMsg(m Message) chatMsg {
	content := m.Content
	switch m.Role {
	case "system", "tool":
		c := chatMsg{Role: m.Role, Content: &content}
		if m.Role == "tool" {
			id := m.ToolCallID
			c.ToolCallID = &id
		}
		return c
	case "assistant":
		a := chatMsg{Role: "assistant"}
		if m.Content != "" {
			a.Content = &content
		}
		for _, tc := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, chatCallSent{ID: tc.ID, Type: "function", Function: chatFunction{Name: tc.Name, Arguments: tc.Arguments}})
		}
		return a
	}
	return chatMsg{Role: "user", Content: &content}
}
