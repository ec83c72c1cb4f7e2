package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/buger/jsonparser"
)

// SSEEvent is one server-sent event of a streamed answer.
type SSEEvent struct {
	Name string // the event: line; "" when there is none (chat completions)
	Data []byte
}

// ParseSSE splits a stream's text into its events (comments and retry lines left out; data
// lines of one event joined by newlines).
func ParseSSE(body []byte) []SSEEvent {
	var out []SSEEvent
	var cur SSEEvent
	var data [][]byte
	flush := func() {
		if cur.Name != "" || data != nil {
			cur.Data = bytes.Join(data, []byte("\n"))
			out = append(out, cur)
		}
		cur, data = SSEEvent{}, nil
	}
	for _, line := range bytes.Split(body, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) == 0:
			flush()
		case bytes.HasPrefix(line, []byte("event:")):
			cur.Name = string(bytes.TrimSpace(line[len("event:"):]))
		case bytes.HasPrefix(line, []byte("data:")):
			d := line[len("data:"):]
			data = append(data, bytes.TrimPrefix(d, []byte(" ")))
		}
	}
	flush()
	return out
}

// errStreamEnded is a stream that stopped before its last event: the connection broke.
var errStreamEnded = errors.New("the stream ended before its last event")

// parseRaw reads the usage and the answer of a 2xx raw answer; a stream's error event is an
// *APIError, a stream without its last event a transient fault.
func parseRaw(provider string, api API, body []byte, stream bool) (Usage, Answer, error) {
	var u Usage
	var a Answer
	var err error
	switch {
	case api == AnthropicMessages && stream:
		u, a, err = parseAnthropicStream(body)
	case api == AnthropicMessages:
		var m antMessage
		if err = json.Unmarshal(body, &m); err == nil {
			u, a = m.usage(), m.answer()
		}
	case api == OpenAIChat && stream:
		u, a, err = parseChatStream(body)
	case api == OpenAIChat:
		var c chatCompletion
		if err = json.Unmarshal(body, &c); err == nil {
			u, a = c.Usage.usage(), c.answer()
		}
	case api == GeminiGenerate:
		u, a, err = parseGemini(body, stream)
	case api == OpenAIResponses && stream:
		u, a, err = parseResponsesStream(body)
	default:
		var r responsesResponse
		if err = json.Unmarshal(body, &r); err == nil {
			u, a = r.Usage.usage(), r.answer()
		}
	}
	var ae *APIError
	switch {
	case errors.As(err, &ae):
		ae.Provider = provider
		return u, a, ae
	case errors.Is(err, errStreamEnded):
		return u, a, &APIError{Provider: provider, Message: err.Error(), Cause: err}
	case err != nil:
		return u, a, &APIError{Provider: provider, Status: 200, Code: "malformed", Message: "the answer could not be read: " + err.Error()}
	}
	return u, a, nil
}

type antUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
}

// merge takes the counts o has (message_delta's override message_start's).
func (u *antUsage) merge(o antUsage) {
	for _, p := range [][2]**int64{{&u.InputTokens, &o.InputTokens}, {&u.CacheCreationInputTokens, &o.CacheCreationInputTokens},
		{&u.CacheReadInputTokens, &o.CacheReadInputTokens}, {&u.OutputTokens, &o.OutputTokens}} {
		if *p[1] != nil {
			*p[0] = *p[1]
		}
	}
}

func (u antUsage) usage() Usage {
	v := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	in, read, write := v(u.InputTokens), v(u.CacheReadInputTokens), v(u.CacheCreationInputTokens)
	return Usage{InputTokens: in + read + write, CachedInputTokens: read, CacheWriteTokens: write, OutputTokens: v(u.OutputTokens)}
}

type antBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type antMessage struct {
	Content    []antBlock `json:"content"`
	StopReason string     `json:"stop_reason"`
	Usage      antUsage   `json:"usage"`
}

func (m antMessage) usage() Usage { return m.Usage.usage() }

func (m antMessage) answer() Answer {
	a := Answer{FinishReason: m.StopReason}
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			a.Text += b.Text
		case "tool_use":
			a.ToolCalls = append(a.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
		}
	}
	return a
}

