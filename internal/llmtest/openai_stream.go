package llmtest

import (
	"encoding/json"
)

// oaiChunk is a chat.completion.chunk.
type oaiChunk struct {
	ID                string           `json:"id"`
	Object            string           `json:"object"`
	Created           int64            `json:"created"`
	Model             string           `json:"model"`
	ServiceTier       string           `json:"service_tier"`
	SystemFingerprint string           `json:"system_fingerprint"`
	Choices           []oaiChunkChoice `json:"choices"`
	Usage             *oaiUsage        `json:"usage,omitempty"`
	// withUsage writes "usage": null when Usage is nil, as OpenAI does on every chunk but the
	// last when stream_options.include_usage is set.
	withUsage bool
}

func (c oaiChunk) MarshalJSON() ([]byte, error) {
	type plain oaiChunk
	b, err := json.Marshal(plain(c))
	if err != nil || !c.withUsage || c.Usage != nil {
		return b, err
	}
	return append(b[:len(b)-1], `,"usage":null}`...), nil
}

type oaiChunkChoice struct {
	Index        int            `json:"index"`
	Delta        map[string]any `json:"delta"`
	Logprobs     *oaiLogprobs   `json:"logprobs"`
	FinishReason *string        `json:"finish_reason"`
}

// stream answers a stream=true chat completion with the chunks OpenAI sends: the role (with
// empty content) first, the text in pieces, each tool call's id, type and name with empty
// arguments then its arguments in pieces (by index), an empty delta with finish_reason, then,
// with stream_options.include_usage, a chunk with no choices and the usage; data: [DONE] last.
// With Reply.StreamError an error chunk comes halfway instead of the rest.
func (d openaiDialect) stream(req Request, rep Reply, n int64) ([]sseEvent, *apiError) {
	c := d.completion(req, rep, n)
	var opts struct {
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	_ = json.Unmarshal(req.Raw, &opts)
	usage := opts.StreamOptions.IncludeUsage
	var events []sseEvent
	chunk := func(delta map[string]any, finish *string) {
		ch := oaiChunk{ID: c.ID, Object: "chat.completion.chunk", Created: c.Created, Model: c.Model, ServiceTier: c.ServiceTier,
			SystemFingerprint: c.SystemFingerprint, Choices: []oaiChunkChoice{{Delta: delta, FinishReason: finish}}, withUsage: usage}
		events = append(events, sseEvent{data: mustJSON(ch)})
	}
	msg := c.Choices[0].Message
	chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil)
	if msg.Content != nil {
		for _, p := range pieces(*msg.Content, textPiece) {
			chunk(map[string]any{"content": p}, nil)
		}
	}
	for i, tc := range msg.ToolCalls {
		chunk(map[string]any{"tool_calls": []map[string]any{{"index": i, "id": tc.ID, "type": "function",
			"function": map[string]string{"name": tc.Function.Name, "arguments": ""}}}}, nil)
		for _, p := range pieces(tc.Function.Arguments, argsPiece) {
			chunk(map[string]any{"tool_calls": []map[string]any{{"index": i, "function": map[string]string{"arguments": p}}}}, nil)
		}
	}
	finish := c.Choices[0].FinishReason
	chunk(map[string]any{}, &finish)
	if usage {
		u := c.Usage
		events = append(events, sseEvent{data: mustJSON(oaiChunk{ID: c.ID, Object: "chat.completion.chunk", Created: c.Created, Model: c.Model,
			ServiceTier: c.ServiceTier, SystemFingerprint: c.SystemFingerprint, Choices: []oaiChunkChoice{}, Usage: &u})})
	}
	if rep.StreamError {
		events = append(events[:len(events)/2], sseEvent{data: mustJSON(map[string]any{"error": map[string]any{
			"message": "The server had an error while processing your request. Sorry about that!", "type": "server_error", "param": nil, "code": nil}})})
		return events, nil
	}
	return append(events, sseEvent{data: []byte("[DONE]")}), nil
}
