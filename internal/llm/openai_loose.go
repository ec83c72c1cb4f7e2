package llm

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/buger/jsonparser"
)

// The chat completion as read when the fast reader (openai_read.go) leaves a body: values of
// an unexpected type read as their zero (an object where a list belongs is no list, a number
// where text belongs no text), a number in a string or with a fraction as the integer it holds,
// as the SDKs' decoders read them; only a body that is not JSON, or not an object, fails.

type looseChat struct {
	Choices looseList[looseChoice] `json:"choices"`
	Usage   loose[struct {
		PromptTokens        looseInt `json:"prompt_tokens"`
		CompletionTokens    looseInt `json:"completion_tokens"`
		PromptTokensDetails loose[struct {
			CachedTokens looseInt `json:"cached_tokens"`
		}] `json:"prompt_tokens_details"`
		CompletionTokensDetails loose[struct {
			ReasoningTokens looseInt `json:"reasoning_tokens"`
		}] `json:"completion_tokens_details"`
	}] `json:"usage"`
}

type looseChoice struct {
	Message loose[struct {
		Content   looseString              `json:"content"`
		ToolCalls looseList[looseToolCall] `json:"tool_calls"`
	}] `json:"message"`
	FinishReason looseString `json:"finish_reason"`
	Logprobs     loose[struct {
		Content looseList[looseLogprob] `json:"content"`
	}] `json:"logprobs"`
}

type looseToolCall struct {
	ID       looseString `json:"id"`
	Function loose[struct {
		Name      looseString `json:"name"`
		Arguments looseString `json:"arguments"`
	}] `json:"function"`
}

type looseLogprob struct {
	Token       looseString             `json:"token"`
	Logprob     looseFloat              `json:"logprob"`
	TopLogprobs looseList[looseLogprob] `json:"top_logprobs"`
}

// chat is the completion in the shape chatCompletion.fill reads.
func (l looseChat) chat() chatCompletion {
	var c chatCompletion
	u := l.Usage.V
	c.Usage.PromptTokens, c.Usage.CompletionTokens = int64(u.PromptTokens), int64(u.CompletionTokens)
	c.Usage.PromptTokensDetails.CachedTokens = int64(u.PromptTokensDetails.V.CachedTokens)
	c.Usage.CompletionTokensDetails.ReasoningTokens = int64(u.CompletionTokensDetails.V.ReasoningTokens)
	c.Choices = make([]chatChoice, len(l.Choices))
	for i, ch := range l.Choices {
		c.Choices[i].Message.Content = string(ch.Message.V.Content)
		c.Choices[i].FinishReason = string(ch.FinishReason)
		for _, tc := range ch.Message.V.ToolCalls {
			var t chatToolCall
			t.ID, t.Function.Name, t.Function.Arguments = string(tc.ID), string(tc.Function.V.Name), string(tc.Function.V.Arguments)
			c.Choices[i].Message.ToolCalls = append(c.Choices[i].Message.ToolCalls, t)
		}
		for _, lp := range ch.Logprobs.V.Content {
			c.Choices[i].Logprobs.Content = append(c.Choices[i].Logprobs.Content, lp.chat())
		}
	}
	return c
}

func (l looseLogprob) chat() chatLogprob {
	c := chatLogprob{Token: string(l.Token), Logprob: float64(l.Logprob)}
	for _, t := range l.TopLogprobs {
		c.TopLogprobs = append(c.TopLogprobs, t.chat())
	}
	return c
}

// loose is an object, or its zero value when the JSON holds anything else.
type loose[T any] struct{ V T }

func (l *loose[T]) UnmarshalJSON(b []byte) error {
	var v T
	if len(b) > 0 && b[0] == '{' && json.Unmarshal(firstKeys(b), &v) == nil {
		l.V = v
	}
	return nil
}

// looseList is a list, or none when the JSON holds anything else.
type looseList[T any] []T

func (l *looseList[T]) UnmarshalJSON(b []byte) error {
	var v []T
	if len(b) > 0 && b[0] == '[' && json.Unmarshal(b, &v) == nil {
		*l = v
	}
	return nil
}

type looseString string

func (s *looseString) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
	case b[0] == '{' || b[0] == '[' || b[0] == 't' || b[0] == 'f':
		*s = looseString(b) // an object, a list or a boolean: its JSON
	case b[0] != '"':
		if x, err := strconv.ParseFloat(string(b), 64); err == nil {
			*s = looseString(strconv.FormatFloat(x, 'f', -1, 64))
		}
	case utf8.Valid(b):
		var v string
		if json.Unmarshal(b, &v) == nil {
			*s = looseString(v)
		}
	default: // invalid UTF-8 is kept as sent, not replaced
		if v, err := jsonparser.ParseString(b[1 : len(b)-1]); err == nil {
			*s = looseString(v)
		}
	}
	return nil
}

type looseFloat float64

func (f *looseFloat) UnmarshalJSON(b []byte) error {
	*f = looseFloat(looseNumber(b))
	return nil
}

type looseInt int64

func (n *looseInt) UnmarshalJSON(b []byte) error {
	x := looseNumber(b)
	if x >= math.MinInt64 && x <= math.MaxInt64 {
		*n = looseInt(int64(x))
	}
	return nil
}

// firstKeys is the object b with only the first of each key: as the SDKs' decoders read a
// key sent twice (encoding/json keeps the last).
func firstKeys(b []byte) []byte {
	seen := map[string]bool{}
	var out bytes.Buffer
	out.WriteByte('{')
	dup := false
	err := jsonparser.ObjectEach(b, func(k, v []byte, t jsonparser.ValueType, _ int) error {
		var key string
		if json.Unmarshal(append(append([]byte{'"'}, k...), '"'), &key) != nil || seen[key] {
			dup = true
			return nil
		}
		seen[key] = true
		if len(seen) > 1 {
			out.WriteByte(',')
		}
		out.WriteByte('"')
		out.Write(k)
		out.WriteString(`":`)
		if t == jsonparser.String {
			out.WriteByte('"')
			out.Write(v)
			out.WriteByte('"')
		} else {
			out.Write(v)
		}
		return nil
	})
	if err != nil || !dup {
		return b
	}
	out.WriteByte('}')
	return out.Bytes()
}

// looseNumber is the number b holds, bare or in a string; 0 for anything else.
func looseNumber(b []byte) float64 {
	var s string
	if json.Unmarshal(b, &s) == nil {
		b = []byte(s)
	}
	x, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}
