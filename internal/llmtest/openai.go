package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// openaiDialect speaks the chat-completions API, in the shapes of
// github.com/openai/openai-go/v3 (ChatCompletionNewParams, ChatCompletion,
// CompletionUsage, ChatCompletionTokenLogprob, apierror.Error).
type openaiDialect struct{}

func (openaiDialect) name() string               { return OpenAI }
func (openaiDialect) baseURL(root string) string { return root + "/v1" }
func (openaiDialect) retryAfterMs() bool         { return true }

func (openaiDialect) route(method, path string) route {
	switch {
	case method == http.MethodPost && (path == "/v1/chat/completions" || path == "/chat/completions"):
		return routeChat
	case method == http.MethodGet && (path == "/v1/models" || path == "/models"):
		return routeModels
	case method == http.MethodPost && (path == "/v1/responses" || path == "/responses"):
		return routeResponses
	}
	return routeNone
}

func (openaiDialect) setHeaders(h http.Header, reqID string) {
	h.Set("X-Request-Id", reqID)
	h.Set("Openai-Version", "2020-10-01")
}

func (openaiDialect) apiKey(h http.Header) string {
	return bearer(h)
}

func bearer(h http.Header) string {
	v := h.Get("Authorization")
	if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		return strings.TrimSpace(v[7:])
	}
	return ""
}

type oaiRequest struct {
	Model               string       `json:"model"`
	Messages            []oaiMessage `json:"messages"`
	Tools               []oaiTool    `json:"tools"`
	Functions           []oaiFunc    `json:"functions"`
	Temperature         *float64     `json:"temperature"`
	MaxTokens           *int         `json:"max_tokens"`
	MaxCompletionTokens *int         `json:"max_completion_tokens"`
	Seed                *int64       `json:"seed"`
	Logprobs            *bool        `json:"logprobs"`
	TopLogprobs         *int         `json:"top_logprobs"`
	N                   *int         `json:"n"`
	Stream              bool         `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ResponseFormat *oaiResponseFormat `json:"response_format"`
}

type oaiResponseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string         `json:"name"`
		Strict *bool          `json:"strict"`
		Schema map[string]any `json:"schema"`
	} `json:"json_schema"`
}

// schemaNameOK is OpenAI's rule for a json_schema name: a-z, A-Z, 0-9, _ and -, at most 64.
func schemaNameOK(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

type oaiMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []oaiToolCall   `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type oaiFunc struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments,omitempty"`
}

type oaiTool struct {
	Type     string  `json:"type"`
	Function oaiFunc `json:"function"`
	Custom   oaiFunc `json:"custom"`
}

type oaiToolCall struct {
	ID       string  `json:"id"`
	Type     string  `json:"type"`
	Function oaiFunc `json:"function"`
	Custom   struct {
		Name  string `json:"name"`
		Input string `json:"input"`
	} `json:"custom"`
}

// oaiText maps the content part types whose text is kept to their text field.
func oaiText() map[string]string {
	return map[string]string{"text": "text", "refusal": "refusal"}
}

