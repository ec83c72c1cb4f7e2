package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// problems validates one JSON document and returns one "at /PATH: message" per failing leaf,
// sorted; none (an empty list) when it is valid.
func problems(t *testing.T, s *jsonschema.Schema, line string) []string {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
	if err != nil {
		t.Fatalf("bad test line %s: %v", line, err)
	}
	out := []string{}
	err = s.Validate(doc)
	if err == nil {
		return out
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("validate: %v", err)
	}
	p := message.NewPrinter(language.English)
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, fmt.Sprintf("at /%s: %s", strings.Join(e.InstanceLocation, "/"), e.ErrorKind.LocalizedString(p)))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(out)
	return slices.Compact(out)
}

// full is a line with every field of a verdict set.
const full = `{"case_id": "a1", "repeat": 2, "attempt": 1, "status": "ok", "label": "vul", "score": 0.91,
 "score_source": "logprob", "confidence": 0.8, "cwe": ["CWE-476", "NVD-CWE-Other"],
 "findings": [{"file": "src/a.c", "start_line": 10, "end_line": 12, "function": "f", "rule": "strcpy",
   "cwe": ["CWE-120"], "severity": "4", "message": "strcpy (level 4)"}, {"rule": "gets"}],
 "vex": {"category": "code_not_reachable", "status": "not_affected", "justification": "vulnerable_code_not_in_execute_path", "impact": "never called"},
 "appsec": {"owasp": "A03:2021", "severity": "high", "cvss_vector": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "exploit": "'; DROP TABLE", "fix": "bind parameters"},
 "category": "x", "explanation": "why", "reason": "", "raw": "",
 "usage": {"input_tokens": 1, "cached_input_tokens": 2, "cache_write_tokens": 3, "output_tokens": 4, "reasoning_tokens": 2,
   "cost_usd": 0.01, "wall_ms": 5, "tool_calls": 6, "calls": 7, "retries": 8, "cache_hits": 9, "wait_ms": 10}}`

