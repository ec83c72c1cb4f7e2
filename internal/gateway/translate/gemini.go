package translate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/llm"
)

// Gemini generateContent: POST /v1beta/models/MODEL:generateContent (or
// :streamGenerateContent?alt=sse; the stream is in the path, which the caller reads).

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
	InlineData          json.RawMessage `json:"inlineData"`
	FileData            json.RawMessage `json:"fileData"`
	ExecutableCode      json.RawMessage `json:"executableCode"`
	CodeExecutionResult json.RawMessage `json:"codeExecutionResult"`
}

type gemContent struct {
	Role  string    `json:"role"`
	Parts []gemPart `json:"parts"`
}

type gemRequest struct {
	Contents          []gemContent                 `json:"contents"`
	SystemInstruction *gemContent                  `json:"systemInstruction"`
	Tools             []map[string]json.RawMessage `json:"tools"`
	ToolConfig        *struct {
		FunctionCallingConfig *struct {
			Mode                 string   `json:"mode"`
			AllowedFunctionNames []string `json:"allowedFunctionNames"`
		} `json:"functionCallingConfig"`
	} `json:"toolConfig"`
	GenerationConfig *struct {
		Temperature        *float64       `json:"temperature"`
		MaxOutputTokens    int            `json:"maxOutputTokens"`
		Seed               *int64         `json:"seed"`
		ResponseMimeType   string         `json:"responseMimeType"`
		ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
		ThinkingConfig     *struct {
			ThinkingBudget *int64 `json:"thinkingBudget"`
		} `json:"thinkingConfig"`
	} `json:"generationConfig"`
	CachedContent string `json:"cachedContent"`
}

type gemDecl struct {
	Name                 string         `json:"name"`
	Description          string         `json:"description"`
	Parameters           map[string]any `json:"parameters"`
	ParametersJSONSchema map[string]any `json:"parametersJsonSchema"`
}

func decodeGemini(body []byte, req *Request) error {
	var in gemRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return fmt.Errorf("not a generateContent request: %w", err)
	}
	if in.CachedContent != "" {
		return &Untranslatable{What: "cachedContent (a context cached by Google)"}
	}
	if s := in.SystemInstruction; s != nil {
		var texts []string
		for i, p := range s.Parts {
			if p.Text == nil {
				return &Untranslatable{What: fmt.Sprintf("a part other than text in systemInstruction.parts[%d]", i)}
			}
			texts = append(texts, *p.Text)
		}
		req.Messages = append(req.Messages, llm.Message{Role: "system", Content: strings.Join(texts, "\n")})
	}
	// Gemini's calls may have no id: they are numbered here, and each response without one
	// answers the first open call of its name.
	open := map[string][]string{}
	n := 0
	for i, c := range in.Contents {
		msg := llm.Message{Role: "user"}
		if c.Role == "model" {
			msg.Role = "assistant"
		}
		var texts []string
		for j, p := range c.Parts {
			where := fmt.Sprintf("contents[%d].parts[%d]", i, j)
			switch {
			case p.FunctionCall != nil:
				n++
				id := p.FunctionCall.ID
				if id == "" {
					id = fmt.Sprintf("gemini_call_%d", n)
				}
				open[p.FunctionCall.Name] = append(open[p.FunctionCall.Name], id)
				args := string(p.FunctionCall.Args)
				if args == "" || args == "null" {
					args = "{}"
				}
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: id, Name: p.FunctionCall.Name, Arguments: args})
			case p.FunctionResponse != nil:
				fr := p.FunctionResponse
				id := fr.ID
				if q := open[fr.Name]; id == "" && len(q) > 0 {
					id = q[0]
				}
				if q := open[fr.Name]; len(q) > 0 {
					open[fr.Name] = q[1:]
				}
				req.Messages = append(req.Messages, llm.Message{Role: "tool", ToolCallID: id, Content: GeminiOutput(fr.Response)})
			case p.Text != nil:
				if !p.Thought { // the model's thought summaries: its own
					texts = append(texts, *p.Text)
				}
			case len(p.InlineData) > 0:
				return &Untranslatable{What: "an inlineData part (" + where + ")"}
			case len(p.FileData) > 0:
				return &Untranslatable{What: "a fileData part (" + where + ")"}
			case len(p.ExecutableCode) > 0 || len(p.CodeExecutionResult) > 0:
				return &Untranslatable{What: "code execution (" + where + ")"}
			}
		}
		msg.Content = strings.Join(texts, "\n")
		if msg.Content != "" || len(msg.ToolCalls) > 0 {
			req.Messages = append(req.Messages, msg)
		}
	}
	for i, t := range in.Tools {
		for k, v := range t {
			if k != "functionDeclarations" {
				return &Untranslatable{What: fmt.Sprintf("the %s tool (tools[%d])", k, i)}
			}
			var decls []gemDecl
			if err := json.Unmarshal(v, &decls); err != nil {
				return fmt.Errorf("tools[%d].functionDeclarations: %w", i, err)
			}
			for _, d := range decls {
				params := d.ParametersJSONSchema
				if params == nil && d.Parameters != nil {
					params = lowerTypes(d.Parameters).(map[string]any)
				}
				req.Tools = append(req.Tools, llm.Tool{Name: d.Name, Description: d.Description, Parameters: params})
			}
		}
	}
	if tc := in.ToolConfig; tc != nil && tc.FunctionCallingConfig != nil {
		switch f := tc.FunctionCallingConfig; {
		case f.Mode == "NONE":
			req.ToolChoice = ToolChoice{Mode: "none"}
		case f.Mode == "ANY" && len(f.AllowedFunctionNames) == 1:
			req.ToolChoice = ToolChoice{Mode: "tool", Name: f.AllowedFunctionNames[0]}
		case f.Mode == "ANY":
			req.ToolChoice = ToolChoice{Mode: "required"}
		}
	}
	if gc := in.GenerationConfig; gc != nil {
		req.MaxTokens, req.Seed = gc.MaxOutputTokens, gc.Seed
		if gc.Temperature != nil {
			req.Temperature, req.HasTemperature = *gc.Temperature, true
		}
		if gc.ThinkingConfig != nil && gc.ThinkingConfig.ThinkingBudget != nil {
			req.Effort = effortOfBudget(*gc.ThinkingConfig.ThinkingBudget)
		}
		if gc.ResponseJSONSchema != nil {
			req.Schema = &llm.Schema{Name: "answer", Schema: gc.ResponseJSONSchema}
		}
	}
	return nil
}