func (openaiDialect) parse(body []byte) (Request, *apiError, *apiError) {
	var in oaiRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, nil, &apiError{status: 400, typ: "invalid_request_error",
			message: "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.) " + err.Error()}
	}
	req := Request{Model: in.Model, Temperature: in.Temperature, Seed: in.Seed, Stream: in.Stream}
	if in.MaxCompletionTokens != nil {
		req.MaxTokens = *in.MaxCompletionTokens
	} else if in.MaxTokens != nil {
		req.MaxTokens = *in.MaxTokens
	}
	req.Logprobs = in.Logprobs != nil && *in.Logprobs
	if in.TopLogprobs != nil {
		req.TopLogprobs = *in.TopLogprobs
	}
	for _, t := range in.Tools {
		if t.Type == "custom" {
			req.Tools = append(req.Tools, t.Custom.Name)
		} else {
			req.Tools = append(req.Tools, t.Function.Name)
		}
	}
	for _, f := range in.Functions {
		req.Tools = append(req.Tools, f.Name)
	}

	invalid := func(param, code, msg string) (Request, *apiError, *apiError) {
		return req, &apiError{status: 400, typ: "invalid_request_error", message: msg, param: param, code: code}, nil
	}
	var system []string
	var orig []int // index in in.Messages of each of req.Messages
	for i, m := range in.Messages {
		text, ok := textOf(m.Content, oaiText())
		if !ok {
			return invalid(fmt.Sprintf("messages.[%d].content", i), "invalid_type",
				fmt.Sprintf("Invalid type for 'messages[%d].content': expected one of a string or array of objects, but got something else instead.", i))
		}
		switch m.Role {
		case "system", "developer":
			system = append(system, text)
			continue
		case "user", "assistant", "function":
		case "tool":
			if m.ToolCallID == "" {
				return invalid(fmt.Sprintf("messages.[%d].tool_call_id", i), "missing_required_parameter",
					fmt.Sprintf("Missing required parameter: 'messages[%d].tool_call_id'.", i))
			}
		default:
			return invalid(fmt.Sprintf("messages.[%d].role", i), "invalid_value",
				fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", m.Role))
		}
		msg := Message{Role: m.Role, Content: text, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			if tc.Type == "custom" {
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Custom.Name, Arguments: tc.Custom.Input})
			} else {
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
			}
		}
		req.Messages = append(req.Messages, msg)
		orig = append(orig, i)
	}
	req.System = strings.Join(system, "\n")

	switch {
	case in.Model == "":
		return invalid("", "", "you must provide a model parameter")
	case len(in.Messages) == 0:
		return invalid("messages", "empty_array",
			"Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.")
	case in.Stream && req.Logprobs:
		return invalid("logprobs", "unsupported_value", "llmtest: logprobs are not streamed by this fake server; ask for them without stream.")
	case req.TopLogprobs > 20:
		return invalid("top_logprobs", "integer_above_max_value",
			fmt.Sprintf("Invalid 'top_logprobs': integer above maximum value. Expected a value <= 20, but got %d instead.", req.TopLogprobs))
	case req.TopLogprobs > 0 && !req.Logprobs:
		return invalid("top_logprobs", "invalid_value",
			"Invalid value for 'top_logprobs': 'logprobs' must be set to true when 'top_logprobs' is set.")
	case in.N != nil && *in.N != 1:
		return invalid("n", "unsupported_value", "llmtest: only n=1 is supported by this fake server.")
	}
	if rf := in.ResponseFormat; rf != nil {
		if e := responseFormat(&req, rf); e != nil {
			return req, e, nil
		}
	}
	if at, ids, unanswered, ok := checkToolPairing(req.Messages); !ok {
		if unanswered {
			return invalid(fmt.Sprintf("messages.[%d].role", orig[at]), "",
				"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: "+strings.Join(ids, ", "))
		}
		return invalid(fmt.Sprintf("messages.[%d].role", orig[at]), "",
			"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
	}
	return req, nil, nil
}

// responseFormat sets req's response format and schema from rf, or returns the refusal OpenAI
// gives for it.
func responseFormat(req *Request, rf *oaiResponseFormat) *apiError {
	badRequest := func(param, code, msg string) *apiError {
		return &apiError{status: 400, typ: "invalid_request_error", message: msg, param: param, code: code}
	}
	req.ResponseFormat = rf.Type
	switch rf.Type {
	case "text":
	case "json_object":
		// As OpenAI: JSON mode needs the word "json" somewhere in the messages.
		if !strings.Contains(strings.ToLower(req.System+"\n"+req.Prompt()), "json") {
			return badRequest("messages", "", "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.")
		}
	case "json_schema":
		js := rf.JSONSchema
		switch {
		case js == nil:
			return badRequest("response_format.json_schema", "missing_required_parameter", "Missing required parameter: 'response_format.json_schema'.")
		case !schemaNameOK(js.Name):
			return badRequest("response_format.json_schema.name", "invalid_value",
				fmt.Sprintf("Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$' of at most 64 characters, but got '%s'.", js.Name))
		case js.Schema == nil:
			return badRequest("response_format.json_schema.schema", "missing_required_parameter", "Missing required parameter: 'response_format.json_schema.schema'.")
		}
		req.Schema = &ResponseSchema{Name: js.Name, Strict: js.Strict != nil && *js.Strict, Schema: js.Schema}
		if req.Schema.Strict {
			if msg := strictProblem(js.Schema, "schema"); msg != "" {
				return badRequest("response_format", "invalid_value", "Invalid schema for response_format '"+js.Name+"': "+msg)
			}
		}
	default:
		return badRequest("response_format.type", "invalid_value",
			fmt.Sprintf("Invalid value: '%s'. Supported values are: 'json_object', 'json_schema', and 'text'.", rf.Type))
	}
	return nil
}

