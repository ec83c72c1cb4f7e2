// Package trace records what happened inside one attempt at a unit: each model request and
// response, each tool call and its result, each error, in order, with time, usage and latency.
// Subjects write events through a Recorder; the runner stores them with the attempt, including
// when the attempt errors or times out, so a partial trace and what it spent are never lost.
package trace

import (
	"fmt"
	"sync"
	"time"
)

// Kind says what an event is.
type Kind string

// The kinds of event.
const (
	ModelRequest  Kind = "model_request"  // a call about to be sent (Content: the last message)
	ModelResponse Kind = "model_response" // the answer (Content: its text; Usage, Latency, Cost)
	ToolCall      Kind = "tool_call"      // the subject asked a tool (Name, Args)
	ToolResult    Kind = "tool_result"    // what the tool returned (Content: the observation)
	Error         Kind = "error"          // something failed (Content: the reason)
	Note          Kind = "note"           // anything else worth reading (a scanner's command line)
)

// MaxContent bounds the text one event keeps; longer text is cut and says so.
const MaxContent = 64 << 10

// Usage is what one model call consumed.
type Usage struct {
	InputTokens       int64 `json:"input_tokens,omitempty"`
	CachedInputTokens int64 `json:"cached_input_tokens,omitempty"`
	CacheWriteTokens  int64 `json:"cache_write_tokens,omitempty"`
	OutputTokens      int64 `json:"output_tokens,omitempty"`
	ReasoningTokens   int64 `json:"reasoning_tokens,omitempty"`
}

// Event is one step of an attempt.
type Event struct {
	Seq       int       `json:"seq"` // 0, 1, ... in the order recorded
	Time      time.Time `json:"time"`
	Kind      Kind      `json:"kind"`
	Name      string    `json:"name,omitempty"`    // tool name, or model spec
	CallID    string    `json:"call_id,omitempty"` // ties a tool result to its call
	Args      string    `json:"args,omitempty"`    // a tool call's arguments (JSON text)
	Content   string    `json:"content,omitempty"`
	Usage     Usage     `json:"usage,omitzero"`
	CostUSD   *float64  `json:"cost_usd,omitempty"`
	LatencyMS int64     `json:"latency_ms,omitempty"`
	Cached    bool      `json:"cached,omitempty"` // a model answer served from the cache
}

// Recorder takes events as they happen. Implementations are safe for concurrent use.
type Recorder interface {
	Record(e Event)
}

// Buffer is a Recorder that keeps events in memory, numbered in the order they arrive. The runner
// gives each attempt one and stores its events when the attempt ends, whichever way it ends.
type Buffer struct {
	mu     sync.Mutex
	events []Event
}

// NewBuffer returns an empty buffer.
func NewBuffer() *Buffer { return &Buffer{} }

// Record implements Recorder: it numbers and stamps e and cuts its text to MaxContent.
func (b *Buffer) Record(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e.Seq = len(b.events)
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Time = e.Time.UTC()
	e.Content = Cut(e.Content, MaxContent)
	e.Args = Cut(e.Args, MaxContent)
	b.events = append(b.events, e)
}

// Events returns a copy of the events recorded so far.
func (b *Buffer) Events() []Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Event(nil), b.events...)
}

// Cut returns s bounded to n bytes (at a rune boundary), saying how much was cut.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + fmt.Sprintf("\n[... cut: %d more bytes]", len(s)-i)
}

// Discard is a Recorder that keeps nothing.
type Discard struct{}

// Record implements Recorder.
func (Discard) Record(Event) {}
