// Package translate carries a model call from one wire format to another, so that any model
// can stand behind any agent CLI: the CLI's request (Anthropic Messages, OpenAI Chat
// Completions, OpenAI Responses or Gemini generateContent) is decoded to a canonical Request
// (llm.Request: the system prompt, the messages with their text, tool calls and tool results in
// order, the tools with their JSON schemas, the answer budget, the temperature and the effort,
// plus the tool choice and whether a stream was asked for), encoded in the upstream's format by
// llm's own body builders (the upstream call is never streamed), and the upstream's answer, as
// the llm stack read it (llm.Answer and llm.Usage), is rendered in the CLI's format: its JSON,
// or a complete stream of its server-sent events synthesised from the whole answer.
//
// What a format has and the others cannot carry faithfully (an image or a file, a server-side
// tool, state kept by the provider) is refused with an *Untranslatable naming it, never
// dropped. A model's hidden reasoning in the history (Anthropic's signed thinking blocks,
// Responses' encrypted reasoning items, Gemini's thought parts) belongs to the model that
// wrote it: it is left out, as every other provider would refuse it. See docs/harness.md.
package translate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/llm"
)

// Request is a call in canonical form.
type Request struct {
	llm.Request
	// HasTemperature says the client set one (llm.Request's 0 cannot say "not sent").
	HasTemperature bool
	ToolChoice     ToolChoice
	// Namespaces are the Responses API's tool namespaces: their tools are canonical tools named
	// NAMESPACE__TOOL, and a call of one goes back as the tool's call in its namespace.
	Namespaces []string
	// Stream: the client asked for a streamed answer. StreamUsage: a chat completions client
	// asked for the usage chunk (stream_options.include_usage).
	Stream, StreamUsage bool
}

// ToolChoice is what the client allows the model to do with its tools.
type ToolChoice struct {
	Mode string // "" or "auto" (the model decides), "none", "required" (some tool), "tool" (Name)
	Name string
}

// Stop is why an answer ended, in every format's terms.
type Stop string

// The stops.
const (
	StopEnd      Stop = "end"        // the model finished
	StopTools    Stop = "tool_calls" // the model asks for tools
	StopLength   Stop = "length"     // the answer budget ran out
	StopFiltered Stop = "filtered"   // the provider withheld the answer
)

// Answer is an upstream's answer in canonical form.
type Answer struct {
	ID        string // the answer's id, as the gateway numbers them
	Text      string
	ToolCalls []llm.ToolCall
	Stop      Stop
	Usage     llm.Usage
}

// Untranslatable is a request the target format cannot carry faithfully.
type Untranslatable struct {
	From, To llm.API
	What     string // what it is and where: "an image part (messages[2].content[1])"
}

func (e *Untranslatable) Error() string {
	return fmt.Sprintf("cannot translate %s to %s for this unit's model: %s has no counterpart there (send it to a model of the CLI's own provider)",
		Name(e.From), Name(e.To), e.What)
}

// Name is a wire format's short name: anthropic, openai-chat, openai-responses, gemini.
func Name(api llm.API) string {
	switch api {
	case llm.AnthropicMessages:
		return "anthropic"
	case llm.OpenAIChat:
		return "openai-chat"
	case llm.OpenAIResponses:
		return "openai-responses"
	case llm.GeminiGenerate:
		return "gemini"
	}
	return string(api)
}

// Native is the format a provider's models are called in when the gateway translates:
// Anthropic Messages, Gemini generateContent, and Chat Completions for OpenAI (every
// OpenAI-compatible server has it).
func Native(provider string) llm.API {
	switch provider {
	case "anthropic":
		return llm.AnthropicMessages
	case "gemini":
		return llm.GeminiGenerate
	}
	return llm.OpenAIChat
}

// Decode reads a request body of format api. An *Untranslatable says what it holds that no
// other format carries; any other error, that the body is not a request of that format.
func Decode(api llm.API, body []byte) (Request, error) {
	var req Request
	var err error
	switch api {
	case llm.AnthropicMessages:
		err = decodeAnthropic(body, &req)
	case llm.OpenAIChat:
		err = decodeChat(body, &req)
	case llm.OpenAIResponses:
		err = decodeResponses(body, &req)
	case llm.GeminiGenerate:
		err = decodeGemini(body, &req)
	default:
		return req, fmt.Errorf("translate: unknown wire format %q", api)
	}
	if u, ok := err.(*Untranslatable); ok {
		u.From = api
	}
	return req, err
}

// Encoder writes canonical requests in one format for one model, to be sent unstreamed.
type Encoder struct {
	api   llm.API
	model string
	chat  *llm.OpenAI // Chat Completions' builder, with what the price table says model takes
	// effort: the model takes an effort level (for chat: the price table calls it a
	// reasoning model, one that takes no temperature).
	effort bool
}

// NewEncoder is the encoder of format api for model.
func NewEncoder(api llm.API, model string) *Encoder {
	e := &Encoder{api: api, model: model, effort: api != llm.AnthropicMessages}
	if api == llm.OpenAIChat {
		e.chat = llm.NewOpenAI(model, "", "", nil)
		if p, err := llm.LoadPrices(""); err == nil {
			caps := p.Capabilities("openai:" + model)
			e.chat, e.effort = e.chat.WithCaps(caps), !caps.Temperature
		}
	}
	return e
}

