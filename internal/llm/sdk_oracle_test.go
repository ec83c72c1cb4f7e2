package llm

// The provider SDKs as oracles: what the adapters sent and read when they were built on
// anthropic-sdk-go and openai-go (before vulnbench spoke the wire formats itself). Only tests
// import the SDKs, so the binary does not compile them.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// sdkMessageBody is the Messages body the SDK-based adapter sent for req.
func sdkMessageBody(model string, req Request) ([]byte, error) {
	maxTok := req.MaxTokens
	if maxTok <= 0 {
		maxTok = DefaultMaxTokens
	}
	p := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: int64(maxTok)}
	if b := req.Effort.ThinkingBudget(); b > 0 {
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
		tool := anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{ExtraFields: t.Parameters}, t.Name)
		if t.Description != "" {
			tool.OfTool.Description = anthropic.String(t.Description)
		}
		p.Tools = append(p.Tools, tool)
	}
	b, err := json.Marshal(p)
	if err == nil && req.Temperature > 0 && req.Effort == "" {
		var m map[string]any
		if err = json.Unmarshal(b, &m); err == nil {
			m["temperature"] = req.Temperature
			b, err = json.Marshal(m)
		}
	}
	return b, err
}

// sdkChatBody is the chat-completions body the SDK-based adapter sent for req.
func sdkChatBody(model string, caps Caps, req Request) ([]byte, error) {
	p := openai.ChatCompletionNewParams{Model: model}
	if caps.Temperature {
		p.Temperature = openai.Float(req.Temperature)
	}
	if req.MaxTokens > 0 {
		if caps.MaxTokensParam == "max_completion_tokens" {
			p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	if req.Seed != nil {
		p.Seed = openai.Int(*req.Seed)
	}
	if req.Effort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(req.Effort)
	}
	if req.Logprobs && caps.Logprobs {
		p.Logprobs = openai.Bool(true)
		if req.TopLogprobs > 0 {
			p.TopLogprobs = openai.Int(int64(req.TopLogprobs))
		}
	}
	if req.Schema != nil && !caps.NoJSONSchema {
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: req.Schema.Name, Schema: req.Schema.Schema, Strict: openai.Bool(req.Schema.Strict)}}}
	}
	for _, m := range req.Messages {
		p.Messages = append(p.Messages, sdkOpenAIMessage(m))
	}
	for _, t := range req.Tools {
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: shared.FunctionParameters(t.Parameters)}))
	}
	return json.Marshal(p)
}

func sdkOpenAIMessage(m Message) openai.ChatCompletionMessageParamUnion {
	switch m.Role {
	case "system":
		return openai.SystemMessage(m.Content)
	case "tool":
		return openai.ToolMessage(m.Content, m.ToolCallID)
	case "assistant":
		a := openai.ChatCompletionAssistantMessageParam{}
		if m.Content != "" {
			a.Content.OfString = openai.String(m.Content)
		}
		for _, tc := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments}}})
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}
	}
	return openai.UserMessage(m.Content)
}

// sdkReadChat reads a chat completion as the SDK-based adapter did: the SDK's decoder, then
// what it took from the decoded completion.
func sdkReadChat(body []byte) (Response, error) {
	var resp Response
	var cc openai.ChatCompletion
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&cc); err != nil {
		return resp, fmt.Errorf("error parsing response json: %w", err)
	}
	resp.Usage = Usage{InputTokens: cc.Usage.PromptTokens, CachedInputTokens: cc.Usage.PromptTokensDetails.CachedTokens,
		OutputTokens: cc.Usage.CompletionTokens, ReasoningTokens: cc.Usage.CompletionTokensDetails.ReasoningTokens}
	if len(cc.Choices) == 0 {
		return resp, &APIError{Provider: "openai", Status: 200, Code: "no_choices", Message: "the response has no choices"}
	}
	ch := cc.Choices[0]
	resp.Text = ch.Message.Content
	resp.FinishReason = string(ch.FinishReason)
	if resp.FinishReason == "content_filter" {
		return resp, &APIError{Provider: "openai", Status: 200, Code: "content_filter",
			Message: "the answer was withheld by OpenAI's content filter (finish_reason content_filter)"}
	}
	for _, tc := range ch.Message.ToolCalls {
		resp.ToolCalls = append(resp.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	for _, lp := range ch.Logprobs.Content {
		t := TokenLogprob{Token: lp.Token, Logprob: lp.Logprob}
		for _, top := range lp.TopLogprobs {
			t.Top = append(t.Top, TokenLogprob{Token: top.Token, Logprob: top.Logprob})
		}
		resp.Logprobs = append(resp.Logprobs, t)
	}
	return resp, nil
}

// sdkReadMessage reads a message as the SDK-based adapter did.
func sdkReadMessage(body []byte) (Response, error) {
	var msg anthropic.Message
	if err := json.Unmarshal(body, &msg); err != nil {
		return Response{}, &APIError{Provider: "anthropic", Status: 200, Code: "malformed", Message: "unreadable message: " + err.Error()}
	}
	var resp Response
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
		return resp, &APIError{Provider: "anthropic", Status: 200, Code: "refusal",
			Message: "the model declined to answer (stop_reason refusal)"}
	}
	return resp, nil
}
