package llmtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
)

type route int

const (
	routeNone route = iota
	routeChat
	routeModels
	routeResponses // OpenAI's Responses API, served by responsesDialect
)

// dialect is what differs between providers: paths, request and response
// shapes, error bodies and headers.
type dialect interface {
	name() string
	baseURL(root string) string
	route(method, path string) route
	setHeaders(h http.Header, reqID string)
	apiKey(h http.Header) string
	// parse decodes a request body. malformed reports a body that is not a
	// request at all; invalid a request the real API would refuse, which is
	// reported after the key is checked.
	parse(body []byte) (req Request, invalid, malformed *apiError)
	models(ids []string) []byte
	reply(req Request, rep Reply, n int64) ([]byte, *apiError)

	notFoundPath(method, path string) *apiError
	missingKey() *apiError
	badKey(key string) *apiError
	unknownModel(model string) *apiError
	statusError(status int, typ string) *apiError
	errorBody(e *apiError, reqID string) []byte
	retryAfterMs() bool
}

// apiError is an error answer, in provider-neutral form.
type apiError struct {
	status     int
	typ        string
	message    string
	param      string // OpenAI only
	code       string // OpenAI only
	retryAfter time.Duration
	retryNow   bool // send Retry-After: 0
}

func (e *apiError) retryAfterHeaders(d dialect) http.Header {
	if e.retryAfter <= 0 {
		if !e.retryNow {
			return nil
		}
		h := http.Header{"Retry-After": {"0"}}
		if d.retryAfterMs() {
			h.Set("Retry-After-Ms", "0")
		}
		return h
	}
	secs := (e.retryAfter + time.Second - 1) / time.Second
	h := http.Header{"Retry-After": {strconv.FormatInt(int64(secs), 10)}}
	if d.retryAfterMs() {
		ms := (e.retryAfter + time.Millisecond - 1) / time.Millisecond
		h.Set("Retry-After-Ms", strconv.FormatInt(int64(ms), 10))
	}
	return h
}

// checkToolPairing checks that the tool results of msgs answer, each once,
// the tool calls of the assistant message just before them, and that every
// call is answered before the next other message. On failure it returns the
// index of the offending message, the ids concerned, and whether they are
// calls left unanswered (true) or unexpected results (false).
func checkToolPairing(msgs []Message) (at int, ids []string, unanswered, ok bool) {
	var pending []string
	pendingAt := 0
	for i, m := range msgs {
		if m.Role == "tool" {
			j := indexOf(pending, m.ToolCallID)
			if j < 0 {
				return i, []string{m.ToolCallID}, false, false
			}
			pending = append(pending[:j], pending[j+1:]...)
			continue
		}
		if len(pending) > 0 {
			return pendingAt, pending, true, false
		}
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			pendingAt = i
			for _, tc := range m.ToolCalls {
				pending = append(pending, tc.ID)
			}
		}
	}
	if len(pending) > 0 {
		return pendingAt, pending, true, false
	}
	return 0, nil, false, true
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// logprobsFor returns the scripted logprobs, or one entry with logprob 0 per
// word of text, each word with its leading whitespace.
func logprobsFor(rep Reply) []TokenLogprob {
	if rep.Logprobs != nil {
		return rep.Logprobs
	}
	out := []TokenLogprob{}
	start, prevSpace := 0, false
	for i, r := range rep.Text {
		space := unicode.IsSpace(r)
		if i > start && space && !prevSpace {
			out = append(out, TokenLogprob{Token: rep.Text[start:i]})
			start = i
		}
		prevSpace = space
	}
	if start < len(rep.Text) {
		out = append(out, TokenLogprob{Token: rep.Text[start:]})
	}
	return out
}

// textOf decodes content that is null, a string, or an array of parts or
// blocks, keeping the text of those of the given types, joined by newlines.
// It reports false when raw is none of those.
func textOf(raw json.RawMessage, field map[string]string) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	switch raw[0] {
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err == nil
	case '[':
		var parts []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", false
		}
		var texts []string
		for _, p := range parts {
			var typ string
			_ = json.Unmarshal(p["type"], &typ)
			key, ok := field[typ]
			if !ok {
				continue
			}
			var s string
			if err := json.Unmarshal(p[key], &s); err != nil {
				return "", false
			}
			texts = append(texts, s)
		}
		return strings.Join(texts, "\n"), true
	}
	return "", false
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Only our own types are marshalled here: a failure is a bug.
		panic("llmtest: " + err.Error())
	}
	return b
}

func tokenBytes(s string) []int {
	out := make([]int, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = int(s[i])
	}
	return out
}