// Encode is req in the encoder's format.
func (e *Encoder) Encode(req Request) ([]byte, error) {
	if !e.effort {
		req.Effort = ""
	}
	switch e.api {
	case llm.AnthropicMessages:
		return encodeAnthropic(e.model, req)
	case llm.OpenAIChat:
		return encodeChat(e.chat, req)
	case llm.OpenAIResponses:
		return encodeResponses(e.model, req)
	case llm.GeminiGenerate:
		return encodeGemini(req)
	}
	return nil, fmt.Errorf("translate: unknown wire format %q", e.api)
}

// Untranslated sets the target of an *Untranslatable error from Decode.
func Untranslated(err error, to llm.API) error {
	if u, ok := err.(*Untranslatable); ok {
		u.To = to
	}
	return err
}

// FromLLM is the canonical answer of what the llm stack read from an upstream's answer.
func FromLLM(a llm.Answer, u llm.Usage) Answer {
	out := Answer{Text: a.Text, ToolCalls: a.ToolCalls, Usage: u, Stop: StopEnd}
	switch a.FinishReason {
	case "tool_use", "tool_calls", "function_call":
		out.Stop = StopTools
	case "max_tokens", "length", "MAX_TOKENS", "max_output_tokens":
		out.Stop = StopLength
	case "content_filter", "refusal", "SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "RECITATION", "SPII":
		out.Stop = StopFiltered
	}
	if out.Stop == StopEnd && len(out.ToolCalls) > 0 {
		out.Stop = StopTools // Gemini and Responses say STOP / completed with function calls
	}
	return out
}

// Render writes an answer in format api: its JSON, or its server-sent events when req asked
// for a stream. It fails when the answer cannot be said in that format (a tool call whose
// arguments are not a JSON object, for a format that sends them as one).
func Render(api llm.API, model string, a Answer, req Request) (contentType string, body []byte, err error) {
	if a.ID == "" {
		a.ID = "vulnbench"
	}
	for _, tc := range a.ToolCalls {
		if api != llm.OpenAIChat && api != llm.OpenAIResponses && !isObject(tc.Arguments) {
			return "", nil, fmt.Errorf("the model's call of tool %q has arguments that are not a JSON object, which %s cannot carry: %.200q",
				tc.Name, Name(api), tc.Arguments)
		}
	}
	switch api {
	case llm.AnthropicMessages:
		if req.Stream {
			return sseType, anthropicStream(model, a), nil
		}
		return jsonType, mustJSON(anthropicMessage(model, a)), nil
	case llm.OpenAIChat:
		if req.Stream {
			return sseType, chatStream(model, a, req.StreamUsage), nil
		}
		return jsonType, mustJSON(chatCompletion(model, a)), nil
	case llm.OpenAIResponses:
		if req.Stream {
			return sseType, responsesStream(model, a, req.Namespaces), nil
		}
		return jsonType, mustJSON(responsesResponse(model, a, "completed", req.Namespaces)), nil
	case llm.GeminiGenerate:
		if req.Stream {
			return sseType, sse([]event{{data: geminiResponse(model, a)}}), nil
		}
		return jsonType, mustJSON(geminiResponse(model, a)), nil
	}
	return "", nil, fmt.Errorf("translate: unknown wire format %q", api)
}

const (
	jsonType = "application/json"
	sseType  = "text/event-stream; charset=utf-8"
)

// event is one server-sent event; name "" writes no event: line.
type event struct {
	name string
	data any
}

func sse(events []event) []byte {
	var b strings.Builder
	for _, e := range events {
		if e.name != "" {
			b.WriteString("event: " + e.name + "\n")
		}
		b.WriteString("data: ")
		if s, ok := e.data.(string); ok {
			b.WriteString(s)
		} else {
			b.Write(mustJSON(e.data))
		}
		b.WriteString("\n\n")
	}
	return []byte(b.String())
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("translate: %v", err)) // only maps, slices, strings and numbers of ours
	}
	return b
}

// isObject says whether s is a JSON object ("" counts as the empty one).
func isObject(s string) bool {
	t := strings.TrimSpace(s)
	return t == "" || (strings.HasPrefix(t, "{") && json.Valid([]byte(t)))
}

// object is a tool call's arguments as a JSON object ("" is {}).
func object(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}

// effortOfBudget is the effort level a thinking budget stands for: the least whose budget
// covers it. 0 or less (off, or the provider's dynamic -1) is no level.
func effortOfBudget(budget int64) llm.Effort {
	if budget <= 0 {
		return ""
	}
	for _, e := range llm.Efforts {
		if int64(e.ThinkingBudget()) >= budget {
			return e
		}
	}
	return llm.EffortXHigh
}

// parseEffort is a reasoning effort level as OpenAI names them ("none" is no level).
func parseEffort(s string) llm.Effort {
	e, err := llm.ParseEffort(s)
	if err != nil {
		return ""
	}
	return e
}

// rawText reads content that is a JSON string or a list of parts whose kinds are in text (their
// "text" joined by newlines); other kinds are refused as what: where.
func rawText(raw json.RawMessage, where string, text map[string]bool, skip map[string]bool) (string, error) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("%s: %w", where, err)
		}
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("%s is neither text nor a list of parts: %w", where, err)
	}
	var texts []string
	for i, p := range parts {
		switch {
		case text[p.Type]:
			texts = append(texts, p.Text)
		case skip[p.Type]:
		default:
			return "", &Untranslatable{What: fmt.Sprintf("a %q part (%s[%d])", p.Type, where, i)}
		}
	}
	return strings.Join(texts, "\n"), nil
}
