package runner

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
)

// Manifest records what a run needs to be reproduced, resumed and rescored. It is stored as JSON
// with the run; keys are stable.
type Manifest struct {
	Version        string            `json:"vulnbench_version"`
	Suite          SuiteRef          `json:"suite"`
	Subject        string            `json:"subject"` // the spec, e.g. "llm" or "constant:vul"
	SubjectKind    string            `json:"subject_kind,omitempty"`
	SubjectVersion string            `json:"subject_version,omitempty"`
	Config         json.RawMessage   `json:"subject_config,omitempty"` // the kind's typed config
	Describe       map[string]any    `json:"subject_describe,omitempty"`
	Flags          map[string]string `json:"flags,omitempty"` // the subject's flags as given (secrets scrubbed)
	Repeats        int               `json:"repeats"`
	Concurrency    int               `json:"concurrency"`
	Timeout        string            `json:"timeout,omitempty"`
	Limits         *subject.Limits   `json:"limits,omitempty"`
	SkipUnsupport  bool              `json:"skip_unsupported,omitempty"`
	After          string            `json:"after,omitempty"` // only cases dated after this were run
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
}

// LLMRef is how wave 1 recorded a model run's settings.
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
	// Lossy says it was read with --lossy-utf8 (bytes not UTF-8 as U+FFFD): a resume reads it so.
	Lossy bool `json:"lossy_utf8,omitempty"`
}

// FlagValues returns the subject flags a run started with, from Flags or, for a wave-1
// manifest, from its fields.
func (m *Manifest) FlagValues() map[string]string {
	if m.Flags != nil {
		return m.Flags
	}
	f := map[string]string{"seed": itoa64(m.Seed), "min-level": itoa64(int64(m.MinLevel))}
	if r := m.LLM; r != nil {
		f["model"], f["base-url"], f["prompt"] = r.Model, r.BaseURL, r.Prompt
		f["temperature"] = ftoa(r.Temperature)
		f["max-tokens"] = itoa64(int64(r.MaxTokens))
	}
	return f
}

// NewRunID returns a sortable, readable id: the UTC start time and four random hex digits.
func NewRunID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// ReadManifest decodes a stored run's manifest.
func ReadManifest(r *store.Run) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(r.Manifest, &m); err != nil {
		return nil, fmt.Errorf("run %s: unreadable manifest: %w", r.ID, err)
	}
	return &m, nil
}

// checkVersion refuses to do units of run id with a subject kind of another version than the
// one it started with: its verdicts would mix two subjects. The one check of a local resume and
// of River's workers.
func checkVersion(id string, man *Manifest, fac subject.Factory) error {
	if man.SubjectVersion == "" || fac.Version == man.SubjectVersion {
		return nil
	}
	return fmt.Errorf("run %s: its subject %s is version %s, this vulnbench has version %s: use vulnbench %s (or a worker of that version) for this run",
		id, fac.Name, man.SubjectVersion, fac.Version, man.Version)
}

// checkSandbox refuses to do units of run id, which started with --sandbox bwrap, on a host
// whose external processes run with --sandbox none: its cases' code would see the whole host.
// (A run started with none may go on in bwrap: that only takes the host out of view.)
func checkSandbox(id string, man *Manifest, sb *sandbox.Sandbox) error {
	if man.Sandbox != string(sandbox.ModeBwrap) || sb == nil || sb.Isolates() {
		return nil
	}
	return fmt.Errorf("run %s runs its external processes in the bwrap sandbox, and --sandbox none here would show them the whole host: drop --sandbox none (its units need bubblewrap on this host)", id)
}
