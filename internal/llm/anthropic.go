package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
)

// Anthropic calls the Anthropic Messages API: vulnbench builds the body and reads the answer
// itself (see wire_anthropic.go), with no SDK.
type Anthropic struct {
	info Info
	raw  rawEndpoint
}

// anthropicVersion is the Messages API version every request names.
const anthropicVersion = "2023-06-01"

// NewAnthropic makes an adapter for model at baseURL ("" for Anthropic's API) with key. Nothing
// is read from the environment: the key and base URL are exactly those given. It never retries:
// WithRetry decides.
func NewAnthropic(model, baseURL, key string, hc *http.Client) *Anthropic {
	return &Anthropic{info: Info{Provider: "anthropic", Model: model, BaseHost: hostOf(baseURL)},
		raw: newRawEndpoint(baseURL, "https://api.anthropic.com", key, hc)}
}

// Info implements Model.
func (a *Anthropic) Info() Info { return a.info }

// DefaultMaxTokens is the answer budget when a request sets none (Anthropic requires one).
const DefaultMaxTokens = 2048

func (a *Anthropic) auth() http.Header {
	return http.Header{"X-Api-Key": {a.raw.key}, "Anthropic-Version": {anthropicVersion}}
}

// Complete implements Model. Anthropic returns no logprobs, so Logprobs is never set. The API
// has deprecated temperature: it is sent only when a request sets one above 0.
func (a *Anthropic) Complete(ctx context.Context, req Request) (Response, error) {
	body, err := a.MessageBody(req)
	if err != nil {
		return Response{}, err
	}
	ans, err := a.raw.post(ctx, a.info.Provider, "/v1/messages", a.auth(), body)
	resp := Response{Calls: 1, Latency: ans.latency, RateLimit: ans.rateLimit}
	if err != nil {
		return resp, err
	}
	var msg antMessage
	if err := json.Unmarshal(ans.body, &msg); err != nil {
		return resp, &APIError{Provider: a.info.Provider, Message: "error parsing response json: " + err.Error(), Cause: err}
	}
	err = msg.fill(&resp)
	return resp, err
}

// MessageBody is the Messages API body Complete sends for req (a batch request's params).
func (a *Anthropic) MessageBody(req Request) ([]byte, error) {
	b, err := json.Marshal(newAntRequest(a.info.Model, req))
	if err != nil {
		return nil, fmt.Errorf("anthropic request body: %w", err)
	}
	return b, nil
}

// ReadMessage reads a message's JSON body as Complete reads the answer (a batch result's
// message); a refusal is an *APIError, as online.
func ReadMessage(body []byte) (Response, error) {
	var msg antMessage
	if err := json.Unmarshal(body, &msg); err != nil {
		return Response{}, &APIError{Provider: "anthropic", Status: 200, Code: "malformed", Message: "unreadable message: " + err.Error()}
	}
	var resp Response
	err := msg.fill(&resp)
	return resp, err
}

// fill fills resp from a message; a refusal is an *APIError.
func (m antMessage) fill(resp *Response) error {
	a := m.answer()
	resp.Text, resp.ToolCalls, resp.FinishReason, resp.Usage = a.Text, a.ToolCalls, a.FinishReason, m.usage()
	if resp.FinishReason == "refusal" {
		// Claude declined to answer this case: its input, not the run.
		return &APIError{Provider: "anthropic", Status: 200, Code: "refusal",
			Message: "the model declined to answer (stop_reason refusal)"}
	}
	return nil
}

// antParamRE finds the field an Anthropic 400 names at the start of its message.
var antParamRE = regexp.MustCompile(`^([a-z_]+(?:\.[a-z0-9_]+)*): `)
