package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// OpenAI calls an OpenAI-compatible chat-completions endpoint: OpenAI itself, or vLLM, Ollama,
// llama.cpp and LM Studio servers through a base URL. vulnbench builds the body and reads the
// answer itself (see wire_openai.go), with no SDK.
type OpenAI struct {
	info Info
	caps Caps
	raw  rawEndpoint
}

// NewOpenAI makes an adapter for model at baseURL ("" for OpenAI's API) with key, sending what the
// embedded table says the model takes (a reasoning model gets no temperature, no logprobs and
// max_completion_tokens); WithCaps says otherwise. Nothing is read from the environment
// (OPENAI_BASE_URL is read by New, explicitly). It never retries: WithRetry decides.
func NewOpenAI(model, baseURL, key string, hc *http.Client) *OpenAI {
	if baseURL == "" {
		baseURL = "https://api.openai.com/v1/"
	}
	host := hostOf(baseURL)
	if host == "api.openai.com" {
		host = ""
	}
	caps := DefaultCaps()
	if p, err := parsePrices(defaultPrices, "embedded prices"); err == nil { // the tests keep it parseable
		caps = p.Capabilities("openai:" + model)
	}
	return &OpenAI{info: Info{Provider: "openai", Model: model, BaseHost: host}, caps: caps,
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

func (o *OpenAI) auth() http.Header { return http.Header{"Authorization": {"Bearer " + o.raw.key}} }

// Complete implements Model. What the model does not take (see Caps) is not sent: a reasoning
// model's answer then has no logprobs, whatever the request asked.
func (o *OpenAI) Complete(ctx context.Context, req Request) (Response, error) {
	body, err := o.ChatBody(req)
	if err != nil {
		return Response{}, err
	}
	ans, err := o.raw.post(ctx, o.info.Provider, "/chat/completions", o.auth(), body)
	resp := Response{Calls: 1, Latency: ans.latency, RateLimit: ans.rateLimit}
	if err != nil {
		return resp, err
	}
	var derr *APIError
	if err = readChatBody(ans.body, &resp); err != nil && !errors.As(err, &derr) {
		return resp, &APIError{Provider: o.info.Provider, Message: err.Error(), Cause: err} // unreadable: as a broken answer
	}
	return resp, err
}

// ChatBody is the chat-completions body Complete sends for req (a batch file's line body).
func (o *OpenAI) ChatBody(req Request) ([]byte, error) {
	b, err := json.Marshal(newChatRequest(o.info.Model, o.caps, req))
	if err != nil {
		return nil, fmt.Errorf("openai request body: %w", err)
	}
	return b, nil
}

// ReadChat reads a chat completion's JSON body as Complete reads the answer (a batch result's
// body); a content-filtered answer is an *APIError, as online.
func ReadChat(body []byte) (Response, error) {
	var cc chatCompletion
	if err := json.Unmarshal(body, &cc); err != nil {
		return Response{}, &APIError{Provider: "openai", Status: 200, Code: "malformed", Message: "unreadable chat completion: " + err.Error()}
	}
	var resp Response
	err := cc.fill(&resp)
	return resp, err
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
