package verdict_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/vulnbench/vulnbench/internal/verdict"
	"github.com/vulnbench/vulnbench/schema"
)

// accepted says whether the reader and the schema each accept one predictions line.
type accepted struct{ Reader, Schema bool }

func accepts(t *testing.T, sch *jsonschema.Schema, line string) accepted {
	t.Helper()
	errs := verdict.ReadPredictions(strings.NewReader(line+"\n"), "p.jsonl", nil, nil)
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
	if err != nil {
		t.Fatalf("bad test line %s: %v", line, err)
	}
	return accepted{Reader: len(errs) == 0, Schema: sch.Validate(doc) == nil}
}

// TestSchemaAndReaderAgree: for every field both check, schema/verdict.schema.json accepts a
// predictions line exactly when ReadPredictions does.
func TestSchemaAndReaderAgree(t *testing.T) {
	sch, err := schema.CompileVerdict()
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		// accepted
		`{"case_id": "a", "label": "vul"}`,
		`{"case_id": "a", "label": "ben", "score": 0, "status": "ok", "cwe": ["CWE-787"]}`,
		`{"case_id": "a", "status": "failed", "raw": "?"}`,
		`{"case_id": "a", "status": "error", "reason": "timeout", "usage": {"wall_ms": 3}}`,
		`{"case_id": "a", "label": "vul", "repeat": 3, "attempt": 2, "score": 1, "confidence": 0, "score_source": "logprob"}`,
		`{"case_id": "a", "label": "vul", "score_source": "stated"}`,
		`{"case_id": "a", "label": "vul", "score_source": "tool"}`,
		`{"case_id": "a", "label": "vul", "cwe": ["NVD-CWE-Other", "NVD-CWE-noinfo"]}`,
		`{"case_id": "a", "label": "vul", "findings": [{"file": "f.c", "start_line": 1, "end_line": 9, "function": "f", "rule": "r", "cwe": ["CWE-1"], "severity": "5", "message": "m"}]}`,
		`{"case_id": "a", "label": "vul", "findings": [{"start_line": 0, "end_line": 0}, {}]}`,
		`{"case_id": "a", "label": "vul", "findings": [{"tier": "exact"}, {"tier": "related"}, {"tier": "unrelated"}]}`,
		`{"case_id": "a", "label": "ben", "vex": {"category": "c", "status": "affected", "impact": "i"}}`,
		`{"case_id": "a", "label": "ben", "vex": {"status": "not_affected", "justification": "component_not_present"}}`,
		`{"case_id": "a", "label": "ben", "vex": {"status": "under_investigation", "justification": "vulnerable_code_not_present"}}`,
		`{"case_id": "a", "label": "ben", "vex": {"status": "fixed", "justification": "vulnerable_code_not_in_execute_path"}}`,
		`{"case_id": "a", "label": "ben", "vex": {"justification": "vulnerable_code_cannot_be_controlled_by_adversary"}}`,
		`{"case_id": "a", "label": "ben", "vex": {"justification": "inline_mitigations_already_exist"}}`,
		`{"case_id": "a", "label": "ben", "appsec": {"owasp": "A03:2021", "severity": "high", "cvss_vector": "CVSS:3.1/AV:N", "cvss_error": "incomplete", "exploit": "e", "fix": "f", "fix_code": "c"}}`,
		`{"case_id": "a", "label": "ben", "category": "c", "explanation": "e", "usage": {"input_tokens": 1, "cached_input_tokens": 1, "cache_write_tokens": 1, "output_tokens": 1, "reasoning_tokens": 1, "cost_usd": 0.5, "tool_calls": 1, "calls": 1, "retries": 1, "cache_hits": 1, "wait_ms": 1}}`,
		// refused
		`{"label": "vul"}`,
		`{"case_id": "", "label": "vul"}`,
		`{"case_id": "a"}`,
		`{"case_id": "a", "status": "ok"}`,
		`{"case_id": "a", "status": "maybe", "label": "vul"}`,
		`{"case_id": "a", "label": "yes"}`,
		`{"case_id": "a", "label": "vul", "score": 1.5}`,
		`{"case_id": "a", "label": "vul", "score": -0.1}`,
		`{"case_id": "a", "label": "vul", "score": "0.5"}`,
		`{"case_id": "a", "label": "vul", "confidence": 1.01}`,
		`{"case_id": "a", "label": "vul", "confidence": -1}`,
		`{"case_id": "a", "label": "vul", "repeat": -1}`,
		`{"case_id": "a", "label": "vul", "attempt": -1}`,
		`{"case_id": "a", "label": "vul", "attempt": 1.5}`,
		`{"case_id": "a", "label": "vul", "score_source": "vibes"}`,
		`{"case_id": "a", "label": "vul", "cwe": ["cwe-79"]}`,
		`{"case_id": "a", "label": "vul", "cwe": ["79"]}`,
		`{"case_id": "a", "label": "vul", "cwe": "CWE-79"}`,
		`{"case_id": "a", "label": "vul", "findings": [{"start_line": -1}]}`,
		`{"case_id": "a", "label": "vul", "findings": [{"end_line": -1}]}`,
		`{"case_id": "a", "label": "vul", "findings": [{"cwe": ["CWE-X"]}]}`,
		`{"case_id": "a", "label": "vul", "findings": [{"line": 3}]}`,
		`{"case_id": "a", "label": "vul", "findings": {"file": "f"}}`,
		`{"case_id": "a", "label": "vul", "findings": [{"tier": "none"}]}`,
		`{"case_id": "a", "label": "vul", "findings": [{"tier": "Exact"}]}`,
		`{"case_id": "a", "label": "ben", "vex": {"status": "unaffected"}}`,
		`{"case_id": "a", "label": "ben", "vex": {"justification": "code_not_reachable"}}`,
		`{"case_id": "a", "label": "ben", "vex": {"stauts": "fixed"}}`,
		`{"case_id": "a", "label": "ben", "appsec": {"owasp_id": "A03"}}`,
		`{"case_id": "a", "label": "ben", "usage": {"input_token": 1}}`,
		`{"case_id": "a", "label": "ben", "usage": {"output_tokens": -1}}`,
		`{"case_id": "a", "label": "ben", "usage": {"cost_usd": -0.5}}`,
		`{"case_id": "a", "label": "ben", "prob": 0.3}`,
		`{"case_id": "a", "label": "ben", "trace": "..."}`,
	}
	for _, line := range lines {
		if got := accepts(t, sch, line); got.Reader != got.Schema {
			t.Errorf("%s: reader accepts %v, schema accepts %v", line, got.Reader, got.Schema)
		}
	}
}

// TestSchemaAndReaderDiffer pins the few places where they knowingly differ: the reader decodes
// into Go types (a null or an empty string is the field left out; 1.0 is not an int) and checks
// what JSON Schema cannot say (end_line against start_line).
func TestSchemaAndReaderDiffer(t *testing.T) {
	sch, err := schema.CompileVerdict()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		line string
		want accepted
	}{
		{`{"case_id": "a", "label": "vul", "score": null, "confidence": null, "cwe": null, "findings": null, "vex": null}`, accepted{Reader: true}},
		{`{"case_id": "a", "label": "vul", "status": "", "score_source": ""}`, accepted{Reader: true}},
		{`{"case_id": "a", "status": "failed", "label": ""}`, accepted{Reader: true}},
		{`{"case_id": "a", "label": "vul", "vex": {"status": "", "justification": ""}}`, accepted{Reader: true}},
		{`{"case_id": "a", "label": "vul", "attempt": 1.0}`, accepted{Schema: true}},
		{`{"case_id": "a", "label": "vul", "findings": [{"start_line": 5, "end_line": 2}]}`, accepted{Schema: true}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, accepts(t, sch, tt.line)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.line, diff)
		}
	}
}
