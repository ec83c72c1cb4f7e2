package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Gemini is the provider name of a Gemini server's requests.
const Gemini = "gemini"

// NewGemini starts a server that speaks Gemini's generateContent API: POST
// /v1beta/models/MODEL:generateContent, /v1beta/models/MODEL:streamGenerateContent?alt=sse
// (server-sent events, each a GenerateContentResponse chunk) and GET /v1beta/models. The key is
// x-goog-api-key (or ?key=). Function calls are parts {"functionCall": {"name", "args"}}, their
// results user parts {"functionResponse": {"name", "response"}}; usageMetadata counts prompt,
// candidates, thoughts and cached tokens. Give its SDK [Server.BaseURL], the bare URL.
func NewGemini(h Handler, opts ...Option) *Server {
	return newServer(geminiDialect{}, h, opts)
}

// geminiDialect speaks generateContent as Google's API and its SDKs (@google/genai) send and
// read it.
type geminiDialect struct{}

func (geminiDialect) name() string               { return Gemini }
func (geminiDialect) baseURL(root string) string { return root }
func (geminiDialect) retryAfterMs() bool         { return false }

// geminiPath splits /v1beta/models/MODEL:METHOD.
func geminiPath(path string) (model, method string, ok bool) {
	rest, found := strings.CutPrefix(path, "/v1beta/models/")
	if !found {
		return "", "", false
	}
	model, method, ok = strings.Cut(rest, ":")
	return model, method, ok && model != ""
}

func (geminiDialect) route(method, path string) route {
	if method == http.MethodGet && path == "/v1beta/models" {
		return routeModels
	}
	if _, m, ok := geminiPath(path); ok && method == http.MethodPost && (m == "generateContent" || m == "streamGenerateContent") {
		return routeChat
	}
	return routeNone
}

// fromPath sets what a Gemini request's path says: the model, a stream for
// streamGenerateContent, and the key when it comes as ?key=.
func (geminiDialect) fromPath(r *http.Request, req *Request) {
	model, method, _ := geminiPath(r.URL.Path)
	req.Model, req.Stream = model, method == "streamGenerateContent"
	if req.APIKey == "" {
		req.APIKey = r.URL.Query().Get("key")
	}
}

func (geminiDialect) setHeaders(h http.Header, _ string) {
	h.Set("Vary", "Origin, X-Origin, Referer")
}

func (geminiDialect) apiKey(h http.Header) string { return h.Get("X-Goog-Api-Key") }