// antErrorStatus is the HTTP status Anthropic gives an error type, for an error event.
func antErrorStatus(typ string) int {
	switch typ {
	case "overloaded_error":
		return 529
	case "rate_limit_error":
		return 429
	case "api_error":
		return 500
	case "timeout_error":
		return 504
	case "authentication_error":
		return 401
	case "permission_error":
		return 403
	case "not_found_error":
		return 404
	case "request_too_large":
		return 413
	}
	return 400
}

// parseAnthropicStream reads Anthropic's events with jsonparser: a streamed answer is dozens
// of small events, and decoding each into structs costs more than the rest of a gateway call.
func parseAnthropicStream(body []byte) (Usage, Answer, error) {
	var u antUsage
	var a Answer
	blocks := map[int]*antBlock{}
	args := map[int]*strings.Builder{}
	stopped := false
	for _, ev := range ParseSSE(body) {
		typ, err := jsonparser.GetString(ev.Data, "type")
		if err != nil {
			return u.usage(), a, fmt.Errorf("event %s: %w", ev.Name, err)
		}
		index, _ := jsonparser.GetInt(ev.Data, "index")
		i := int(index)
		switch typ {
		case "message_start":
			if v, _, _, err := jsonparser.Get(ev.Data, "message", "usage"); err == nil {
				u.merge(readAntUsage(v))
			}
		case "content_block_start":
			var b antBlock
			v, _, _, _ := jsonparser.Get(ev.Data, "content_block")
			if err := json.Unmarshal(v, &b); err != nil {
				return u.usage(), a, fmt.Errorf("event %s: %w", ev.Name, err)
			}
			blocks[i], args[i] = &b, &strings.Builder{}
		case "content_block_delta":
			kind, _ := jsonparser.GetString(ev.Data, "delta", "type")
			if b := blocks[i]; b != nil && kind == "text_delta" {
				t, _ := jsonparser.GetString(ev.Data, "delta", "text")
				b.Text += t
			} else if sb := args[i]; sb != nil && kind == "input_json_delta" {
				p, _ := jsonparser.GetString(ev.Data, "delta", "partial_json")
				sb.WriteString(p)
			}
		case "message_delta":
			if v, _, _, err := jsonparser.Get(ev.Data, "usage"); err == nil {
				u.merge(readAntUsage(v))
			}
			a.FinishReason, _ = jsonparser.GetString(ev.Data, "delta", "stop_reason")
		case "message_stop":
			stopped = true
		case "error":
			et, _ := jsonparser.GetString(ev.Data, "error", "type")
			msg, _ := jsonparser.GetString(ev.Data, "error", "message")
			return u.usage(), a, &APIError{Status: antErrorStatus(et), Type: et, Message: msg}
		}
	}
	m := antMessage{StopReason: a.FinishReason}
	for _, i := range sortedInts(blocks) {
		b := *blocks[i]
		if b.Type == "tool_use" {
			b.Input = json.RawMessage(args[i].String())
			if len(b.Input) == 0 {
				b.Input = json.RawMessage("{}")
			}
		}
		m.Content = append(m.Content, b)
	}
	if !stopped {
		return u.usage(), m.answer(), errStreamEnded
	}
	return u.usage(), m.answer(), nil
}

// readAntUsage reads the counts a usage object has.
func readAntUsage(v []byte) antUsage {
	var u antUsage
	for _, f := range []struct {
		key string
		dst **int64
	}{{"input_tokens", &u.InputTokens}, {"cache_creation_input_tokens", &u.CacheCreationInputTokens},
		{"cache_read_input_tokens", &u.CacheReadInputTokens}, {"output_tokens", &u.OutputTokens}} {
		if n, err := jsonparser.GetInt(v, f.key); err == nil {
			*f.dst = &n
		}
	}
	return u
}

func sortedInts[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// ReadRaw reads the usage and the answer of a 2xx answer in api's format, JSON or (stream)
// server-sent events, as a raw call reads them.
func ReadRaw(api API, body []byte, stream bool) (Usage, Answer, error) {
	return parseRaw(api.Provider(), api, body, stream)
}
