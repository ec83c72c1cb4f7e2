package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// OpenAI calls an OpenAI-compatible chat-completions endpoint: OpenAI itself, or vLLM, Ollama,
// llama.cpp and LM Studio servers through a base URL.
type OpenAI struct {
	client openai.Client
	info   Info
	caps   Caps
	raw    rawEndpoint // for CompleteRaw
}

// NewOpenAI makes an adapter for model at baseURL ("" for OpenAI's API) with key, sending what the
// embedded table says the model takes (a reasoning model gets no temperature, no logprobs and
// max_completion_tokens); WithCaps says otherwise. The SDK's own retries are off: WithRetry
// decides.
func NewOpenAI(model, baseURL, key string, hc *http.Client) *OpenAI {
	if baseURL == "" {
		baseURL = "https://api.openai.com/v1/" // explicit: OPENAI_BASE_URL is read by New, not behind our back
	}
	opts := []option.RequestOption{option.WithAPIKey(key), option.WithMaxRetries(0), option.WithBaseURL(baseURL)}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	host := hostOf(baseURL)
	if host == "api.openai.com" {
		host = ""
	}
	caps := DefaultCaps()
	if p, err := parsePrices(defaultPrices, "embedded prices"); err == nil { // the tests keep it parseable
		caps = p.Capabilities("openai:" + model)
	}
	return &OpenAI{client: openai.NewClient(opts...), info: Info{Provider: "openai", Model: model, BaseHost: host}, caps: caps,
		raw: newRawEndpoint(baseURL, baseURL, key, hc)}
}

// WithCaps returns the adapter sending only what c allows.
func (o *OpenAI) WithCaps(c Caps) *OpenAI {
	n := *o
	n.caps = c
	return &n
}

// Info implements Model.
func (o *OpenAI) Info() Info { return o.info }

// Complete implements Model. What the model does not take (see Caps) is not sent: a reasoning
// model's answer then has no logprobs, whatever the request asked.
func (o *OpenAI) Complete(ctx context.Context, req Request) (Response, error) {
	p := o.params(req)
	start := time.Now()
	var hr *http.Response
	var body []byte // the SDK hands the body over undecoded: readChatBody reads it
	_, err := o.client.Chat.Completions.New(ctx, p, option.WithResponseInto(&hr), option.WithResponseBodyInto(&body))
	resp := Response{Calls: 1, Latency: time.Since(start)}
	if hr != nil {
		resp.RateLimit = parseRateLimit(hr.Header, time.Now())
	}
	if err == nil && !jsonContent(hr.Header.Get("content-type")) {
		// as the SDK answers when it is to decode a body that is not JSON
		err = fmt.Errorf("expected destination type of 'string' or '[]byte' for responses with content-type '%s' that is not 'application/json'",
			hr.Header.Get("content-type"))
	}
	if err != nil {
		return resp, o.apiError(err)
	}
	var derr *APIError
	if err = readChatBody(body, &resp); err != nil && !errors.As(err, &derr) {
		return resp, o.apiError(err)
	}
	return resp, err
}

// ChatBody is the chat-completions body Complete sends for req (a batch file's line body).
func (o *OpenAI) ChatBody(req Request) ([]byte, error) {
	b, err := json.Marshal(o.params(req))
	if err != nil {
		return nil, fmt.Errorf("openai request body: %w", err)
	}
	return b, nil
}

// ReadChat reads a chat completion's JSON body as Complete reads the answer (a batch result's
// body); a content-filtered answer is an *APIError, as online.
func ReadChat(body []byte) (Response, error) {
	var cc openai.ChatCompletion
	if err := json.Unmarshal(body, &cc); err != nil {
		return Response{}, &APIError{Provider: "openai", Status: 200, Code: "malformed", Message: "unreadable chat completion: " + err.Error()}
	}
	var resp Response
	err := readChat(&cc, &resp)
	return resp, err
}

func (o *OpenAI) params(req Request) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: o.info.Model}
	if o.caps.Temperature {
		p.Temperature = openai.Float(req.Temperature)
	}
	if req.MaxTokens > 0 {
		if o.caps.MaxTokensParam == "max_completion_tokens" {
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
	if req.Logprobs && o.caps.Logprobs {
		p.Logprobs = openai.Bool(true)
		if req.TopLogprobs > 0 {
			p.TopLogprobs = openai.Int(int64(req.TopLogprobs))
		}
	}
	if req.Schema != nil && !o.caps.NoJSONSchema {
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: req.Schema.Name, Schema: req.Schema.Schema, Strict: openai.Bool(req.Schema.Strict)}}}
	}
	for _, m := range req.Messages {
		p.Messages = append(p.Messages, openaiMessage(m))
	}
	for _, t := range req.Tools {
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: shared.FunctionParameters(t.Parameters)}))
	}
	return p
}

// readChat fills resp from a chat completion.
func readChat(cc *openai.ChatCompletion, resp *Response) error {
	resp.Usage = Usage{InputTokens: cc.Usage.PromptTokens, CachedInputTokens: cc.Usage.PromptTokensDetails.CachedTokens,
		OutputTokens: cc.Usage.CompletionTokens, ReasoningTokens: cc.Usage.CompletionTokensDetails.ReasoningTokens}
	if len(cc.Choices) == 0 {
		return &APIError{Provider: "openai", Status: 200, Code: "no_choices", Message: "the response has no choices"}
	}
	ch := cc.Choices[0]
	resp.Text = ch.Message.Content
	resp.FinishReason = string(ch.FinishReason)
	if resp.FinishReason == "content_filter" {
		// The answer was cut by the provider's filter: this case's input, not the run.
		return &APIError{Provider: "openai", Status: 200, Code: "content_filter",
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
	return nil
}

func openaiMessage(m Message) openai.ChatCompletionMessageParamUnion {
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

func (o *OpenAI) apiError(err error) error {
	var ae *openai.Error
	if errors.As(err, &ae) {
		e := &APIError{Provider: "openai", Status: ae.StatusCode, Type: ae.Type, Code: ae.Code, Param: ae.Param, Message: ae.Message, Cause: err}
		if e.Message == "" {
			e.Message = http.StatusText(ae.StatusCode)
		}
		if ae.Response != nil {
			now := time.Now()
			e.RetryAfter, e.HasRetryAfter = parseRetryAfter(ae.Response.Header, now)
			e.RateLimit = parseRateLimit(ae.Response.Header, now)
		}
		return e
	}
	return &APIError{Provider: "openai", Message: transportMessage(err), Cause: err}
}

// transportMessage describes a failure with no HTTP answer without repeating the request's URL,
// whose query may hold a secret.
func transportMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		u, perr := url.Parse(ue.URL)
		where := "the server"
		if perr == nil {
			where = u.Scheme + "://" + u.Host + u.Path
		}
		return fmt.Sprintf("%s %s: %v", ue.Op, where, ue.Err)
	}
	return err.Error()
}

// hostOf returns the host of a base URL, for manifests and cache keys: never a path with
// secrets, never a key.
func hostOf(base string) string {
	if base == "" {
		return ""
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "invalid-url"
	}
	return u.Host
}
