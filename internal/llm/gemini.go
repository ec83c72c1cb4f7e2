package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Gemini calls Google's Gemini API (generateContent). Its typed calls are built as a
// generateContent body and sent through CompleteRaw, so that both read answers one way.
type Gemini struct {
	info Info
	raw  rawEndpoint
}

// NewGemini makes an adapter for model at baseURL ("" for Google's API) with key (sent as
// x-goog-api-key).
func NewGemini(model, baseURL, key string, hc *http.Client) *Gemini {
	info := Info{Provider: "gemini", Model: model}
	if baseURL != "" {
		if u, err := url.Parse(baseURL); err == nil {
			info.BaseHost = u.Host
		}
	}
	return &Gemini{info: info, raw: newRawEndpoint(baseURL, "https://generativelanguage.googleapis.com", key, hc)}
}

// Info implements Model.
func (g *Gemini) Info() Info { return g.info }

// CompleteRaw implements RawModel: the body to /v1beta/models/MODEL:generateContent, or
// :streamGenerateContent?alt=sse for a streamed request.
func (g *Gemini) CompleteRaw(ctx context.Context, req RawRequest) (RawResponse, error) {
	if req.API != GeminiGenerate {
		return RawResponse{}, fmt.Errorf("llm: gemini takes %s requests, not %s", GeminiGenerate, req.API)
	}
	path := "/v1beta/models/" + url.PathEscape(g.info.Model) + ":generateContent"
	if req.Stream {
		path = "/v1beta/models/" + url.PathEscape(g.info.Model) + ":streamGenerateContent?alt=sse"
	}
	return g.raw.call(ctx, g.info, req, path, http.Header{"X-Goog-Api-Key": {g.raw.key}})
}

// Complete implements Model: the request as a generateContent body (system instruction,
// contents with function calls and responses, function declarations, generationConfig with
// the thinking budget of req.Effort), not streamed.
func (g *Gemini) Complete(ctx context.Context, req Request) (Response, error) {
	body, err := GeminiBody(req)
	if err != nil {
		return Response{}, err
	}
	raw, err := g.CompleteRaw(ctx, RawRequest{API: GeminiGenerate, Model: g.info.Model, Body: body, Repeat: req.Repeat})
	resp := Response{Text: raw.Answer.Text, ToolCalls: raw.Answer.ToolCalls, Usage: raw.Usage, FinishReason: raw.Answer.FinishReason,
		Latency: raw.Latency, Calls: raw.Calls, RateLimit: raw.RateLimit}
	return resp, err
}

// GeminiBody is the generateContent body of a typed request.
func GeminiBody(req Request) ([]byte, error) {
	type part map[string]any
	type content struct {
		Role  string `json:"role,omitempty"`
		Parts []part `json:"parts"`
	}
	var system []string
	var contents []content
	names := map[string]string{} // tool call id -> function name
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = append(system, m.Content)
		case "assistant":
			c := content{Role: "model"}
			if m.Content != "" {
				c.Parts = append(c.Parts, part{"text": m.Content})
			}
			for _, tc := range m.ToolCalls {
				var args any = map[string]any{}
				if tc.Arguments != "" {
					if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil {
						return nil, fmt.Errorf("gemini request: the arguments of tool call %s are not JSON: %w", tc.ID, err)
					}
				}
				names[tc.ID] = tc.Name
				c.Parts = append(c.Parts, part{"functionCall": map[string]any{"id": tc.ID, "name": tc.Name, "args": args}})
			}
			contents = append(contents, c)
		case "tool":
			p := part{"functionResponse": map[string]any{"id": m.ToolCallID, "name": names[m.ToolCallID], "response": map[string]any{"output": m.Content}}}
			if n := len(contents); n > 0 && contents[n-1].Role == "user" && contents[n-1].Parts[0]["functionResponse"] != nil {
				contents[n-1].Parts = append(contents[n-1].Parts, p)
			} else {
				contents = append(contents, content{Role: "user", Parts: []part{p}})
			}
		default:
			contents = append(contents, content{Role: "user", Parts: []part{{"text": m.Content}}})
		}
	}
	body := map[string]any{"contents": contents}
	if len(system) > 0 {
		body["systemInstruction"] = content{Parts: []part{{"text": strings.Join(system, "\n")}}}
	}
	if len(req.Tools) > 0 {
		var decls []map[string]any
		for _, t := range req.Tools {
			d := map[string]any{"name": t.Name, "description": t.Description}
			if t.Parameters != nil {
				d["parametersJsonSchema"] = t.Parameters
			}
			decls = append(decls, d)
		}
		body["tools"] = []any{map[string]any{"functionDeclarations": decls}}
	}
	gc := map[string]any{"temperature": req.Temperature}
	if req.MaxTokens > 0 {
		gc["maxOutputTokens"] = req.MaxTokens
	}
	if req.Seed != nil {
		gc["seed"] = *req.Seed
	}
	if req.Schema != nil {
		gc["responseMimeType"], gc["responseJsonSchema"] = "application/json", req.Schema.Schema
	}
	if b := req.Effort.ThinkingBudget(); b > 0 {
		gc["thinkingConfig"] = map[string]any{"thinkingBudget": b}
	}
	body["generationConfig"] = gc
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("gemini request body: %w", err)
	}
	return b, nil
}

