// Package verdict defines what a subject answers about one case, and the predictions file
// format that carries verdicts in and out of vulnbench.
package verdict

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// Status says whether a verdict is a real answer.
type Status string

// The statuses.
const (
	// OK: the subject answered and the answer was understood.
	OK Status = "ok"
	// Failed: the subject answered, but the answer could not be parsed or was invalid. A real,
	// scored outcome.
	Failed Status = "failed"
	// Error: an infrastructure fault (timeout, crash, provider down). Reported apart, never scored.
	Error Status = "error"
)

// Valid reports whether s is one of the three statuses.
func (s Status) Valid() bool { return s == OK || s == Failed || s == Error }

// Usage is what producing a verdict consumed.
type Usage struct {
	InputTokens       int64    `json:"input_tokens,omitempty"`
	CachedInputTokens int64    `json:"cached_input_tokens,omitempty"`
	OutputTokens      int64    `json:"output_tokens,omitempty"`
	CostUSD           *float64 `json:"cost_usd,omitempty"`
	WallMS            int64    `json:"wall_ms,omitempty"`
	ToolCalls         int      `json:"tool_calls,omitempty"`
	Calls             int      `json:"calls,omitempty"`
	Retries           int      `json:"retries,omitempty"`
	CacheHits         int      `json:"cache_hits,omitempty"` // model answers served from the cache
	WaitMS            int64    `json:"wait_ms,omitempty"`    // time spent in backoff and rate-limit waits
}

// Verdict is one subject's answer about one case in one repeat.
type Verdict struct {
	CaseID      string          `json:"case_id"`
	Repeat      int             `json:"repeat,omitempty"`
	Status      Status          `json:"status"`
	Label       suite.Label     `json:"label,omitempty"`
	Score       *float64        `json:"score,omitempty"`
	CWE         []string        `json:"cwe,omitempty"`
	Category    string          `json:"category,omitempty"`
	Explanation string          `json:"explanation,omitempty"`
	Reason      string          `json:"reason,omitempty"` // why a verdict failed or errored
	Raw         string          `json:"raw,omitempty"`    // the subject's raw output when it could not be parsed
	Usage       Usage           `json:"usage,omitzero"`
	Trace       json.RawMessage `json:"trace,omitempty"`
}

// Float returns a pointer to f, for Score and CostUSD.
func Float(f float64) *float64 { return &f }

// WriteJSONL writes verdicts as predictions JSONL, one object a line.
func WriteJSONL(w io.Writer, vs []Verdict) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range vs {
		if err := enc.Encode(&vs[i]); err != nil {
			return fmt.Errorf("write predictions: %w", err)
		}
	}
	return bw.Flush()
}
