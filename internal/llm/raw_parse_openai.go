package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/buger/jsonparser"
)

type chatUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func (u chatUsage) usage() Usage {
	return Usage{InputTokens: u.PromptTokens, CachedInputTokens: u.PromptTokensDetails.CachedTokens,
		OutputTokens: u.CompletionTokens, ReasoningTokens: u.CompletionTokensDetails.ReasoningTokens}
}

type chatToolCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatLogprob struct {
	Token       string        `json:"token"`
	Logprob     float64       `json:"logprob"`
	TopLogprobs []chatLogprob `json:"top_logprobs"`
}

type chatChoice struct {
	Message struct {
		Content   string         `json:"content"`
		ToolCalls []chatToolCall `json:"tool_calls"`
	} `json:"message"`
	FinishReason string `json:"finish_reason"`
	Logprobs     struct {
		Content []chatLogprob `json:"content"`
	} `json:"logprobs"`
}

type chatCompletion struct {
	Choices []chatChoice `json:"choices"`
	Usage   chatUsage    `json:"usage"`
}

// fill fills resp from a chat completion: its first choice's text, tool calls and logprobs (a
// token's top alternatives one level deep); no choices, or a filtered answer, is an *APIError.
func (c chatCompletion) fill(resp *Response) error {
	resp.Usage = c.Usage.usage()
	if len(c.Choices) == 0 {
		return &APIError{Provider: "openai", Status: 200, Code: "no_choices", Message: "the response has no choices"}
	}
	a := c.answer()
	resp.Text, resp.FinishReason = a.Text, a.FinishReason
	if resp.FinishReason == "content_filter" {
		// The answer was cut by the provider's filter: this case's input, not the run.
		return &APIError{Provider: "openai", Status: 200, Code: "content_filter",
			Message: "the answer was withheld by OpenAI's content filter (finish_reason content_filter)"}
	}
	resp.ToolCalls = a.ToolCalls
	for _, lp := range c.Choices[0].Logprobs.Content {
		t := TokenLogprob{Token: lp.Token, Logprob: lp.Logprob}
		for _, top := range lp.TopLogprobs {
			t.Top = append(t.Top, TokenLogprob{Token: top.Token, Logprob: top.Logprob})
		}
		resp.Logprobs = append(resp.Logprobs, t)
	}
	return nil
}

func (c chatCompletion) answer() Answer {
	var a Answer
	if len(c.Choices) == 0 {
		return a
	}
	ch := c.Choices[0]
	a.Text, a.FinishReason = ch.Message.Content, ch.FinishReason
	for _, tc := range ch.Message.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return a
}

// streamError is OpenAI's mid-stream error: an event (or chunk) holding {"error": {...}}, or a
// Responses API error event.
func streamError(status int, code, typ, msg string) *APIError {
	switch {
	case code == "rate_limit_exceeded" || typ == "rate_limit_exceeded":
		status = 429
	case code == "server_error" || typ == "server_error" || code == "internal_error":
		status = 500
	}
	return &APIError{Status: status, Type: typ, Code: code, Message: msg}
}

