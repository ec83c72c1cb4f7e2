package grade

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/suite/appsec"
	"github.com/vulnbench/vulnbench/internal/taxonomy"
)

func fp(v float64) *float64 { return &v }

func TestAutomatic(t *testing.T) {
	h, err := taxonomy.LoadHierarchy()
	if err != nil {
		t.Fatal(err)
	}
	rec := &appsec.Record{ExpectedDetection: true, ExpectedCWE: "CWE-89", ExpectedOWASP: "A03:2021", ExpectedSeverity: "Critical"}
	perfect := Answer{Detected: true, CWE: "CWE-89", OWASP: "A03:2021", Severity: "Critical"}
	for _, tc := range []struct {
		name   string
		vul    Answer
		secure *Answer
		want   Rubric
	}{
		{
			name: "perfect with secure twin", vul: perfect, secure: &Answer{},
			want: Rubric{Detection: fp(15), CWE: fp(10), OWASP: fp(10), Severity: fp(10), FalsePositiveAvoidance: fp(5),
				Raw: 50, GradedMax: 50, Normalised: 100, Pass: true},
		},
		{
			name: "perfect, no secure answer", vul: perfect,
			want: Rubric{Detection: fp(15), CWE: fp(10), OWASP: fp(10), Severity: fp(10),
				Raw: 45, GradedMax: 45, Normalised: 100, Pass: true},
		},
		{
			name: "parent CWE, one band off, flags the fix",
			vul:  Answer{Detected: true, CWE: "CWE-943", OWASP: "A03:2021", Severity: "High"}, secure: &Answer{Detected: true},
			want: Rubric{Detection: fp(15), CWE: fp(5), OWASP: fp(10), Severity: fp(5), FalsePositiveAvoidance: fp(0),
				Raw: 35, GradedMax: 50, Normalised: 70, Pass: true},
		},
		{
			name: "unrelated CWE, wrong OWASP, two bands off",
			vul:  Answer{Detected: true, CWE: "CWE-79", OWASP: "A01:2021", Severity: "Medium"}, secure: &Answer{},
			want: Rubric{Detection: fp(15), CWE: fp(0), OWASP: fp(0), Severity: fp(0), FalsePositiveAvoidance: fp(5),
				Raw: 20, GradedMax: 50, Normalised: 40},
		},
		{
			name: "missed: classification earns nothing",
			vul:  Answer{CWE: "CWE-89", OWASP: "A03:2021", Severity: "Critical"}, secure: &Answer{},
			want: Rubric{Detection: fp(0), CWE: fp(0), OWASP: fp(0), Severity: fp(0), FalsePositiveAvoidance: fp(5),
				Raw: 5, GradedMax: 50, Normalised: 10},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Automatic(appsec.DefaultRubric(), h, rec, tc.vul, tc.secure)); diff != "" {
				t.Errorf("grade (-want +got):\n%s", diff)
			}
		})
	}
}

// Full marks on every automatic criterion give a raw 50, which does not pass: the judge-graded
// criteria stay nil until an LLM judge fills them.
func TestAutomaticLeavesJudgedParts(t *testing.T) {
	r := appsec.DefaultRubric()
	got := Automatic(r, nil, &appsec.Record{ExpectedDetection: true, ExpectedCWE: "CWE-1", ExpectedOWASP: "A01:2021", ExpectedSeverity: "Low"},
		Answer{Detected: true, CWE: "CWE-1", OWASP: "A01:2021", Severity: "Low"}, &Answer{})
	if got.Raw != 50 || got.RawPass || got.Exploit != nil || got.Fix != nil || got.CodeQuality != nil || got.Explanation != nil {
		t.Errorf("raw %v rawpass %v; exploit/fix/quality/explanation must be nil (not graded): %+v", got.Raw, got.RawPass, got)
	}
}