func TestVerdictSchema(t *testing.T) {
	s, err := CompileVerdict()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		line string
		want []string
	}{
		{name: "every field", line: full, want: []string{}},
		{name: "wave 1: label and score", line: `{"case_id": "a1", "label": "vul", "score": 0.9}`, want: []string{}},
		{name: "wave 1: every field", line: `{"case_id": "a1", "repeat": 1, "label": "ben", "score": 0, "cwe": ["CWE-787"], "status": "ok", "category": "x", "explanation": "e", "usage": {"input_tokens": 10}}`, want: []string{}},
		{name: "wave 1: failed without label", line: `{"case_id": "c1", "status": "failed", "raw": "maybe?"}`, want: []string{}},
		{name: "wave 1: error", line: `{"case_id": "d", "status": "error", "reason": "timeout"}`, want: []string{}},
		{name: "stated confidence, no score", line: `{"case_id": "a1", "label": "vul", "confidence": 0.9, "score_source": "stated"}`, want: []string{}},
		{name: "lines unknown (0) and a one-line finding", line: `{"case_id": "a", "label": "vul", "findings": [{"start_line": 0, "end_line": 0}, {"start_line": 3, "end_line": 3}]}`, want: []string{}},
		{name: "empty vex, appsec and lists", line: `{"case_id": "a", "label": "vul", "vex": {}, "appsec": {}, "findings": [], "cwe": []}`, want: []string{}},

		{name: "no case_id", line: `{"label": "vul"}`, want: []string{"at /: missing property 'case_id'"}},
		{name: "empty case_id", line: `{"case_id": "", "label": "vul"}`, want: []string{"at /case_id: minLength: got 0, want 1"}},
		{name: "ok without label", line: `{"case_id": "a"}`, want: []string{"at /: missing property 'label'"}},
		{name: "explicit ok without label", line: `{"case_id": "a", "status": "ok"}`, want: []string{"at /: missing property 'label'"}},
		{name: "bad status and label", line: `{"case_id": "a", "status": "maybe", "label": "yes"}`, want: []string{
			"at /label: value must be one of 'vul', 'ben'",
			"at /status: value must be one of 'ok', 'failed', 'error'"}},
		{name: "score and confidence out of range", line: `{"case_id": "a", "label": "vul", "score": 1.5, "confidence": -0.1}`, want: []string{
			"at /confidence: minimum: got -0.1, want 0",
			"at /score: maximum: got 1.5, want 1"}},
		{name: "score as a string", line: `{"case_id": "a", "label": "vul", "score": "0.3"}`, want: []string{"at /score: got string, want number"}},
		{name: "negative repeat and attempt", line: `{"case_id": "a", "label": "vul", "repeat": -1, "attempt": -2}`, want: []string{
			"at /attempt: minimum: got -2, want 0",
			"at /repeat: minimum: got -1, want 0"}},
		{name: "fractional attempt", line: `{"case_id": "a", "label": "vul", "attempt": 1.5}`, want: []string{"at /attempt: got number, want integer"}},
		{name: "bad score_source", line: `{"case_id": "a", "label": "vul", "score_source": "vibes"}`, want: []string{
			"at /score_source: value must be one of 'logprob', 'stated', 'tool'"}},
		{name: "bad cwe", line: `{"case_id": "a", "label": "vul", "cwe": ["CWE-79", "cwe-79", "79"]}`, want: []string{
			"at /cwe/1: 'cwe-79' does not match pattern '^(CWE-[0-9]+|NVD-CWE-Other|NVD-CWE-noinfo)$'",
			"at /cwe/2: '79' does not match pattern '^(CWE-[0-9]+|NVD-CWE-Other|NVD-CWE-noinfo)$'"}},
		{name: "bad finding", line: `{"case_id": "a", "label": "vul", "findings": [{"rule": "r"}, {"start_line": -1, "end_line": 2.5, "cwe": ["X"], "line": 3}]}`, want: []string{
			"at /findings/1/cwe/0: 'X' does not match pattern '^(CWE-[0-9]+|NVD-CWE-Other|NVD-CWE-noinfo)$'",
			"at /findings/1/end_line: got number, want integer",
			"at /findings/1/start_line: minimum: got -1, want 0",
			"at /findings/1: additional properties 'line' not allowed"}},
		{name: "bad vex", line: `{"case_id": "a", "label": "ben", "vex": {"status": "unaffected", "justification": "code_not_reachable", "reachable": false}}`, want: []string{
			"at /vex/justification: value must be one of 'component_not_present', 'vulnerable_code_not_present', 'vulnerable_code_not_in_execute_path', 'vulnerable_code_cannot_be_controlled_by_adversary', 'inline_mitigations_already_exist'",
			"at /vex/status: value must be one of 'affected', 'not_affected', 'fixed', 'under_investigation'",
			"at /vex: additional properties 'reachable' not allowed"}},
		{name: "misspelt fields at every level", line: `{"case_id": "a", "label": "vul", "prob": 0.3, "appsec": {"owasp_id": "A03"}, "usage": {"input_token": 1}}`, want: []string{
			"at /: additional properties 'prob' not allowed",
			"at /appsec: additional properties 'owasp_id' not allowed",
			"at /usage: additional properties 'input_token' not allowed"}},
		{name: "negative usage", line: `{"case_id": "a", "label": "vul", "usage": {"output_tokens": -1, "cost_usd": -0.5}}`, want: []string{
			"at /usage/cost_usd: minimum: got -0.5, want 0",
			"at /usage/output_tokens: minimum: got -1, want 0"}},
		{name: "the old trace field", line: `{"case_id": "a", "label": "vul", "trace": "..."}`, want: []string{"at /: additional properties 'trace' not allowed"}},
		{name: "not an object", line: `["case_id"]`, want: []string{"at /: got array, want object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, problems(t, s, tt.line)); diff != "" {
				t.Errorf("%s\nproblems (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

// TestSchemasCompile: each embedded schema compiles under the $id it declares.
func TestSchemasCompile(t *testing.T) {
	for _, tt := range []struct {
		name    string
		data    []byte
		compile func() (*jsonschema.Schema, error)
	}{
		{"case", CaseSchema(), CompileCase},
		{"verdict", VerdictSchema(), CompileVerdict},
	} {
		if _, err := tt.compile(); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		var head struct {
			ID string `json:"$id"`
		}
		if err := json.NewDecoder(bytes.NewReader(tt.data)).Decode(&head); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if want := "https://vulnbench.dev/schema/" + tt.name + ".schema.json"; head.ID != want {
			t.Errorf("%s: $id %q, want %q", tt.name, head.ID, want)
		}
	}
}
