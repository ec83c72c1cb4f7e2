package appsec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/taxonomy"
)

func f(v float64) *float64 { return &v }

func TestGrade(t *testing.T) {
	h, err := taxonomy.LoadHierarchy()
	if err != nil {
		t.Fatal(err)
	}
	g := Grader{Rubric: DefaultRubric(), Hierarchy: h}
	rec := &Record{ExpectedDetection: true, ExpectedCWE: "CWE-89", ExpectedOWASP: "A03:2021", ExpectedSeverity: "Critical"}
	perfect := Answer{Detected: true, CWE: "CWE-89", OWASP: "A03:2021", Severity: "Critical"}
	for _, tc := range []struct {
		name   string
		vul    Answer
		secure *Answer
		want   Grade
	}{
		{
			name: "perfect with secure twin", vul: perfect, secure: &Answer{},
			want: Grade{Detection: f(15), CWE: f(10), OWASP: f(10), Severity: f(10), FalsePositiveAvoidance: f(5),
				Raw: 50, GradedMax: 50, Normalised: 100, Pass: true},
		},
		{
			name: "perfect, no secure answer", vul: perfect,
			want: Grade{Detection: f(15), CWE: f(10), OWASP: f(10), Severity: f(10),
				Raw: 45, GradedMax: 45, Normalised: 100, Pass: true},
		},
		{
			name: "parent CWE, one band off, flags the fix",
			vul:  Answer{Detected: true, CWE: "CWE-943", OWASP: "A03:2021", Severity: "High"}, secure: &Answer{Detected: true},
			want: Grade{Detection: f(15), CWE: f(5), OWASP: f(10), Severity: f(5), FalsePositiveAvoidance: f(0),
				Raw: 35, GradedMax: 50, Normalised: 70, Pass: true},
		},
		{
			name: "unrelated CWE, wrong OWASP, two bands off",
			vul:  Answer{Detected: true, CWE: "CWE-79", OWASP: "A01:2021", Severity: "Medium"}, secure: &Answer{},
			want: Grade{Detection: f(15), CWE: f(0), OWASP: f(0), Severity: f(0), FalsePositiveAvoidance: f(5),
				Raw: 20, GradedMax: 50, Normalised: 40},
		},
		{
			name: "missed: classification earns nothing",
			vul:  Answer{CWE: "CWE-89", OWASP: "A03:2021", Severity: "Critical"}, secure: &Answer{},
			want: Grade{Detection: f(0), CWE: f(0), OWASP: f(0), Severity: f(0), FalsePositiveAvoidance: f(5),
				Raw: 5, GradedMax: 50, Normalised: 10},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, g.Grade(rec, tc.vul, tc.secure)); diff != "" {
				t.Errorf("grade (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRubricWeights(t *testing.T) {
	r := DefaultRubric()
	if r.Total() != 100 || r.PassThreshold != 70 {
		t.Fatalf("total %v pass %v, want 100 and 70", r.Total(), r.PassThreshold)
	}
	// Full marks on every automatic criterion give a raw 50, which does not pass: the
	// judge-graded criteria stay nil until an LLM judge fills them.
	g := Grader{Rubric: r}
	got := g.Grade(&Record{ExpectedDetection: true, ExpectedCWE: "CWE-1", ExpectedOWASP: "A01:2021", ExpectedSeverity: "Low"},
		Answer{Detected: true, CWE: "CWE-1", OWASP: "A01:2021", Severity: "Low"}, &Answer{})
	if got.Raw != 50 || got.RawPass || got.Exploit != nil || got.Fix != nil || got.CodeQuality != nil || got.Explanation != nil {
		t.Errorf("raw %v rawpass %v; exploit/fix/quality/explanation must be nil (not graded): %+v", got.Raw, got.RawPass, got)
	}
}
