package engine

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// Manifest records what a run needs to be reproduced and rescored. It is stored as JSON with the
// run; keys are stable.
type Manifest struct {
	Version     string         `json:"vulnbench_version"`
	Suite       SuiteRef       `json:"suite"`
	Subject     string         `json:"subject"`
	Config      map[string]any `json:"subject_config,omitempty"`
	Seed        int64          `json:"seed"`
	Repeats     int            `json:"repeats"`
	Concurrency int            `json:"concurrency"`
	Timeout     string         `json:"timeout,omitempty"`
	MinLevel    int            `json:"min_level"`
	LLM         *LLMRef        `json:"llm,omitempty"`
	After       string         `json:"after,omitempty"` // only cases dated after this were run
	Created     time.Time      `json:"created"`
}

// LLMRef is what a model run needs to be resumed the same way. BaseURL has no credentials.
type LLMRef struct {
	Model       string  `json:"model"`
	BaseURL     string  `json:"base_url,omitempty"`
	Prompt      string  `json:"prompt"`
	Temperature float64 `json:"temperature"`
	MaxTokens   int     `json:"max_tokens,omitempty"`
}

// SuiteRef identifies the suite a run judged.
type SuiteRef struct {
	Path  string `json:"path"`
	Hash  string `json:"sha256"`
	Cases int    `json:"cases"`
}

// NewRunID returns a sortable, readable id: the UTC start time and four random hex digits.
func NewRunID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}