// strictProblem checks OpenAI's rules for a strict schema: every object lists all its
// properties as required and sets additionalProperties to false. It returns "" when they hold.
func strictProblem(schema map[string]any, path string) string {
	if t, _ := schema["type"].(string); t == "object" || schema["properties"] != nil {
		props, _ := schema["properties"].(map[string]any)
		if ap, ok := schema["additionalProperties"].(bool); !ok || ap {
			return fmt.Sprintf("In context=('%s'), 'additionalProperties' is required to be supplied and to be false.", path)
		}
		req := map[string]bool{}
		if list, ok := schema["required"].([]any); ok {
			for _, r := range list {
				if s, ok := r.(string); ok {
					req[s] = true
				}
			}
		}
		for _, name := range sortedNames(props) {
			if !req[name] {
				return fmt.Sprintf("In context=('%s'), 'required' is required to be supplied and to be an array including every key in properties. Missing '%s'.", path, name)
			}
			if sub, ok := props[name].(map[string]any); ok {
				if msg := strictProblem(sub, path+"', 'properties', '"+name); msg != "" {
					return msg
				}
			}
		}
	}
	if items, ok := schema["items"].(map[string]any); ok {
		return strictProblem(items, path+"', 'items")
	}
	return ""
}

func sortedNames(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

type oaiCompletion struct {
	ID                string      `json:"id"`
	Object            string      `json:"object"`
	Created           int64       `json:"created"`
	Model             string      `json:"model"`
	Choices           []oaiChoice `json:"choices"`
	Usage             oaiUsage    `json:"usage"`
	ServiceTier       string      `json:"service_tier"`
	SystemFingerprint string      `json:"system_fingerprint"`
}

type oaiChoice struct {
	Index        int            `json:"index"`
	Message      oaiRespMessage `json:"message"`
	Logprobs     *oaiLogprobs   `json:"logprobs"`
	FinishReason string         `json:"finish_reason"`
}

type oaiRespMessage struct {
	Role        string           `json:"role"`
	Content     *string          `json:"content"`
	Refusal     *string          `json:"refusal"`
	ToolCalls   []oaiToolCallOut `json:"tool_calls,omitempty"`
	Annotations []struct{}       `json:"annotations"`
}

type oaiToolCallOut struct {
	ID       string  `json:"id"`
	Type     string  `json:"type"`
	Function oaiFunc `json:"function"`
}

type oaiLogprobs struct {
	Content []oaiTokenLogprob `json:"content"`
	Refusal []oaiTokenLogprob `json:"refusal"`
}

type oaiTokenLogprob struct {
	Token       string          `json:"token"`
	Logprob     float64         `json:"logprob"`
	Bytes       []int           `json:"bytes"`
	TopLogprobs []oaiTopLogprob `json:"top_logprobs"`
}

type oaiTopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
	Bytes   []int   `json:"bytes"`
}

type oaiUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
		AudioTokens  int `json:"audio_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens          int `json:"reasoning_tokens"`
		AudioTokens              int `json:"audio_tokens"`
		AcceptedPredictionTokens int `json:"accepted_prediction_tokens"`
		RejectedPredictionTokens int `json:"rejected_prediction_tokens"`
	} `json:"completion_tokens_details"`
}

func (d openaiDialect) reply(req Request, rep Reply, n int64) ([]byte, *apiError) {
	b, err := json.Marshal(d.completion(req, rep, n))
	if err != nil {
		return nil, &apiError{status: 500, typ: "server_error", message: "llmtest: cannot encode the scripted reply: " + err.Error()}
	}
	return b, nil
}

// completion is the reply as a chat completion.
func (openaiDialect) completion(req Request, rep Reply, n int64) oaiCompletion {
	msg := oaiRespMessage{Role: "assistant", Annotations: []struct{}{}}
	if rep.Text != "" || len(rep.ToolCalls) == 0 {
		msg.Content = &rep.Text
	}
	answer := rep.Text
	for i, tc := range rep.ToolCalls {
		out := oaiToolCallOut{ID: tc.ID, Type: "function", Function: oaiFunc{Name: tc.Name, Arguments: tc.Arguments}}
		if out.ID == "" {
			out.ID = fmt.Sprintf("call_llmtest_%d_%d", n, i)
		}
		if out.Function.Arguments == "" {
			out.Function.Arguments = "{}"
		}
		msg.ToolCalls = append(msg.ToolCalls, out)
		answer += tc.Name + tc.Arguments
	}
	finish := rep.FinishReason
	if finish == "" {
		finish = "stop"
		if len(rep.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	var lp *oaiLogprobs
	if req.Logprobs {
		lp = &oaiLogprobs{Content: []oaiTokenLogprob{}}
		for _, t := range logprobsFor(rep) {
			out := oaiTokenLogprob{Token: t.Token, Logprob: t.Logprob, Bytes: tokenBytes(t.Token), TopLogprobs: []oaiTopLogprob{}}
			top := t.Top
			if top == nil && req.TopLogprobs > 0 {
				top = []TokenLogprob{t}
			}
			for _, a := range top[:min(len(top), req.TopLogprobs)] {
				out.TopLogprobs = append(out.TopLogprobs, oaiTopLogprob{Token: a.Token, Logprob: a.Logprob, Bytes: tokenBytes(a.Token)})
			}
			lp.Content = append(lp.Content, out)
		}
	}
	c := oaiCompletion{
		ID:                "chatcmpl-llmtest" + strconv.FormatInt(n, 10),
		Object:            "chat.completion",
		Created:           time.Now().Unix(),
		Model:             req.Model,
		ServiceTier:       "default",
		SystemFingerprint: "fp_llmtest",
	}
	c.Choices = []oaiChoice{{Index: 0, Message: msg, Logprobs: lp, FinishReason: finish}}
	in, out := usageOf(req, rep, answer)
	c.Usage.PromptTokens = in
	c.Usage.PromptTokensDetails.CachedTokens = rep.CachedInputTokens
	c.Usage.CompletionTokens = max(out, rep.ReasoningTokens)
	c.Usage.CompletionTokensDetails.ReasoningTokens = rep.ReasoningTokens
	c.Usage.TotalTokens = in + c.Usage.CompletionTokens
	return c
}

// usageOf returns the input tokens (cached ones included) and output tokens
// of a reply, estimated when not scripted.
func usageOf(req Request, rep Reply, answer string) (in, out int) {
	in = rep.InputTokens
	if in == 0 {
		in = estimateTokens(req.Prompt())
	}
	in = max(in, rep.CachedInputTokens)
	out = rep.OutputTokens
	if out == 0 {
		out = estimateTokens(answer)
	}
	return in, out
}

func (openaiDialect) models(ids []string) []byte {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, id := range ids {
		list.Data = append(list.Data, model{ID: id, Object: "model", Created: 1700000000, OwnedBy: "llmtest"})
	}
	return mustJSON(list)
}

func (openaiDialect) notFoundPath(method, path string) *apiError {
	return &apiError{status: 404, typ: "invalid_request_error", message: fmt.Sprintf("Invalid URL (%s %s)", method, path)}
}

func (openaiDialect) missingKey() *apiError {
	return &apiError{status: 401, typ: "invalid_request_error",
		message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."}
}

func (openaiDialect) badKey(key string) *apiError {
	return &apiError{status: 401, typ: "invalid_request_error", code: "invalid_api_key",
		message: "Incorrect API key provided: " + redact(key) + ". You can find your API key at https://platform.openai.com/account/api-keys."}
}

func redact(key string) string {
	if len(key) <= 8 {
		return "****"
	}
	return key[:3] + "*****" + key[len(key)-4:]
}

func (openaiDialect) unknownModel(model string) *apiError {
	return &apiError{status: 404, typ: "invalid_request_error", param: "model", code: "model_not_found",
		message: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model)}
}

func (openaiDialect) statusError(status int, typ string) *apiError {
	e := &apiError{status: status, typ: "invalid_request_error", message: http.StatusText(status) + "."}
	switch {
	case status == 401:
		e.code, e.message = "invalid_api_key", "Incorrect API key provided."
	case status == 404:
		e.code, e.message = "model_not_found", "The model does not exist or you do not have access to it."
	case status == 429 && typ == "insufficient_quota":
		e.code, e.message = "insufficient_quota", "You exceeded your current quota, please check your plan and billing details."
	case status == 429:
		e.typ, e.code, e.message = "requests", "rate_limit_exceeded", "Rate limit reached for requests per min (RPM). Please try again later."
	case status == 503:
		e.typ, e.message = "server_error", "The engine is currently overloaded, please try again later."
	case status >= 500:
		e.typ, e.message = "server_error", "The server had an error while processing your request. Sorry about that!"
	}
	if typ != "" {
		e.typ = typ
	}
	return e
}

func (openaiDialect) errorBody(e *apiError, _ string) []byte {
	type body struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	b := body{Message: e.message, Type: e.typ}
	if e.param != "" {
		b.Param = &e.param
	}
	if e.code != "" {
		b.Code = &e.code
	}
	return mustJSON(struct {
		Error body `json:"error"`
	}{b})
}

// reasoningRefusal is OpenAI's 400 for a parameter its reasoning models do
// not take, checked in the order OpenAI reports them; nil when there is none.
func reasoningRefusal(body []byte) *apiError {
	var in oaiRequest
	if json.Unmarshal(body, &in) != nil {
		return nil
	}
	unsupported := func(param, msg string) *apiError {
		return &apiError{status: 400, typ: "invalid_request_error", param: param, code: "unsupported_parameter", message: msg}
	}
	switch {
	case in.MaxTokens != nil:
		return unsupported("max_tokens", "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.")
	case in.Temperature != nil && *in.Temperature != 1:
		return &apiError{status: 400, typ: "invalid_request_error", param: "temperature", code: "unsupported_value",
			message: fmt.Sprintf("Unsupported value: 'temperature' does not support %v with this model. Only the default (1) value is supported.", *in.Temperature)}
	case in.Logprobs != nil && *in.Logprobs:
		return unsupported("logprobs", "Unsupported parameter: 'logprobs' is not supported with this model.")
	case in.TopLogprobs != nil:
		return unsupported("top_logprobs", "Unsupported parameter: 'top_logprobs' is not supported with this model.")
	}
	return nil
}

// isReasoningModel reports whether OpenAI's model id names one of its
// reasoning models: o1, o3, o4-mini, gpt-5 and their variants (o3-mini,
// gpt-5.5, gpt-5-mini-2025-08-07...), but not gpt-5-chat.
func isReasoningModel(model string) bool {
	for _, fam := range []string{"o1", "o3", "o4"} {
		if model == fam || strings.HasPrefix(model, fam+"-") {
			return true
		}
	}
	return strings.HasPrefix(model, "gpt-5") && !strings.HasPrefix(model, "gpt-5-chat")
}
