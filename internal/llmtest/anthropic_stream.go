package llmtest

import (
	"encoding/json"
)

// stream answers a stream=true messages request with the events Anthropic sends:
// message_start (the message without content, its input usage and output_tokens 1), ping, per
// content block content_block_start, its deltas (text_delta; input_json_delta with the tool
// input split anywhere, after an empty first one) and content_block_stop, then message_delta
// (stop_reason and the usage: output_tokens, input counts repeated) and message_stop. With
// Reply.StreamError an overloaded_error event comes halfway instead of the rest.
func (d anthropicDialect) stream(req Request, rep Reply, n int64) ([]sseEvent, *apiError) {
	m, aerr := d.message(req, rep, n)
	if aerr != nil {
		return nil, aerr
	}
	var events []sseEvent
	add := func(name string, v any) {
		events = append(events, sseEvent{name: name, data: mustJSON(v)})
	}
	start := m
	start.Content = []any{}
	start.StopReason = ""
	startUsage := m.Usage
	startUsage.OutputTokens = 1
	start.Usage = startUsage
	add("message_start", map[string]any{"type": "message_start", "message": antStart{antMessageOut: start}})
	add("ping", map[string]string{"type": "ping"})
	for i, block := range m.Content {
		switch b := block.(type) {
		case antTextOut:
			add("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": antTextOut{Type: "text", Text: ""}})
			for _, p := range pieces(b.Text, textPiece) {
				add("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "text_delta", "text": p}})
			}
		case antToolUseOut:
			add("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": antToolUseOut{Type: "tool_use", ID: b.ID, Name: b.Name, Input: json.RawMessage("{}")}})
			add("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "input_json_delta", "partial_json": ""}})
			for _, p := range pieces(string(b.Input), argsPiece) {
				add("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "input_json_delta", "partial_json": p}})
			}
		}
		add("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	add("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": m.StopReason, "stop_sequence": nil},
		"usage": map[string]int{"input_tokens": m.Usage.InputTokens, "cache_creation_input_tokens": m.Usage.CacheCreationInputTokens,
			"cache_read_input_tokens": m.Usage.CacheReadInputTokens, "output_tokens": m.Usage.OutputTokens}})
	add("message_stop", map[string]string{"type": "message_stop"})
	if rep.StreamError {
		events = append(events[:len(events)/2], sseEvent{name: "error", data: mustJSON(map[string]any{"type": "error",
			"error": map[string]string{"type": "overloaded_error", "message": "Overloaded"}})})
	}
	return events, nil
}

// antStart is the message of message_start: stop_reason null.
type antStart struct {
	antMessageOut
}

func (s antStart) MarshalJSON() ([]byte, error) {
	type plain antMessageOut
	b, err := json.Marshal(plain(s.antMessageOut))
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["stop_reason"] = nil
	return json.Marshal(m)
}
