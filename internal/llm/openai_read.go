package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/buger/jsonparser"
)

// readChatBody fills resp from a chat completion's body as chatCompletion.fill would. A body of
// the usual shape is read with jsonparser (a reflection-driven decoder was a sixth of a
// plain-LLM run's CPU, most of it on logprobs); anything else (not valid JSON, a value of an
// unexpected type, an escape that decoders read differently) goes to looseChat, which reads
// such bodies as the SDKs' decoders did.
func readChatBody(body []byte, resp *Response) error {
	var c chatRead
	if c.read(body) {
		return c.fill(resp)
	}
	var top json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&top); err != nil {
		return fmt.Errorf("error parsing response json: %w", err)
	}
	var cc looseChat
	if err := json.Unmarshal(firstKeys(top), &cc); err != nil {
		return fmt.Errorf("error parsing response json: %w", err)
	}
	return cc.chat().fill(resp)
}

// jsonContent says whether a response's content type is JSON, as the SDKs decided before decoding.
func jsonContent(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return strings.Contains(mt, "application/json") || strings.HasSuffix(mt, "+json")
}

// chatRead is what readChat takes from a chat completion.
type chatRead struct {
	usage     Usage
	choices   int
	text      string
	finish    string
	toolCalls []ToolCall
	logprobs  []TokenLogprob
}

// fill is readChat on what was read.
func (c *chatRead) fill(resp *Response) error {
	resp.Usage = c.usage
	if c.choices == 0 {
		return &APIError{Provider: "openai", Status: 200, Code: "no_choices", Message: "the response has no choices"}
	}
	resp.Text, resp.FinishReason = c.text, c.finish
	if resp.FinishReason == "content_filter" {
		return &APIError{Provider: "openai", Status: 200, Code: "content_filter",
			Message: "the answer was withheld by OpenAI's content filter (finish_reason content_filter)"}
	}
	resp.ToolCalls, resp.Logprobs = c.toolCalls, c.logprobs
	return nil
}

// errShape stops a walk at a value the fast reader leaves to looseChat.
var errShape = errors.New("not the usual shape")

// read reads body, false when it is not of the usual shape.
func (c *chatRead) read(body []byte) bool {
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) == 0 || t[0] != '{' || !json.Valid(body) {
		return false
	}
	err := eachField(body, func(k []byte, v []byte, t jsonparser.ValueType) error {
		switch string(k) {
		case "usage":
			c.usage = Usage{}
			return eachField(v, func(k []byte, v []byte, t jsonparser.ValueType) error {
				switch string(k) {
				case "prompt_tokens":
					return jsonInt(v, t, &c.usage.InputTokens)
				case "completion_tokens":
					return jsonInt(v, t, &c.usage.OutputTokens)
				case "prompt_tokens_details":
					return oneInt(v, t, "cached_tokens", &c.usage.CachedInputTokens)
				case "completion_tokens_details":
					return oneInt(v, t, "reasoning_tokens", &c.usage.ReasoningTokens)
				}
				return nil
			}, t)
		case "choices":
			return c.readChoices(v, t)
		}
		return nil
	}, jsonparser.Object)
	return err == nil
}

func (c *chatRead) readChoices(v []byte, t jsonparser.ValueType) error {
	c.choices, c.text, c.finish, c.toolCalls, c.logprobs = 0, "", "", nil, nil
	if t == jsonparser.Null {
		return nil
	}
	if t != jsonparser.Array {
		return errShape
	}
	var err error
	_, aerr := jsonparser.ArrayEach(v, func(ch []byte, t jsonparser.ValueType, _ int, _ error) {
		c.choices++
		if c.choices == 1 && err == nil {
			err = c.readChoice(ch, t)
		}
	})
	if aerr != nil {
		return errShape
	}
	return err
}

func (c *chatRead) readChoice(ch []byte, t jsonparser.ValueType) error {
	return eachField(ch, func(k []byte, v []byte, t jsonparser.ValueType) error {
		switch string(k) {
		case "finish_reason":
			return jsonString(v, t, &c.finish)
		case "message":
			c.text, c.toolCalls = "", nil
			return eachField(v, func(k []byte, v []byte, t jsonparser.ValueType) error {
				switch string(k) {
				case "content":
					return jsonString(v, t, &c.text)
				case "tool_calls":
					c.toolCalls = nil
					return eachElem(v, t, func(v []byte, t jsonparser.ValueType) error {
						tc, err := readToolCall(v, t)
						c.toolCalls = append(c.toolCalls, tc)
						return err
					})
				}
				return nil
			}, t)
		case "logprobs":
			c.logprobs = nil
			return eachField(v, func(k []byte, v []byte, t jsonparser.ValueType) error {
				if string(k) != "content" {
					return nil
				}
				c.logprobs = nil
				return eachElem(v, t, func(v []byte, t jsonparser.ValueType) error {
					lp, err := readLogprob(v, t, true)
					c.logprobs = append(c.logprobs, lp)
					return err
				})
			}, t)
		}
		return nil
	}, t)
}