// GeminiOutput is a function response's text: its "output" when that is all it holds (as
// Gemini CLI and llm's builder write it), else its JSON.
func GeminiOutput(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil && len(m) == 1 {
		var s string
		if json.Unmarshal(m["output"], &s) == nil {
			return s
		}
	}
	return string(raw)
}

// lowerTypes is a schema in Gemini's OpenAPI subset ("type": "OBJECT") as JSON Schema writes
// it ("object").
func lowerTypes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if s, ok := e.(string); ok && k == "type" {
				out[k] = strings.ToLower(s)
			} else {
				out[k] = lowerTypes(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = lowerTypes(e)
		}
		return out
	}
	return v
}

// encodeGemini is the generateContent body of req, by llm's builder. A temperature the client
// did not set is not sent; each function call carries the signature Google documents for
// calls that came from elsewhere (Gemini 3 refuses calls without one).
func encodeGemini(req Request) ([]byte, error) {
	b, err := llm.GeminiBody(req.Request)
	if err != nil {
		return nil, err
	}
	m, err := asMap(b)
	if err != nil {
		return nil, err
	}
	if gc, ok := m["generationConfig"].(map[string]any); ok && !req.HasTemperature {
		delete(gc, "temperature")
	}
	contents, _ := m["contents"].([]any)
	for _, c := range contents {
		parts, _ := c.(map[string]any)["parts"].([]any)
		for _, p := range parts {
			if part := p.(map[string]any); part["functionCall"] != nil {
				part["thoughtSignature"] = "skip_thought_signature_validator"
			}
		}
	}
	switch req.ToolChoice.Mode {
	case "none":
		m["toolConfig"] = map[string]any{"functionCallingConfig": map[string]any{"mode": "NONE"}}
	case "required":
		m["toolConfig"] = map[string]any{"functionCallingConfig": map[string]any{"mode": "ANY"}}
	case "tool":
		m["toolConfig"] = map[string]any{"functionCallingConfig": map[string]any{"mode": "ANY", "allowedFunctionNames": []string{req.ToolChoice.Name}}}
	}
	return json.Marshal(m)
}

func gemStop(s Stop) string {
	switch s {
	case StopLength:
		return "MAX_TOKENS"
	case StopFiltered:
		return "SAFETY"
	}
	return "STOP" // Gemini has no stop reason of its own for function calls
}

// geminiResponse is the answer as a GenerateContentResponse; streamed, it is the one chunk of
// the stream (parts, finish reason and usage: a stream's last chunk as Gemini sends it).
func geminiResponse(model string, a Answer) map[string]any {
	parts := []any{}
	if a.Text != "" {
		parts = append(parts, map[string]any{"text": a.Text})
	}
	for _, tc := range a.ToolCalls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": tc.ID, "name": tc.Name, "args": object(tc.Arguments)}})
	}
	if len(parts) == 0 {
		parts = append(parts, map[string]any{"text": ""})
	}
	u := a.Usage
	usage := map[string]any{"promptTokenCount": u.InputTokens, "candidatesTokenCount": u.OutputTokens - u.ReasoningTokens,
		"totalTokenCount": u.InputTokens + u.OutputTokens}
	if u.ReasoningTokens > 0 {
		usage["thoughtsTokenCount"] = u.ReasoningTokens
	}
	if u.CachedInputTokens > 0 {
		usage["cachedContentTokenCount"] = u.CachedInputTokens
	}
	return map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts},
		"finishReason": gemStop(a.Stop), "index": 0}}, "usageMetadata": usage, "modelVersion": model, "responseId": a.ID}
}