type gemPart struct {
	Text         *string `json:"text"`
	Thought      bool    `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

type gemContent struct {
	Role  string    `json:"role"`
	Parts []gemPart `json:"parts"`
}

type gemRequest struct {
	Contents          []gemContent `json:"contents"`
	SystemInstruction *gemContent  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig *struct {
		Temperature     *float64 `json:"temperature"`
		MaxOutputTokens int      `json:"maxOutputTokens"`
		Seed            *int64   `json:"seed"`
		ThinkingConfig  *struct {
			ThinkingBudget *int `json:"thinkingBudget"`
		} `json:"thinkingConfig"`
	} `json:"generationConfig"`
}

func (geminiDialect) parse(body []byte) (Request, *apiError, *apiError) {
	var in gemRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, nil, &apiError{status: 400, typ: "INVALID_ARGUMENT", message: "Invalid JSON payload received. " + err.Error()}
	}
	var req Request
	if in.SystemInstruction != nil {
		var texts []string
		for _, p := range in.SystemInstruction.Parts {
			if p.Text != nil {
				texts = append(texts, *p.Text)
			}
		}
		req.System = strings.Join(texts, "\n")
	}
	for _, t := range in.Tools {
		for _, d := range t.FunctionDeclarations {
			req.Tools = append(req.Tools, d.Name)
		}
	}
	if gc := in.GenerationConfig; gc != nil {
		req.Temperature, req.MaxTokens, req.Seed = gc.Temperature, gc.MaxOutputTokens, gc.Seed
	}
	if len(in.Contents) == 0 {
		return req, &apiError{status: 400, typ: "INVALID_ARGUMENT", message: "* GenerateContentRequest.contents: contents is not specified"}, nil
	}
	// A call without an id is matched to its result by name.
	for i, c := range in.Contents {
		if c.Role != "user" && c.Role != "model" && c.Role != "" {
			return req, &apiError{status: 400, typ: "INVALID_ARGUMENT", message: fmt.Sprintf("Please use a valid role: user, model. (contents[%d].role %q)", i, c.Role)}, nil
		}
		msg := Message{Role: "user"}
		if c.Role == "model" {
			msg.Role = "assistant"
		}
		var texts []string
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				id := p.FunctionCall.ID
				if id == "" {
					id = p.FunctionCall.Name
				}
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: id, Name: p.FunctionCall.Name, Arguments: string(p.FunctionCall.Args)})
			case p.FunctionResponse != nil:
				id := p.FunctionResponse.ID
				if id == "" {
					id = p.FunctionResponse.Name
				}
				req.Messages = append(req.Messages, Message{Role: "tool", ToolCallID: id, Content: string(p.FunctionResponse.Response)})
			case p.Text != nil && !p.Thought:
				texts = append(texts, *p.Text)
			}
		}
		if len(texts) > 0 || len(msg.ToolCalls) > 0 || msg.Role == "assistant" {
			msg.Content = strings.Join(texts, "\n")
			req.Messages = append(req.Messages, msg)
		}
	}
	if at, ids, unanswered, ok := checkToolPairing(req.Messages); !ok {
		what := "function response parts without a function call"
		if unanswered {
			what = "function call turns without their function response turn"
		}
		return req, &apiError{status: 400, typ: "INVALID_ARGUMENT", message: fmt.Sprintf("Please ensure that function response turn comes immediately after a function call turn: %s %v at message %d.", what, ids, at)}, nil
	}
	return req, nil, nil
}

func (geminiDialect) models(ids []string) []byte {
	type model struct {
		Name                       string   `json:"name"`
		DisplayName                string   `json:"displayName"`
		SupportedGenerationMethods []string `json:"supportedGenerationMethods"`
	}
	list := struct {
		Models []model `json:"models"`
	}{Models: []model{}}
	for _, id := range ids {
		list.Models = append(list.Models, model{"models/" + id, id, []string{"generateContent", "countTokens"}})
	}
	return mustJSON(list)
}

// gemResponse is a GenerateContentResponse.
type gemResponse struct {
	Candidates    []gemCandidate `json:"candidates,omitempty"`
	UsageMetadata *gemUsage      `json:"usageMetadata,omitempty"`
	ModelVersion  string         `json:"modelVersion"`
	ResponseID    string         `json:"responseId"`
}

type gemCandidate struct {
	Content      map[string]any `json:"content"`
	FinishReason string         `json:"finishReason,omitempty"`
	Index        int            `json:"index"`
}

type gemUsage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount,omitempty"`
	TotalTokenCount         int `json:"totalTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount,omitempty"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount,omitempty"`
}

// usage is the reply's usageMetadata: promptTokenCount counts every prompt token (the cached
// ones too), candidatesTokenCount the answer without the thoughts, which thoughtsTokenCount
// counts apart (Reply.ReasoningTokens, among Reply.OutputTokens as OpenAI counts them).
func (geminiDialect) usage(req Request, rep Reply) *gemUsage {
	in, out := usageOf(req, rep, rep.Text)
	u := &gemUsage{PromptTokenCount: in, CandidatesTokenCount: out - rep.ReasoningTokens, CachedContentTokenCount: rep.CachedInputTokens,
		ThoughtsTokenCount: rep.ReasoningTokens}
	u.TotalTokenCount = u.PromptTokenCount + u.CandidatesTokenCount + u.ThoughtsTokenCount
	return u
}

func (d geminiDialect) parts(rep Reply) ([]map[string]any, string) {
	var parts []map[string]any
	if rep.Text != "" {
		parts = append(parts, map[string]any{"text": rep.Text})
	}
	for i, tc := range rep.ToolCalls {
		args := json.RawMessage(tc.Arguments)
		if tc.Arguments == "" {
			args = json.RawMessage("{}")
		}
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": id, "name": tc.Name, "args": args}})
	}
	finish := rep.FinishReason
	if finish == "" {
		finish = "STOP"
	}
	return parts, finish
}

func (d geminiDialect) reply(req Request, rep Reply, n int64) ([]byte, *apiError) {
	parts, finish := d.parts(rep)
	if parts == nil {
		parts = []map[string]any{{"text": ""}}
	}
	return mustJSON(gemResponse{Candidates: []gemCandidate{{Content: map[string]any{"role": "model", "parts": parts}, FinishReason: finish}},
		UsageMetadata: d.usage(req, rep), ModelVersion: req.Model, ResponseID: fmt.Sprintf("llmtest-%d", n)}), nil
}

