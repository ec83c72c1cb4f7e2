// Package manifest is a run's manifest: what the run needs to be reproduced, resumed and
// rescored, stored as JSON with the run (its keys are stable). It is the one type that is
// written (internal/runner) and read (runner's resume and workers, report, board, export, the
// viewer, the probe's report): no reader re-declares a subset of it. Settings are what readers
// outside a subject kind know of its configuration, typed, as the kind declared them: no
// reader looks a flag up by name.
package manifest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Manifest records what a run needs to be reproduced, resumed and rescored.
type Manifest struct {
	Version        string          `json:"vulnbench_version"`
	Suite          Suite           `json:"suite"`
	Subject        string          `json:"subject"` // the spec, e.g. "llm" or "constant:vul"
	SubjectKind    string          `json:"subject_kind,omitempty"`
	SubjectVersion string          `json:"subject_version,omitempty"`
	Config         json.RawMessage `json:"subject_config,omitempty"` // the kind's typed config
	Describe       map[string]any  `json:"subject_describe,omitempty"`
	// Recorded are the kind's declared settings (subject.Kind's Settings) as the run recorded
	// them; read them with Settings.
	Recorded *Settings `json:"settings,omitempty"`
	// Flags are the subject's flags as given (secrets scrubbed): what a resume configures the
	// kind with again. Only the kind reads them (through its Configure).
	Flags         map[string]string `json:"flags,omitempty"`
	Repeats       int               `json:"repeats"`
	Concurrency   int               `json:"concurrency"`
	Timeout       string            `json:"timeout,omitempty"`
	Limits        *Limits           `json:"limits,omitempty"`
	SkipUnsupport bool              `json:"skip_unsupported,omitempty"`
	After         string            `json:"after,omitempty"` // only cases dated after this were run
	// Sandbox is how external processes ran (--sandbox): bwrap, or none (the host in view);
	// SandboxUnbounded names the sandbox's bounds that did not hold where the run started (no
	// writable memory cgroup, say), each printed under its scores as none is.
	Sandbox          string    `json:"sandbox,omitempty"`
	SandboxUnbounded []string  `json:"sandbox_unbounded,omitempty"`
	Created          time.Time `json:"created"`

	// Wave 1 manifests kept these instead of Flags; they are read on resume.
	Seed     int64   `json:"seed,omitempty"`
	MinLevel int     `json:"min_level,omitempty"`
	LLM      *LLMRef `json:"llm,omitempty"`

	// Raw is the manifest as stored (Read sets it).
	Raw json.RawMessage `json:"-"`
}

// Settings are what readers other than a subject kind know of its configuration: the kind
// declares them from its typed config (subject.Kind's Settings), the runner records them. Zero
// values mean "does not apply".
type Settings struct {
	Model     string `json:"model,omitempty"`      // PROVIDER:MODEL
	BaseURL   string `json:"base_url,omitempty"`   // the model's server, secrets scrubbed
	CacheTag  string `json:"cache_tag,omitempty"`  // the response cache's namespace
	MaxTokens int    `json:"max_tokens,omitempty"` // the answer budget (0: the provider's)
	RPM       int    `json:"rpm,omitempty"`        // requests per minute (0: the provider's)
	// Prompt is the prompting strategy (vanilla, cot, fs, cot+fs); "" where none applies.
	Prompt string `json:"prompt,omitempty"`
	// PromptKinds are the case kinds the strategy applies to; nil: every kind the subject judges.
	PromptKinds []string `json:"prompt_kinds,omitempty"`
	// Harness is the agent program a model runs in (an agent CLI and its pinned version).
	Harness string `json:"harness,omitempty"`
	// Effort is the reasoning effort (--effort: minimal ... xhigh, in the provider's or the agent
	// CLI's own setting); "default" for an agent CLI left at its own, "" a model's provider's.
	Effort string `json:"effort,omitempty"`
	// Batch says the model calls go through the provider's batch API (run --batch).
	Batch bool `json:"batch,omitempty"`
	// Seed is the seed of a subject that draws random numbers; nil: it draws none.
	Seed *int64 `json:"seed,omitempty"`
}

// PromptOn is the prompting strategy as it applies to cases of kind: "" when none does.
func (s Settings) PromptOn(kind string) string {
	if len(s.PromptKinds) > 0 && !slices.Contains(s.PromptKinds, kind) {
		return ""
	}
	return s.Prompt
}

// Limits are a run's limits per attempt (subject.Limits as recorded); 0 means no limit.
type Limits struct {
	Steps   int
	Tokens  int64
	CostUSD float64
	Wall    time.Duration
}

// LLMRef is how wave 1 recorded a model run's settings.
type LLMRef struct {
	Model       string  `json:"model"`
	BaseURL     string  `json:"base_url,omitempty"`
	Prompt      string  `json:"prompt"`
	Temperature float64 `json:"temperature"`
	MaxTokens   int     `json:"max_tokens,omitempty"`
}

// Suite identifies the suite a run judged.
type Suite struct {
	Path  string `json:"path"`
	Hash  string `json:"sha256"`
	Cases int    `json:"cases"`
	// Lossy says it was read with --lossy-utf8 (bytes not UTF-8 as U+FFFD): a resume reads it so.
	Lossy bool `json:"lossy_utf8,omitempty"`
}

// Read decodes a stored manifest; runID names it in the error. A manifest written before
// settings were recorded gets them from what it recorded instead (Flags, or wave 1's LLM).
func Read(runID string, raw []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("run %s: unreadable manifest: %w", runID, err)
	}
	m.Raw = raw
	if m.Recorded == nil {
		s := m.legacySettings()
		m.Recorded = &s
	}
	return &m, nil
}

// Settings are the run's settings: those recorded, those of an older manifest as Read found
// them, or none.
func (m *Manifest) Settings() Settings {
	if m == nil || m.Recorded == nil {
		return Settings{}
	}
	return *m.Recorded
}

// FlagValues returns the subject flags a run started with, from Flags or, for a wave-1
// manifest, from its fields: what a resume configures the kind with again.
func (m *Manifest) FlagValues() map[string]string {
	if m.Flags != nil {
		return m.Flags
	}
	f := map[string]string{"seed": strconv.FormatInt(m.Seed, 10), "min-level": strconv.Itoa(m.MinLevel)}
	if r := m.LLM; r != nil {
		f["model"], f["base-url"], f["prompt"] = r.Model, r.BaseURL, r.Prompt
		f["temperature"] = strconv.FormatFloat(r.Temperature, 'g', -1, 64)
		f["max-tokens"] = strconv.Itoa(r.MaxTokens)
	}
	return f
}

// legacySettings are the settings of a manifest written before they were recorded: the model
// flags every model kind shared then, read from the flags it recorded (or wave 1's fields).
// The one place outside the kinds that reads flags by name, for manifests of old runs.
func (m *Manifest) legacySettings() Settings {
	f := m.FlagValues()
	s := Settings{Model: f["model"], BaseURL: f["base-url"], CacheTag: f["cache-tag"], Prompt: f["prompt"]}
	s.MaxTokens, _ = strconv.Atoi(f["max-tokens"])
	s.RPM, _ = strconv.Atoi(f["rpm"])
	s.Batch, _ = strconv.ParseBool(f["batch"])
	if v, err := strconv.ParseInt(f["seed"], 10, 64); err == nil && (m.Flags == nil || m.Flags["seed"] != "") {
		s.Seed = &v
	}
	return s
}
