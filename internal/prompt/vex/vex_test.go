package vex_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/prompt/vex"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"category": "code_not_reachable", "reasoning": "only tests call it"}`, "code_not_reachable|only tests call it"},
		{"I looked around.\n```json\n{\"category\": \"Vulnerable\", \"reasoning\": \"main.go:5 calls it\"}\n```\nDone.", "vulnerable|main.go:5 calls it"},
		{`{"note": "x"} then {"category": "requires_environment", "reasoning": ["windows only"]}`, `requires_environment|["windows only"]`},
		{`{"category": "maybe"} {"category": "uncertain", "reasoning": ""}`, "uncertain|"},
		{`{"category": "maybe"}`, "error: category \"maybe\" is not one of false_positive, code_not_present, code_not_reachable, requires_configuration, requires_dependency, requires_environment, compiler_protected, runtime_protected, perimeter_protected, mitigating_control_protected, uncertain, vulnerable"},
		{`the project is fine`, `error: no JSON object with a "category" in the answer`},
		{`{"category": "vulnerable"`, `error: no JSON object with a "category" in the answer`},
	} {
		cat, r, err := vex.ParseAnswer(tc.in)
		got := cat + "|" + r
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != tc.want {
			t.Errorf("ParseAnswer(%q) = %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// Verdict: an answer is ok with its category, vul only for "vulnerable"; an unparseable one is
// failed with the raw text kept.
func TestVerdict(t *testing.T) {
	type row struct {
		Status   verdict.Status
		Label    suite.Label
		Category string
		Raw      string
	}
	for _, tc := range []struct {
		in   string
		want row
	}{
		{`{"category":"vulnerable","reasoning":"main.go calls it"}`, row{verdict.OK, suite.Vul, "vulnerable", ""}},
		{`{"category":"code_not_present","reasoning":"no go.mod names it"}`, row{verdict.OK, suite.Ben, "code_not_present", ""}},
		{`I could not decide.`, row{verdict.Failed, "", "", "I could not decide."}},
	} {
		v := vex.Verdict(tc.in)
		got := row{v.Status, v.Label, "", v.Raw}
		if v.VEX != nil {
			got.Category = v.VEX.Category
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("Verdict(%q) (-want +got):\n%s", tc.in, d)
		}
	}
}
