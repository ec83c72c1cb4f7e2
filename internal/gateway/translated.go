package gateway

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/gateway/translate"
	"github.com/vulnbench/vulnbench/internal/llm"
)

// translated answers a request in format api for a model of another provider: the request is
// translated to the provider's own format (translate.Native) and sent unstreamed through the
// unit's model, whose meter prices and records it as any call; the answer the stack read is
// rendered in api's format, as JSON or as the complete stream the agent asked for. What api's
// request holds that the provider's format cannot carry is refused (400, in api's format).
func (g *Gateway) translated(r *http.Request, w http.ResponseWriter, api llm.API, body []byte) {
	up := translate.Native(g.info.Provider)
	g.encoder.Do(func() { g.enc = translate.NewEncoder(up, g.info.Model) })
	req, err := translate.Decode(api, body)
	var out []byte
	if err == nil {
		out, err = g.enc.Encode(req)
	}
	if err != nil {
		writeError(w, api.Provider(), http.StatusBadRequest, "invalid_request_error", "vulnbench gateway: "+translate.Untranslated(err, up).Error())
		return
	}
	if api == llm.GeminiGenerate {
		req.Stream = strings.Contains(r.URL.Path, ":streamGenerateContent")
	}
	seen := g.seenOf(llm.RawRequest{API: api, Body: body}) // the agent's own words, as it sent them
	g.mu.Lock()
	for i, r := range seen.ToolResults {
		if up, ok := g.renamed[r.CallID]; ok {
			seen.ToolResults[i].CallID = up // as the trace's tool call has it (the upstream's id)
		}
	}
	g.mu.Unlock()
	resp, err := g.cfg.Model.CompleteRaw(r.Context(), llm.RawRequest{API: up, Body: out, Repeat: g.cfg.Repeat, Model: g.info.Model, Seen: seen})
	g.account(resp, err)
	if err != nil {
		g.answerError(w, api.Provider(), resp, err)
		return
	}
	ans := translate.FromLLM(resp.Answer, resp.Usage)
	ans.ID, ans.ToolCalls = g.answerID(ans.ToolCalls)
	ct, page, err := translate.Render(api, g.info.Model, ans, req)
	if err != nil {
		g.mu.Lock()
		if g.fault == nil {
			g.fault = &llm.APIError{Provider: g.info.Provider, Status: 200, Code: "malformed", Message: err.Error()}
		}
		g.mu.Unlock()
		writeError(w, api.Provider(), http.StatusBadRequest, "invalid_request_error", "vulnbench gateway: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(page)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(page)
}

// answerID numbers a translated answer and makes its tool calls' ids unique in the unit: Gemini
// gives calls no id (llm numbers them per answer), and the agent tells calls apart by id.
func (g *Gateway) answerID(calls []llm.ToolCall) (string, []llm.ToolCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.answers++
	id := "vb" + strconv.Itoa(g.answers)
	out := make([]llm.ToolCall, len(calls))
	for i, tc := range calls {
		if tc.ID == "" || g.issued[tc.ID] {
			renamed := fmt.Sprintf("call_%s_%d", id, i+1)
			g.renamed[renamed], tc.ID = tc.ID, renamed
		}
		g.issued[tc.ID] = true
		out[i] = tc
	}
	return id, out
}

// errorType is the error type Anthropic and OpenAI give a status.
func errorType(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

// refusal is the provider's refusal of this one request (a 4xx other than a rate limit), or nil.
func refusal(resp llm.RawResponse, err error) *llm.APIError {
	var ae *llm.APIError
	if errors.As(err, &ae) && !ae.Retryable() && resp.Status/100 == 4 && len(resp.Body) > 0 {
		return ae
	}
	return nil
}