// parseChatStream reads chat.completion.chunk events with jsonparser (see parseAnthropicStream).
func parseChatStream(body []byte) (Usage, Answer, error) {
	var u Usage
	var a Answer
	calls := map[int]*ToolCall{}
	done := false
	for _, ev := range ParseSSE(body) {
		data := bytes.TrimSpace(ev.Data)
		if bytes.Equal(data, []byte("[DONE]")) {
			done = true
			continue
		}
		if len(data) == 0 || data[0] != '{' {
			return u, a, fmt.Errorf("chunk %.40q is not a JSON object", data)
		}
		if e, typ, _, err := jsonparser.Get(data, "error"); err == nil && typ == jsonparser.Object {
			msg, _ := jsonparser.GetString(e, "message")
			et, _ := jsonparser.GetString(e, "type")
			code, _ := jsonparser.GetString(e, "code")
			return u, a, streamError(500, code, et, msg)
		}
		if v, typ, _, err := jsonparser.Get(data, "usage"); err == nil && typ == jsonparser.Object {
			var cu chatUsage
			if err := json.Unmarshal(v, &cu); err != nil {
				return u, a, fmt.Errorf("usage: %w", err)
			}
			u = cu.usage()
		}
		_, _ = jsonparser.ArrayEach(data, func(ch []byte, _ jsonparser.ValueType, _ int, _ error) {
			if t, err := jsonparser.GetString(ch, "delta", "content"); err == nil {
				a.Text += t
			}
			if f, err := jsonparser.GetString(ch, "finish_reason"); err == nil && f != "" {
				a.FinishReason = f
			}
			_, _ = jsonparser.ArrayEach(ch, func(tc []byte, _ jsonparser.ValueType, _ int, _ error) {
				idx, _ := jsonparser.GetInt(tc, "index")
				cur := calls[int(idx)]
				if cur == nil {
					cur = &ToolCall{}
					calls[int(idx)] = cur
				}
				if id, _ := jsonparser.GetString(tc, "id"); id != "" {
					cur.ID = id
				}
				name, _ := jsonparser.GetString(tc, "function", "name")
				args, _ := jsonparser.GetString(tc, "function", "arguments")
				cur.Name += name
				cur.Arguments += args
			}, "delta", "tool_calls")
		}, "choices")
	}
	for _, i := range sortedInts(calls) {
		a.ToolCalls = append(a.ToolCalls, *calls[i])
	}
	if !done {
		return u, a, errStreamEnded
	}
	return u, a, nil
}

type responsesUsage struct {
	InputTokens        int64 `json:"input_tokens"`
	OutputTokens       int64 `json:"output_tokens"`
	InputTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

func (u responsesUsage) usage() Usage {
	return Usage{InputTokens: u.InputTokens, CachedInputTokens: u.InputTokensDetails.CachedTokens,
		OutputTokens: u.OutputTokens, ReasoningTokens: u.OutputTokensDetails.ReasoningTokens}
}

type responsesResponse struct {
	Status string `json:"status"`
	Output []struct {
		Type      string `json:"type"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		Input     string `json:"input"`
		Content   []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"output"`
	Usage             responsesUsage `json:"usage"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (r responsesResponse) answer() Answer {
	a := Answer{FinishReason: r.Status}
	if r.IncompleteDetails != nil && r.IncompleteDetails.Reason != "" {
		a.FinishReason = r.IncompleteDetails.Reason
	}
	var text []string
	for _, it := range r.Output {
		switch it.Type {
		case "message":
			for _, c := range it.Content {
				if c.Type == "output_text" {
					text = append(text, c.Text)
				}
			}
		case "function_call":
			a.ToolCalls = append(a.ToolCalls, ToolCall{ID: it.CallID, Name: it.Name, Arguments: it.Arguments})
		case "custom_tool_call":
			a.ToolCalls = append(a.ToolCalls, ToolCall{ID: it.CallID, Name: it.Name, Arguments: it.Input})
		}
	}
	a.Text = strings.Join(text, "")
	return a
}

// parseResponsesStream reads the Responses API's events: the answer and usage are those of the
// terminal response.completed (or response.incomplete); response.failed and error events are
// errors.
func parseResponsesStream(body []byte) (Usage, Answer, error) {
	for _, ev := range ParseSSE(body) {
		typ, err := jsonparser.GetString(ev.Data, "type")
		if err != nil {
			return Usage{}, Answer{}, fmt.Errorf("event %s: %w", ev.Name, err)
		}
		switch typ {
		case "response.completed", "response.incomplete", "response.failed":
		case "error":
			code, _ := jsonparser.GetString(ev.Data, "code")
			msg, _ := jsonparser.GetString(ev.Data, "message")
			return Usage{}, Answer{}, streamError(400, code, code, msg)
		default:
			continue // the deltas: the terminal event has the whole response
		}
		var e struct {
			Response responsesResponse `json:"response"`
		}
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			return Usage{}, Answer{}, fmt.Errorf("event %s: %w", ev.Name, err)
		}
		if typ == "response.failed" {
			code, msg := "", "the response failed"
			if er := e.Response.Error; er != nil {
				code, msg = er.Code, er.Message
			}
			return e.Response.Usage.usage(), Answer{}, streamError(400, code, code, msg)
		}
		return e.Response.Usage.usage(), e.Response.answer(), nil
	}
	return Usage{}, Answer{}, errStreamEnded
}
