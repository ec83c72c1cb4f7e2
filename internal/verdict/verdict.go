// Package verdict defines what a subject answers about one case, and the predictions file
// format that carries verdicts in and out of vulnbench.
package verdict

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

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
	CacheWriteTokens  int64    `json:"cache_write_tokens,omitempty"` // prompt tokens written to the provider's cache
	OutputTokens      int64    `json:"output_tokens,omitempty"`
	ReasoningTokens   int64    `json:"reasoning_tokens,omitempty"` // part of OutputTokens the model spent thinking
	CostUSD           *float64 `json:"cost_usd,omitempty"`
	WallMS            int64    `json:"wall_ms,omitempty"`
	ToolCalls         int      `json:"tool_calls,omitempty"`
	Calls             int      `json:"calls,omitempty"`
	Retries           int      `json:"retries,omitempty"`
	CacheHits         int      `json:"cache_hits,omitempty"` // model answers served from the cache
	WaitMS            int64    `json:"wait_ms,omitempty"`    // time spent in backoff and rate-limit waits
}

// Add adds o to u; a cost stays unknown (nil) only while both are.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.CachedInputTokens += o.CachedInputTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.OutputTokens += o.OutputTokens
	u.ReasoningTokens += o.ReasoningTokens
	u.WallMS += o.WallMS
	u.ToolCalls += o.ToolCalls
	u.Calls += o.Calls
	u.Retries += o.Retries
	u.CacheHits += o.CacheHits
	u.WaitMS += o.WaitMS
	if o.CostUSD != nil {
		if u.CostUSD == nil {
			u.CostUSD = Float(0)
		}
		*u.CostUSD += *o.CostUSD
	}
}

// ScoreSource says where a verdict's score came from.
type ScoreSource string

// The sources of a score.
const (
	FromLogprob ScoreSource = "logprob" // the answer token's log-probabilities
	FromStated  ScoreSource = "stated"  // the confidence the model stated in its answer
	FromTool    ScoreSource = "tool"    // a scanner's own measure (a hit's level, a finding count)
)

// Valid reports whether s is empty or one of the three sources.
func (s ScoreSource) Valid() bool {
	return s == "" || s == FromLogprob || s == FromStated || s == FromTool
}

// Finding is one location a subject points at.
type Finding struct {
	File      string   `json:"file,omitempty"`
	StartLine int      `json:"start_line,omitempty"`
	EndLine   int      `json:"end_line,omitempty"`
	Function  string   `json:"function,omitempty"`
	Rule      string   `json:"rule,omitempty"`
	CWE       []string `json:"cwe,omitempty"`
	Severity  string   `json:"severity,omitempty"`
	Message   string   `json:"message,omitempty"`
	// Tier is set when a matcher (internal/sarif) put the finding on the case: how its CWEs agree
	// with the case's, one of TierExact, TierRelated, TierUnrelated. Scores per tier read it.
	Tier string `json:"tier,omitempty"`
}

// The CWE tiers of a matched finding (Finding.Tier), best first.
const (
	TierExact     = "exact"     // a CWE the case has
	TierRelated   = "related"   // an ancestor or descendant of one of the case's in MITRE's tree
	TierUnrelated = "unrelated" // at the case's location, CWEs unrelated or missing
)

// ValidTier reports whether s is empty or one of the three tiers.
func ValidTier(s string) bool {
	return s == "" || s == TierExact || s == TierRelated || s == TierUnrelated
}

// VEX is an answer to "is the project affected by this CVE, and why" (VEX-Bench, OpenVEX).
type VEX struct {
	Category      string `json:"category,omitempty"`      // one of VEX-Bench's ordered categories
	Status        string `json:"status,omitempty"`        // OpenVEX: affected, not_affected, fixed, under_investigation
	Justification string `json:"justification,omitempty"` // OpenVEX justification for not_affected
	Impact        string `json:"impact,omitempty"`        // free text: why
}

// ValidVEXStatus reports whether s is one of OpenVEX's statuses: affected, not_affected, fixed,
// under_investigation.
func ValidVEXStatus(s string) bool {
	switch s {
	case "affected", "not_affected", "fixed", "under_investigation":
		return true
	}
	return false
}