// geminiResponse is one generateContent answer, or one event of a stream.
type geminiResponse struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text         string `json:"text"`
				Thought      bool   `json:"thought"`
				FunctionCall *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount        int64 `json:"promptTokenCount"`
		CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
		ThoughtsTokenCount      int64 `json:"thoughtsTokenCount"`
		CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
	} `json:"usageMetadata"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

// parseGemini reads a generateContent answer, or each event of a stream (text pieces joined,
// function calls whole, the last usageMetadata the call's). Gemini bills thoughts as output:
// they are added to the output tokens, and counted as reasoning.
func parseGemini(body []byte, stream bool) (Usage, Answer, error) {
	var chunks [][]byte
	if stream {
		for _, e := range ParseSSE(body) {
			if len(strings.TrimSpace(string(e.Data))) > 0 {
				chunks = append(chunks, e.Data)
			}
		}
		if len(chunks) == 0 {
			return Usage{}, Answer{}, errStreamEnded
		}
	} else {
		chunks = [][]byte{body}
	}
	var u Usage
	var a Answer
	var text strings.Builder
	finished := false
	for _, c := range chunks {
		var r geminiResponse
		if err := json.Unmarshal(c, &r); err != nil {
			return u, a, err
		}
		if r.Error != nil {
			return u, a, &APIError{Status: r.Error.Code, Type: r.Error.Status, Message: r.Error.Message}
		}
		if m := r.UsageMetadata; m != nil {
			u = Usage{InputTokens: m.PromptTokenCount, CachedInputTokens: m.CachedContentTokenCount,
				OutputTokens: m.CandidatesTokenCount + m.ThoughtsTokenCount, ReasoningTokens: m.ThoughtsTokenCount}
		}
		for _, cand := range r.Candidates[:min(1, len(r.Candidates))] {
			for _, p := range cand.Content.Parts {
				switch {
				case p.FunctionCall != nil:
					id := p.FunctionCall.ID
					if id == "" {
						id = "call_" + strconv.Itoa(len(a.ToolCalls)+1)
					}
					args := string(p.FunctionCall.Args)
					if args == "" || args == "null" {
						args = "{}"
					}
					a.ToolCalls = append(a.ToolCalls, ToolCall{ID: id, Name: p.FunctionCall.Name, Arguments: args})
				case !p.Thought:
					text.WriteString(p.Text)
				}
			}
			if cand.FinishReason != "" {
				a.FinishReason, finished = cand.FinishReason, true
			}
		}
	}
	a.Text = text.String()
	if stream && !finished {
		return u, a, errStreamEnded
	}
	if a.FinishReason == "SAFETY" || a.FinishReason == "PROHIBITED_CONTENT" || a.FinishReason == "BLOCKLIST" {
		return u, a, &APIError{Status: 200, Code: "content_filter", Message: "gemini stopped the answer: " + a.FinishReason}
	}
	return u, a, nil
}
