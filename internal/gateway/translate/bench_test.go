package translate_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/gateway/translate"
	"github.com/vulnbench/vulnbench/internal/llm"
)

// agentBody is an Anthropic request of a coding agent's size: a 40 kB system prompt, 20 tools
// with schemas and 30 turns of tool calls and results.
func agentBody(b *testing.B) []byte {
	tools := []any{}
	for i := range 20 {
		tools = append(tools, map[string]any{"name": fmt.Sprintf("tool%d", i), "description": strings.Repeat("Does a thing. ", 40),
			"input_schema": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}, "n": map[string]any{"type": "integer"}}}})
	}
	msgs := []any{map[string]any{"role": "user", "content": "Audit the project."}}
	for i := range 30 {
		id := fmt.Sprintf("toolu_%d", i)
		msgs = append(msgs, map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Reading."},
			map[string]any{"type": "tool_use", "id": id, "name": "tool1", "input": map[string]any{"path": "src/a.c", "n": i}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": strings.Repeat("int x;\n", 200)}}})
	}
	body, err := json.Marshal(map[string]any{"model": "m", "max_tokens": 32000, "stream": true, "system": strings.Repeat("You are an agent. ", 2300), "tools": tools, "messages": msgs})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkTranslate: one call of an agent's size, Anthropic Messages to each other provider's
// format (decode and encode), and the answer rendered back as a stream.
func BenchmarkTranslate(b *testing.B) {
	body := agentBody(b)
	for _, to := range []llm.API{llm.OpenAIChat, llm.GeminiGenerate} {
		enc := translate.NewEncoder(to, models[to])
		b.Run(translate.Name(to), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				req, err := translate.Decode(llm.AnthropicMessages, body)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := enc.Encode(req); err != nil {
					b.Fatal(err)
				}
				if _, _, err := translate.Render(llm.AnthropicMessages, "m", answer(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