// ValidJustification reports whether s is one of OpenVEX's five justifications for not_affected.
func ValidJustification(s string) bool {
	switch s {
	case "component_not_present", "vulnerable_code_not_present", "vulnerable_code_not_in_execute_path",
		"vulnerable_code_cannot_be_controlled_by_adversary", "inline_mitigations_already_exist":
		return true
	}
	return false
}

// AppSec is the structured part of an AppSecBench answer; detection is the verdict's Label, the
// CWE its CWE[0] and the explanation its Explanation.
type AppSec struct {
	OWASP      string `json:"owasp,omitempty"` // e.g. A03:2021
	Severity   string `json:"severity,omitempty"`
	CVSSVector string `json:"cvss_vector,omitempty"`
	// CVSSError says why CVSSVector, as the subject gave it, is not a CVSS 3.1 vector; the
	// vector is kept as given.
	CVSSError string `json:"cvss_error,omitempty"`
	Exploit   string `json:"exploit,omitempty"`
	Fix       string `json:"fix,omitempty"`      // the fix, described
	FixCode   string `json:"fix_code,omitempty"` // the secure code proposed
}

// Verdict is one subject's answer about one case in one repeat. Attempt numbers the tries at one
// (case, repeat) from 0; every attempt is stored, and the scored verdict of a unit is its latest
// attempt that is not an error.
type Verdict struct {
	CaseID      string      `json:"case_id"`
	Repeat      int         `json:"repeat,omitempty"`
	Attempt     int         `json:"attempt,omitempty"`
	Status      Status      `json:"status"`
	Label       suite.Label `json:"label,omitempty"`
	Score       *float64    `json:"score,omitempty"`
	ScoreSource ScoreSource `json:"score_source,omitempty"`
	Confidence  *float64    `json:"confidence,omitempty"`
	CWE         []string    `json:"cwe,omitempty"`
	Findings    []Finding   `json:"findings,omitempty"`
	VEX         *VEX        `json:"vex,omitempty"`
	AppSec      *AppSec     `json:"appsec,omitempty"`
	Category    string      `json:"category,omitempty"`
	Explanation string      `json:"explanation,omitempty"`
	Reason      string      `json:"reason,omitempty"` // why a verdict failed or errored
	Raw         string      `json:"raw,omitempty"`    // the subject's raw output when it could not be parsed
	Usage       Usage       `json:"usage,omitzero"`
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

// VEXAnswer is the VEX answer of a VEX-Bench category, with its OpenVEX status and
// justification by SPEC section 4's mapping: vulnerable is affected; code_not_present is
// not_affected with component_not_present; code_not_reachable, vulnerable_code_not_in_execute_path;
// the *_protected categories, inline_mitigations_already_exist; uncertain is
// under_investigation; false_positive and requires_* are not_affected with no justification,
// so impact must say why (it defaults to one that names the category).
func VEXAnswer(category, impact string) *VEX {
	v := &VEX{Category: category, Impact: impact}
	switch category {
	case "vulnerable":
		v.Status = "affected"
	case "uncertain":
		v.Status = "under_investigation"
	case "code_not_present":
		v.Status, v.Justification = "not_affected", "component_not_present"
	case "code_not_reachable":
		v.Status, v.Justification = "not_affected", "vulnerable_code_not_in_execute_path"
	case "compiler_protected", "runtime_protected", "perimeter_protected", "mitigating_control_protected":
		v.Status, v.Justification = "not_affected", "inline_mitigations_already_exist"
	default: // false_positive, requires_configuration, requires_dependency, requires_environment
		v.Status = "not_affected"
		if v.Impact == "" {
			v.Impact = "not exploitable here: " + category
		}
	}
	return v
}

// StoppedPrefix begins the reason of a unit stopped by one of its caps (--max-steps,
// --unit-max-tokens, --unit-max-cost, --timeout): such a unit is failed, a wrong answer that
// counts in every score, whatever the subject, and IsStopped finds it to be shown apart.
const StoppedPrefix = "stopped by "

// Stopped is the verdict of a unit a cap stopped: failed, its reason saying which cap.
func Stopped(cap string, u Usage) Verdict {
	return Verdict{Status: Failed, Reason: StoppedPrefix + cap, Usage: u}
}

// IsStopped reports whether v is a unit a cap stopped.
func IsStopped(v Verdict) bool {
	return v.Status == Failed && strings.HasPrefix(v.Reason, StoppedPrefix)
}
