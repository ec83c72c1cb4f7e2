package gateway

import (
	"strings"

	"github.com/buger/jsonparser"
	"github.com/vulnbench/vulnbench/internal/gateway/translate"
	"github.com/vulnbench/vulnbench/internal/llm"
)

// toolResult is a tool's output the agent sends back to the model.
type toolResult struct {
	id, content string
}

// seenOf is what the trace shows of a request (the meter records it): the results of the tools
// the model asked for that earlier calls did not send (each once, by its call id: the agent
// resends the whole conversation every turn), and its last message.
func (g *Gateway) seenOf(req llm.RawRequest) llm.Seen {
	results, last := readInput(req.API, req.Body)
	g.mu.Lock()
	defer g.mu.Unlock()
	seen := llm.Seen{Last: last}
	for _, r := range results {
		if !g.seen[r.id] {
			g.seen[r.id] = true
			seen.ToolResults = append(seen.ToolResults, llm.ToolResult{CallID: r.id, Content: r.content})
		}
	}
	return seen
}

// readInput reads a request's tool results (all of them) and the text of its last message,
// with jsonparser (the system prompt and tools are skipped, not decoded). What it cannot read
// it leaves out: the request goes to the model verbatim all the same.
func readInput(api llm.API, body []byte) ([]toolResult, string) {
	var results []toolResult
	last := ""
	switch api {
	case llm.AnthropicMessages:
		_, _ = jsonparser.ArrayEach(body, func(m []byte, _ jsonparser.ValueType, _ int, _ error) {
			content, typ, _, _ := jsonparser.Get(m, "content")
			var texts []string
			if typ != jsonparser.Array {
				last = textOf(content, typ)
				return
			}
			_, _ = jsonparser.ArrayEach(content, func(b []byte, _ jsonparser.ValueType, _ int, _ error) {
				switch kind, _ := jsonparser.GetString(b, "type"); kind {
				case "text":
					t, _ := jsonparser.GetString(b, "text")
					texts = append(texts, t)
				case "tool_result":
					id, _ := jsonparser.GetString(b, "tool_use_id")
					c, ct, _, _ := jsonparser.Get(b, "content")
					text := textOf(c, ct)
					results = append(results, toolResult{id, text})
					texts = append(texts, text)
				}
			})
			last = strings.Join(texts, "\n")
		}, "messages")
	case llm.OpenAIChat:
		_, _ = jsonparser.ArrayEach(body, func(m []byte, _ jsonparser.ValueType, _ int, _ error) {
			c, ct, _, _ := jsonparser.Get(m, "content")
			last = textOf(c, ct)
			if role, _ := jsonparser.GetString(m, "role"); role == "tool" {
				id, _ := jsonparser.GetString(m, "tool_call_id")
				results = append(results, toolResult{id, last})
			}
		}, "messages")
	case llm.GeminiGenerate:
		_, _ = jsonparser.ArrayEach(body, func(c []byte, _ jsonparser.ValueType, _ int, _ error) {
			var texts []string
			_, _ = jsonparser.ArrayEach(c, func(p []byte, _ jsonparser.ValueType, _ int, _ error) {
				if fr, typ, _, err := jsonparser.Get(p, "functionResponse"); err == nil && typ == jsonparser.Object {
					id, _ := jsonparser.GetString(fr, "id")
					if id == "" {
						id, _ = jsonparser.GetString(fr, "name")
					}
					out, _, _, _ := jsonparser.Get(fr, "response")
					text := translate.GeminiOutput(out)
					results = append(results, toolResult{id, text})
					texts = append(texts, text)
					return
				}
				if t, err := jsonparser.GetString(p, "text"); err == nil {
					texts = append(texts, t)
				}
			}, "parts")
			last = strings.Join(texts, "\n")
		}, "contents")
	default:
		in, typ, _, _ := jsonparser.Get(body, "input")
		if typ == jsonparser.String {
			return nil, textOf(in, typ)
		}
		_, _ = jsonparser.ArrayEach(in, func(it []byte, _ jsonparser.ValueType, _ int, _ error) {
			switch kind, _ := jsonparser.GetString(it, "type"); kind {
			case "function_call_output", "custom_tool_call_output":
				id, _ := jsonparser.GetString(it, "call_id")
				o, ot, _, _ := jsonparser.Get(it, "output")
				last = textOf(o, ot)
				results = append(results, toolResult{id, last})
			case "message", "":
				c, ct, _, _ := jsonparser.Get(it, "content")
				last = textOf(c, ct)
			}
		})
	}
	return results, last
}

// textOf reads content that is a string or a list of parts with text.
func textOf(v []byte, typ jsonparser.ValueType) string {
	switch typ {
	case jsonparser.String:
		s, _ := jsonparser.ParseString(v)
		return s
	case jsonparser.Array:
		var texts []string
		_, _ = jsonparser.ArrayEach(v, func(p []byte, _ jsonparser.ValueType, _ int, _ error) {
			if t, err := jsonparser.GetString(p, "text"); err == nil && t != "" {
				texts = append(texts, t)
			}
		})
		return strings.Join(texts, "\n")
	}
	return ""
}
