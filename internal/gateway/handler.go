package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/buger/jsonparser"
	"github.com/vulnbench/vulnbench/internal/llm"
)

// route is what a request path asks for.
func route(method, path string) (api llm.API, kind string) {
	if rest, ok := strings.CutPrefix(path, "/v1beta/models"); ok {
		_, m, _ := strings.Cut(rest, ":")
		switch {
		case method == http.MethodGet && rest == "":
			return "", "models"
		case method == http.MethodPost && (m == "generateContent" || m == "streamGenerateContent"):
			return llm.GeminiGenerate, "call"
		case method == http.MethodPost && m == "countTokens":
			return llm.GeminiGenerate, "count"
		}
		return "", ""
	}
	path = "/" + strings.TrimPrefix(strings.TrimPrefix(path, "/v1"), "/")
	switch {
	case method == http.MethodPost && path == "/messages":
		return llm.AnthropicMessages, "call"
	case method == http.MethodPost && path == "/messages/count_tokens":
		return llm.AnthropicMessages, "count"
	case method == http.MethodPost && path == "/chat/completions":
		return llm.OpenAIChat, "call"
	case method == http.MethodPost && path == "/responses":
		return llm.OpenAIResponses, "call"
	case method == http.MethodGet && path == "/models":
		return "", "models"
	}
	return "", ""
}

func (g *Gateway) serveHTTP(w http.ResponseWriter, r *http.Request) {
	api, kind := route(r.Method, r.URL.Path)
	// Errors are in the format the agent speaks: its request's, else the model's provider's.
	provider := g.info.Provider
	if api != "" {
		provider = api.Provider()
	} else if kind == "models" {
		provider = modelsFormat(r, provider)
	}
	if !g.authorised(r) {
		writeError(w, provider, http.StatusUnauthorized, "authentication_error", "vulnbench gateway: unknown API key (the agent is given the gateway's own)")
		return
	}
	switch kind {
	case "":
		writeError(w, provider, http.StatusNotFound, "not_found_error", fmt.Sprintf("vulnbench gateway: no %s %s here", r.Method, r.URL.Path))
		return
	case "models":
		g.models(w, provider)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, g.cfg.MaxBody+1))
	if err != nil {
		return // the agent went away
	}
	if int64(len(body)) > g.cfg.MaxBody {
		writeError(w, provider, http.StatusRequestEntityTooLarge, "request_too_large", fmt.Sprintf("vulnbench gateway: the request is over %d bytes", g.cfg.MaxBody))
		return
	}
	if kind == "count" {
		// Free at Anthropic and Google and no model call: estimated here, a quarter of the
		// body's length.
		if api == llm.GeminiGenerate {
			writeJSON(w, http.StatusOK, map[string]int{"totalTokens": max(1, len(body)/4)})
			return
		}
		writeJSON(w, http.StatusOK, map[string]int{"input_tokens": max(1, len(body)/4)})
		return
	}
	if api.Provider() != g.info.Provider {
		g.translated(r, w, api, body)
		return
	}
	body, err = prepare(api, body, g.info.Model)
	if err != nil {
		writeError(w, provider, http.StatusBadRequest, "invalid_request_error", "vulnbench gateway: "+err.Error())
		return
	}
	// Gemini's model and stream are in its path: the unit's model, whatever the path named.
	stream := api == llm.GeminiGenerate && strings.Contains(r.URL.Path, ":streamGenerateContent")
	g.call(r.Context(), w, llm.RawRequest{API: api, Body: body, Header: r.Header, Repeat: g.cfg.Repeat, Model: g.info.Model, Stream: stream})
}

func (g *Gateway) authorised(r *http.Request) bool {
	if r.Header.Get("X-Api-Key") == g.token || r.Header.Get("X-Goog-Api-Key") == g.token || r.URL.Query().Get("key") == g.token {
		return true
	}
	v := r.Header.Get("Authorization")
	return len(v) > 7 && strings.EqualFold(v[:7], "bearer ") && strings.TrimSpace(v[7:]) == g.token
}

