package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// Anthropic calls the Anthropic messages API.
type Anthropic struct {
	client anthropic.Client
	info   Info
	raw    rawEndpoint // for CompleteRaw
}

// NewAnthropic makes an adapter for model at baseURL ("" for Anthropic's API) with key. The
// SDK's own retries are off: WithRetry decides.
func NewAnthropic(model, baseURL, key string, hc *http.Client) *Anthropic {
	// No environment defaults: the key and base URL are exactly those given (never a credential
	// profile the SDK would find on its own).
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithAPIKey(key), option.WithMaxRetries(0)}
	if baseURL != "" {
		opts = append(opts, option.WithBaseURL(baseURL))
	}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	return &Anthropic{client: anthropic.NewClient(opts...), info: Info{Provider: "anthropic", Model: model, BaseHost: hostOf(baseURL)},
		raw: newRawEndpoint(baseURL, "https://api.anthropic.com", key, hc)}
}

// Info implements Model.
func (a *Anthropic) Info() Info { return a.info }

// DefaultMaxTokens is the answer budget when a request sets none (Anthropic requires one).
const DefaultMaxTokens = 2048

// Complete implements Model. Anthropic returns no logprobs, so Logprobs is never set. The API
// has deprecated temperature: it is sent only when a request sets one above 0.
func (a *Anthropic) Complete(ctx context.Context, req Request) (Response, error) {
	p := a.params(req)
	var opts []option.RequestOption
	if req.Temperature > 0 && req.Effort == "" { // thinking takes no temperature but 1
		opts = append(opts, option.WithJSONSet("temperature", req.Temperature))
	}
	start := time.Now()
	var hr *http.Response
	msg, err := a.client.Messages.New(ctx, p, append(opts, option.WithResponseInto(&hr))...)
	resp := Response{Calls: 1, Latency: time.Since(start)}
	if hr != nil {
		resp.RateLimit = parseRateLimit(hr.Header, time.Now())
	}
	if err != nil {
		return resp, a.apiError(err)
	}
	err = readMessage(msg, &resp)
	return resp, err
}

// MessageBody is the Messages API body Complete sends for req (a batch request's params).
func (a *Anthropic) MessageBody(req Request) ([]byte, error) {
	b, err := json.Marshal(a.params(req))
	if err == nil && req.Temperature > 0 && req.Effort == "" {
		var m map[string]any
		if err = json.Unmarshal(b, &m); err == nil {
			m["temperature"] = req.Temperature
			b, err = json.Marshal(m)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("anthropic request body: %w", err)
	}
	return b, nil
}

// ReadMessage reads a message's JSON body as Complete reads the answer (a batch result's
// message); a refusal is an *APIError, as online.
func ReadMessage(body []byte) (Response, error) {
	var msg anthropic.Message
	if err := json.Unmarshal(body, &msg); err != nil {
		return Response{}, &APIError{Provider: "anthropic", Status: 200, Code: "malformed", Message: "unreadable message: " + err.Error()}
	}
	var resp Response
	err := readMessage(&msg, &resp)
	return resp, err
}

func (a *Anthropic) params(req Request) anthropic.MessageNewParams {
	maxTok := req.MaxTokens
	if maxTok <= 0 {
		maxTok = DefaultMaxTokens
	}
	p := anthropic.MessageNewParams{Model: anthropic.Model(a.info.Model), MaxTokens: int64(maxTok)}
	if b := req.Effort.ThinkingBudget(); b > 0 {
		// Extended thinking: the budget is part of max_tokens, which must exceed it.
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(int64(b))
		p.MaxTokens = max(p.MaxTokens, int64(b+maxTok))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			p.System = append(p.System, anthropic.TextBlockParam{Text: m.Content})
		case "assistant":
			var blocks []anthropic.ContentBlockParamUnion
			if m.Content != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				var input any = map[string]any{}
				if tc.Arguments != "" {
					_ = json.Unmarshal([]byte(tc.Arguments), &input)
				}
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, input, tc.Name))
			}
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
		case "tool":
			p.Messages = append(p.Messages, anthropic.NewUserMessage(anthropic.NewToolResultBlock(m.ToolCallID, m.Content, false)))
		default:
			p.Messages = append(p.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock(m.Content)))
		}
	}
	for _, t := range req.Tools {
		// The whole schema goes as extra fields, as the OpenAI adapter sends it: the SDK's typed
		// fields would keep only properties and a "required" that is a []string.
		tool := anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{ExtraFields: t.Parameters}, t.Name)
		if t.Description != "" {
			tool.OfTool.Description = anthropic.String(t.Description)
		}
		p.Tools = append(p.Tools, tool)
	}
	return p
}

// readMessage fills resp from a message.
func readMessage(msg *anthropic.Message, resp *Response) error {
	var text []string
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			resp.ToolCalls = append(resp.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
		}
	}
	resp.Text = strings.Join(text, "")
	resp.FinishReason = string(msg.StopReason)
	u := msg.Usage
	resp.Usage = Usage{InputTokens: u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
		CachedInputTokens: u.CacheReadInputTokens, CacheWriteTokens: u.CacheCreationInputTokens, OutputTokens: u.OutputTokens}
	if resp.FinishReason == "refusal" {
		// Claude declined to answer this case: its input, not the run.
		return &APIError{Provider: "anthropic", Status: 200, Code: "refusal",
			Message: "the model declined to answer (stop_reason refusal)"}
	}
	return nil
}

func (a *Anthropic) apiError(err error) error {
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		e := &APIError{Provider: "anthropic", Status: ae.StatusCode, Type: string(ae.Type()), Message: ae.Message, Cause: err}
		if e.Message == "" {
			e.Message = http.StatusText(ae.StatusCode)
		}
		if m := antParamRE.FindStringSubmatch(e.Message); m != nil && e.Status == 400 {
			e.Param = m[1] // Anthropic names the field first: "max_tokens: 100000 > 64000, ..."
		}
		if ae.Response != nil {
			now := time.Now()
			e.RetryAfter, e.HasRetryAfter = parseRetryAfter(ae.Response.Header, now)
			e.RateLimit = parseRateLimit(ae.Response.Header, now)
		}
		return e
	}
	return &APIError{Provider: "anthropic", Message: transportMessage(err), Cause: err}
}

// antParamRE finds the field an Anthropic 400 names at the start of its message.
var antParamRE = regexp.MustCompile(`^([a-z_]+(?:\.[a-z0-9_]+)*): `)