// stream answers streamGenerateContent with chunks as Gemini sends them: the text in pieces,
// each chunk with the usage so far (the prompt's count from the first), the function calls
// whole in the last chunk with the finish reason and the final usage. With Reply.StreamError
// an error object comes halfway instead of the rest.
func (d geminiDialect) stream(req Request, rep Reply, n int64) ([]sseEvent, *apiError) {
	parts, finish := d.parts(rep)
	u := d.usage(req, rep)
	var events []sseEvent
	add := func(r gemResponse) {
		r.ModelVersion, r.ResponseID = req.Model, fmt.Sprintf("llmtest-%d", n)
		events = append(events, sseEvent{data: mustJSON(r)})
	}
	var text string
	var calls []map[string]any
	for _, p := range parts {
		if t, ok := p["text"].(string); ok {
			text = t
		} else {
			calls = append(calls, p)
		}
	}
	pieces := splitText(text, 3)
	for _, piece := range pieces {
		add(gemResponse{Candidates: []gemCandidate{{Content: map[string]any{"role": "model", "parts": []map[string]any{{"text": piece}}}}},
			UsageMetadata: &gemUsage{PromptTokenCount: u.PromptTokenCount, TotalTokenCount: u.PromptTokenCount}})
	}
	if calls == nil {
		calls = []map[string]any{{"text": ""}}
	}
	add(gemResponse{Candidates: []gemCandidate{{Content: map[string]any{"role": "model", "parts": calls}, FinishReason: finish}}, UsageMetadata: u})
	if rep.StreamError {
		half := events[:len(events)/2]
		return append(half, sseEvent{data: mustJSON(map[string]any{"error": map[string]any{"code": 503, "message": "The model is overloaded. Please try again later.", "status": "UNAVAILABLE"}})}), nil
	}
	return events, nil
}

// splitText cuts s into at most n pieces at rune boundaries.
func splitText(s string, n int) []string {
	if s == "" {
		return nil
	}
	r := []rune(s)
	size := (len(r) + n - 1) / n
	var out []string
	for i := 0; i < len(r); i += size {
		out = append(out, string(r[i:min(i+size, len(r))]))
	}
	return out
}

func (geminiDialect) notFoundPath(method, path string) *apiError {
	return &apiError{status: 404, typ: "NOT_FOUND", message: fmt.Sprintf("The requested URL %s %s was not found on this server.", method, path)}
}

func (geminiDialect) missingKey() *apiError {
	return &apiError{status: 403, typ: "PERMISSION_DENIED", message: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."}
}

func (geminiDialect) badKey(string) *apiError {
	return &apiError{status: 400, typ: "INVALID_ARGUMENT", message: "API key not valid. Please pass a valid API key."}
}

func (geminiDialect) unknownModel(model string) *apiError {
	return &apiError{status: 404, typ: "NOT_FOUND", message: "models/" + model + " is not found for API version v1beta, or is not supported for generateContent."}
}

func (geminiDialect) statusError(status int, typ string) *apiError {
	e := &apiError{status: status}
	switch {
	case status == 400:
		e.typ, e.message = "INVALID_ARGUMENT", "Request contains an invalid argument."
	case status == 403:
		e.typ, e.message = "PERMISSION_DENIED", "The caller does not have permission"
	case status == 404:
		e.typ, e.message = "NOT_FOUND", "Requested entity was not found."
	case status == 429:
		e.typ, e.message = "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."
	case status == 503:
		e.typ, e.message = "UNAVAILABLE", "The model is overloaded. Please try again later."
	case status == 504:
		e.typ, e.message = "DEADLINE_EXCEEDED", "Deadline expired before operation could complete."
	case status >= 500:
		e.typ, e.message = "INTERNAL", "An internal error has occurred."
	default:
		e.typ, e.message = "INVALID_ARGUMENT", http.StatusText(status)
	}
	if typ != "" {
		e.typ = typ
	}
	return e
}

// errorBody is Google's error: {"error": {"code", "message", "status"}}.
func (geminiDialect) errorBody(e *apiError, _ string) []byte {
	return mustJSON(map[string]any{"error": map[string]any{"code": e.status, "message": e.message, "status": e.typ}})
}

// readPath lets a dialect whose path says part of the request (Gemini's model) read it.
func readPath(d dialect, r *http.Request, req *Request) {
	if pp, ok := d.(interface{ fromPath(*http.Request, *Request) }); ok {
		pp.fromPath(r, req)
	}
}