// prepare sets the request's model to the unit's (every call is priced, limited and cached as
// that model, whatever the agent named) and, for a streamed chat completion, asks for the usage
// chunk (stream_options.include_usage): the gateway's count is the truth. It reads and edits the
// body with jsonparser, leaving the rest of it (tens of kilobytes of prompt and tools) as sent.
func prepare(api llm.API, body []byte, model string) ([]byte, error) {
	if b := bytes.TrimSpace(body); len(b) == 0 || b[0] != '{' {
		return nil, errors.New("the request body is not a JSON object")
	}
	var err error
	if api == llm.GeminiGenerate {
		return body, nil // its model is in the path
	}
	if current, _ := jsonparser.GetString(body, "model"); current != model {
		q, _ := json.Marshal(model)
		if body, err = jsonparser.Set(body, q, "model"); err != nil {
			return nil, fmt.Errorf("set the model: %w", err)
		}
	}
	if api == llm.OpenAIChat {
		stream, _ := jsonparser.GetBoolean(body, "stream")
		usage, _ := jsonparser.GetBoolean(body, "stream_options", "include_usage")
		if stream && !usage {
			if body, err = jsonparser.Set(body, []byte("true"), "stream_options", "include_usage"); err != nil {
				return nil, fmt.Errorf("ask for the usage: %w", err)
			}
		}
	}
	return body, nil
}

// call sends one model call through the unit's model (which records it in the trace with what
// the gateway read of the request) and answers the agent.
func (g *Gateway) call(ctx context.Context, w http.ResponseWriter, req llm.RawRequest) {
	req.Seen = g.seenOf(req)
	resp, err := g.cfg.Model.CompleteRaw(ctx, req)
	g.account(resp, err)
	if err != nil {
		g.answerError(w, g.info.Provider, resp, err)
		return
	}
	ct := resp.ContentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}

// account counts a call and keeps the first failed call's error (retries were spent on it
// already; the meter refuses every later call when all would meet it).
func (g *Gateway) account(resp llm.RawResponse, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := &g.stats
	if err != nil {
		s.Errors++
		if !errors.Is(err, context.Canceled) && g.fault == nil { // not the agent hanging up
			g.fault = err
		}
		return
	}
	s.Calls++
	if resp.Cached {
		s.Cached++
	}
	s.ToolCalls += len(resp.Answer.ToolCalls)
}

// answerError answers a failed call in the agent's format (provider's). A refusal the
// provider made of this request (a 4xx other than a rate limit) goes back as the provider sent
// it, re-rendered in the agent's format when that is another; anything else (the meter's
// refusal, a fault the stack's retries gave up on) is a 400 saying so: final for the agent,
// whose own retries would only multiply the stack's.
func (g *Gateway) answerError(w http.ResponseWriter, provider string, resp llm.RawResponse, err error) {
	if ae := refusal(resp, err); ae != nil {
		if provider != g.info.Provider {
			writeError(w, provider, resp.Status, errorType(resp.Status), g.info.Provider+": "+ae.Message)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.Status)
		_, _ = w.Write(resp.Body)
		return
	}
	writeError(w, provider, http.StatusBadRequest, "invalid_request_error", "vulnbench: "+err.Error())
}

// modelsFormat is the format a model list is asked in: Gemini's path, else Anthropic's when
// the request has its headers, else OpenAI's (both use /v1/models).
func modelsFormat(r *http.Request, provider string) string {
	switch {
	case strings.HasPrefix(r.URL.Path, "/v1beta/"):
		return "gemini"
	case r.Header.Get("X-Api-Key") != "" || r.Header.Get("Anthropic-Version") != "":
		return "anthropic"
	case strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") || strings.HasPrefix(r.Header.Get("Authorization"), "bearer "):
		return "openai"
	}
	return provider
}

func (g *Gateway) models(w http.ResponseWriter, provider string) {
	id := g.info.Model
	if provider == "gemini" {
		writeJSON(w, http.StatusOK, map[string]any{"models": []map[string]any{{"name": "models/" + id, "displayName": id,
			"supportedGenerationMethods": []string{"generateContent", "countTokens"}}}})
		return
	}
	if provider == "anthropic" {
		writeJSON(w, http.StatusOK, map[string]any{"data": []map[string]string{{"type": "model", "id": id, "display_name": id,
			"created_at": "2025-01-01T00:00:00Z"}}, "has_more": false, "first_id": id, "last_id": id})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []map[string]any{{"id": id, "object": "model", "created": 0, "owned_by": "vulnbench"}}})
}

// writeError writes an error in the provider's format.
func writeError(w http.ResponseWriter, provider string, status int, typ, msg string) {
	if provider == "gemini" {
		writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": msg, "status": googleStatus(status)}})
		return
	}
	if provider == "anthropic" {
		writeJSON(w, status, map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
		return
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// googleStatus is Google's status name of an HTTP status.
func googleStatus(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusRequestEntityTooLarge, http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	}
	return "INVALID_ARGUMENT"
}
