package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// MaxRawBody bounds a raw response read into memory (a streamed answer's events included).
const MaxRawBody = 64 << 20

// rawEndpoint is where an adapter sends raw requests, and with which key.
type rawEndpoint struct {
	base string // without a trailing slash: https://api.anthropic.com, https://api.openai.com/v1
	key  string
	hc   *http.Client
}

func newRawEndpoint(baseURL, fallback, key string, hc *http.Client) rawEndpoint {
	if baseURL == "" {
		baseURL = fallback
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	return rawEndpoint{base: strings.TrimRight(baseURL, "/"), key: key, hc: hc}
}

// CompleteRaw implements RawModel: the body to /v1/messages with the key in x-api-key.
func (a *Anthropic) CompleteRaw(ctx context.Context, req RawRequest) (RawResponse, error) {
	if req.API != AnthropicMessages {
		return RawResponse{}, fmt.Errorf("llm: anthropic takes %s requests, not %s", AnthropicMessages, req.API)
	}
	h := http.Header{"X-Api-Key": {a.raw.key}, "Anthropic-Version": {"2023-06-01"}}
	return a.raw.call(ctx, a.info, req, "/v1/messages", h)
}

// CompleteRaw implements RawModel: chat completions or the Responses API, with the key as a
// bearer token.
func (o *OpenAI) CompleteRaw(ctx context.Context, req RawRequest) (RawResponse, error) {
	path := "/chat/completions"
	switch req.API {
	case OpenAIChat:
	case OpenAIResponses:
		path = "/responses"
	default:
		return RawResponse{}, fmt.Errorf("llm: openai takes %s or %s requests, not %s", OpenAIChat, OpenAIResponses, req.API)
	}
	return o.raw.call(ctx, o.info, req, path, http.Header{"Authorization": {"Bearer " + o.raw.key}})
}

// call posts the body, reads the whole answer and classifies it: an error status or a
// mid-stream error event is an *APIError (with Retry-After and the rate-limit headers), a 2xx
// answer has its usage and answer parsed.
func (e rawEndpoint) call(ctx context.Context, info Info, req RawRequest, path string, auth http.Header) (RawResponse, error) {
	f, err := req.readFields()
	if err != nil {
		return RawResponse{}, err
	}
	if f.Model != info.Model {
		return RawResponse{}, fmt.Errorf("llm: a raw request for model %q sent to %s (set the body's model first)", f.Model, info.Spec())
	}
	h := http.Header{}
	for _, k := range forwarded {
		if v := req.Header.Values(k); len(v) > 0 {
			h[k] = v
		}
	}
	for k, v := range auth {
		if k != "Anthropic-Version" || h.Get(k) == "" {
			h[k] = v
		}
	}
	if f.Stream {
		h.Set("Accept", "text/event-stream")
	}
	ans, err := e.send(ctx, info.Provider, path, h, req.Body)
	resp := RawResponse{Calls: 1, Stream: f.Stream, Status: ans.status, ContentType: ans.contentType, Body: ans.body,
		Latency: ans.latency, RateLimit: ans.rateLimit}
	if err != nil {
		return resp, err
	}
	resp.Stream = strings.HasPrefix(resp.ContentType, "text/event-stream")
	if resp.Usage, resp.Answer, err = parseRaw(info.Provider, req.API, resp.Body, resp.Stream); err != nil {
		return resp, err
	}
	return resp, nil
}

// url is the endpoint's path under the base URL, the base's query kept (a proxy's token) and
// joined with the path's own.
func (e rawEndpoint) url(path string) string {
	base, query, ok := strings.Cut(e.base, "?")
	if !ok {
		return e.base + path
	}
	p, pq, ok := strings.Cut(path, "?")
	if ok {
		query += "&" + pq
	}
	return strings.TrimRight(base, "/") + p + "?" + query
}

// answer is an HTTP answer read whole.
type answer struct {
	status      int
	contentType string
	body        []byte
	latency     time.Duration
	rateLimit   *RateLimit
}

// send posts body to path with the headers h and reads the whole answer. A failure to reach the
// provider or to read its answer, an answer over MaxRawBody and an error status are *APIErrors
// (an error status's with the provider's type, code, param and message, Retry-After and the
// rate-limit headers).
func (e rawEndpoint) send(ctx context.Context, provider, path string, h http.Header, body []byte) (answer, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url(path), bytes.NewReader(body))
	if err != nil {
		return answer{}, fmt.Errorf("llm: %w", err)
	}
	for k, v := range h {
		hr.Header[k] = v
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("User-Agent", "vulnbench")
	start := time.Now()
	r, err := e.hc.Do(hr)
	if err != nil {
		return answer{latency: time.Since(start)}, &APIError{Provider: provider, Message: transportMessage(err), Cause: err}
	}
	defer r.Body.Close()
	var ans answer
	ans.body, err = io.ReadAll(io.LimitReader(r.Body, MaxRawBody+1))
	ans.latency = time.Since(start)
	now := time.Now()
	ans.rateLimit = parseRateLimit(r.Header, now)
	ans.status, ans.contentType = r.StatusCode, r.Header.Get("Content-Type")
	switch {
	case err != nil:
		return ans, &APIError{Provider: provider, Message: "reading the answer: " + transportMessage(err), Cause: err}
	case len(ans.body) > MaxRawBody:
		return ans, &APIError{Provider: provider, Status: 200, Code: "too_large", Message: fmt.Sprintf("the answer is over %d bytes", MaxRawBody)}
	case r.StatusCode/100 != 2:
		ae := errorBody(provider, r.StatusCode, ans.body)
		ae.RetryAfter, ae.HasRetryAfter = parseRetryAfter(r.Header, now)
		ae.RateLimit = ans.rateLimit
		return ans, ae
	}
	return ans, nil
}

// post is send for a typed call, whose answer must be JSON: a 2xx of another content type is a
// transient fault (a proxy's page, not the provider's answer).
func (e rawEndpoint) post(ctx context.Context, provider, path string, h http.Header, body []byte) (answer, error) {
	h.Set("Accept", "application/json")
	ans, err := e.send(ctx, provider, path, h, body)
	if err == nil && !jsonContent(ans.contentType) {
		err = &APIError{Provider: provider, Message: fmt.Sprintf(
			"expected destination type of 'string' or '[]byte' for responses with content-type '%s' that is not 'application/json'", ans.contentType)}
	}
	return ans, err
}

// errorBody reads a provider's error answer: Anthropic's {"type":"error","error":{...}} or
// OpenAI's {"error":{...}}; a body that is neither keeps its first bytes as the message.
func errorBody(provider string, status int, body []byte) *APIError {
	var b struct {
		Error struct {
			Type    string          `json:"type"`
			Status  string          `json:"status"` // Gemini's (RESOURCE_EXHAUSTED, ...)
			Message string          `json:"message"`
			Code    json.RawMessage `json:"code"`
			Param   *string         `json:"param"`
		} `json:"error"`
	}
	e := &APIError{Provider: provider, Status: status}
	if json.Unmarshal(body, &b) == nil && b.Error.Message != "" {
		e.Type, e.Message = b.Error.Type, b.Error.Message
		if e.Type == "" {
			e.Type = b.Error.Status
		}
		var code string
		if json.Unmarshal(b.Error.Code, &code) == nil {
			e.Code = code
		}
		if b.Error.Param != nil {
			e.Param = *b.Error.Param
		}
	} else {
		e.Message = strings.TrimSpace(string(body[:min(len(body), 300)]))
		if e.Message == "" {
			e.Message = http.StatusText(status)
		}
	}
	if m := antParamRE.FindStringSubmatch(e.Message); provider == "anthropic" && m != nil && status == 400 {
		e.Param = m[1]
	}
	return e
}