func readToolCall(v []byte, t jsonparser.ValueType) (ToolCall, error) {
	var tc ToolCall
	err := eachField(v, func(k []byte, v []byte, t jsonparser.ValueType) error {
		switch string(k) {
		case "id":
			return jsonString(v, t, &tc.ID)
		case "function":
			tc.Name, tc.Arguments = "", ""
			return eachField(v, func(k []byte, v []byte, t jsonparser.ValueType) error {
				switch string(k) {
				case "name":
					return jsonString(v, t, &tc.Name)
				case "arguments":
					return jsonString(v, t, &tc.Arguments)
				}
				return nil
			}, t)
		}
		return nil
	}, t)
	return tc, err
}

// readLogprob reads a token's logprob and, when top, its top_logprobs.
func readLogprob(v []byte, t jsonparser.ValueType, top bool) (TokenLogprob, error) {
	var lp TokenLogprob
	err := eachField(v, func(k []byte, v []byte, t jsonparser.ValueType) error {
		switch {
		case string(k) == "token":
			return jsonString(v, t, &lp.Token)
		case string(k) == "logprob":
			return jsonFloat(v, t, &lp.Logprob)
		case string(k) == "top_logprobs" && top:
			lp.Top = nil
			return eachElem(v, t, func(v []byte, t jsonparser.ValueType) error {
				alt, err := readLogprob(v, t, false)
				lp.Top = append(lp.Top, alt)
				return err
			})
		}
		return nil
	}, t)
	return lp, err
}

// eachField calls f on each field of an object; null or absent is an object with none.
func eachField(v []byte, f func(k []byte, v []byte, t jsonparser.ValueType) error, t jsonparser.ValueType) error {
	switch t {
	case jsonparser.Null, jsonparser.NotExist:
		return nil
	case jsonparser.Object:
	default:
		return errShape
	}
	var seen [24][]byte
	n := 0
	return jsonparser.ObjectEach(v, func(k, v []byte, t jsonparser.ValueType, _ int) error {
		if bytes.IndexByte(k, '\\') >= 0 || n == len(seen) {
			return errShape // an escaped key, or many: looseChat reads them
		}
		for _, s := range seen[:n] {
			if bytes.Equal(s, k) {
				return errShape // a key twice: looseChat reads the first, as the SDKs did (encoding/json the last)
			}
		}
		seen[n], n = k, n+1
		return f(k, v, t) // the key as bytes: compared, never kept, so no copy per field
	})
}

// eachElem calls f on each element of an array; null is an array with none.
func eachElem(v []byte, t jsonparser.ValueType, f func(v []byte, t jsonparser.ValueType) error) error {
	switch t {
	case jsonparser.Null:
		return nil
	case jsonparser.Array:
	default:
		return errShape
	}
	var err error
	if _, aerr := jsonparser.ArrayEach(v, func(e []byte, t jsonparser.ValueType, _ int, _ error) {
		if err == nil {
			err = f(e, t)
		}
	}); aerr != nil {
		return errShape
	}
	return err
}

func jsonString(v []byte, t jsonparser.ValueType, dst *string) error {
	return jsonScalar(v, t, jsonparser.String, parseString, dst)
}

func jsonInt(v []byte, t jsonparser.ValueType, dst *int64) error {
	return jsonScalar(v, t, jsonparser.Number, jsonparser.ParseInt, dst)
}

func jsonFloat(v []byte, t jsonparser.ValueType, dst *float64) error {
	return jsonScalar(v, t, jsonparser.Number, jsonparser.ParseFloat, dst)
}

// jsonScalar reads a value of type want with parse into dst; null reads as the zero value. Any
// other type, or a value parse refuses, is errShape.
func jsonScalar[T any](v []byte, t, want jsonparser.ValueType, parse func([]byte) (T, error), dst *T) error {
	switch t {
	case jsonparser.Null:
		var zero T
		*dst = zero
		return nil
	case want:
	default:
		return errShape
	}
	x, err := parse(v)
	if err != nil {
		return errShape
	}
	*dst = x
	return nil
}

// parseString is jsonparser.ParseString, refusing what the decoders read differently: invalid
// UTF-8 and lone surrogates are replaced by encoding/json, kept by jsonparser.
func parseString(v []byte) (string, error) {
	if bytes.Contains(v, []byte(`\ud`)) || bytes.Contains(v, []byte(`\uD`)) || !utf8.Valid(v) {
		return "", errShape
	}
	return jsonparser.ParseString(v)
}

// oneInt reads the integer field key of an object (0 when null or absent).
func oneInt(v []byte, t jsonparser.ValueType, key string, dst *int64) error {
	*dst = 0
	return eachField(v, func(k []byte, v []byte, t jsonparser.ValueType) error {
		if string(k) == key {
			return jsonInt(v, t, dst)
		}
		return nil
	}, t)
}
