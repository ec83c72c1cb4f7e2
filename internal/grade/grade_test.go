package grade

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/appsec"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// sqli is a record as the builder writes it: SQL injection, Critical, AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H (9.8).
func sqli() *appsec.Record {
	return &appsec.Record{BenchmarkID: "ASB-000001", Language: "python", Difficulty: appsec.Beginner,
		ExpectedDetection: true, ExpectedCWE: "CWE-89", ExpectedOWASP: "A03:2021", ExpectedSeverity: "Critical",
		ExpectedCVSS: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", Metadata: appsec.RecordMeta{Archetype: "sql-injection"}}
}

func vul(cwe, owasp, sev, vector string) *verdict.Verdict {
	return &verdict.Verdict{Status: verdict.OK, Label: suite.Vul, CWE: []string{cwe},
		AppSec: &verdict.AppSec{OWASP: owasp, Severity: sev, CVSSVector: vector, Exploit: "e", Fix: "f", FixCode: "c"}}
}

func ben() *verdict.Verdict { return &verdict.Verdict{Status: verdict.OK, Label: suite.Ben} }

// scripted is a Judge that answers each part from a table; a missing part is a failed grade.
type scripted map[string]float64

func (s scripted) Judge(_ context.Context, part string, _ *Item) (JudgeScore, error) {
	f, ok := s[part]
	if !ok {
		return JudgeScore{Failed: true, Reason: "unreadable"}, nil
	}
	return JudgeScore{Fraction: f}, nil
}

func TestGradeParts(t *testing.T) {
	g, err := NewGrader()
	if err != nil {
		t.Fatal(err)
	}
	const exact = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"
	tests := []struct {
		name  string
		judge Judge
		it    Item
		want  RecordGrade
	}{
		{
			// 15 + 10 + 10 + 10 + 5 = 50; no judge: the judged parts are not graded.
			name: "perfect automatic parts, no judge",
			it:   Item{Vul: vul("CWE-89", "A03:2021", "Critical", exact), Secure: ben()},
			want: RecordGrade{Points: map[string]float64{Detection: 15, CWE: 10, OWASP: 10, Severity: 10, FPAvoidance: 5},
				Total: 50, GradedMax: 50, CVSS: &CVSSDistance{}},
		},
		{
			// CWE-943 is CWE-89's parent: half of 10. High is one band below Critical: half of 10.
			// Lower-case owasp and severity are read as the names. The secure twin flagged: 0 of 5.
			// AC:H and PR:L differ: 2 fields; 9.8 vs 7.5 → 2.3.
			name: "parent CWE, one band off, flags the fix, two CVSS fields wrong",
			it:   Item{Vul: vul("CWE-943", "a03:2021", "high", "CVSS:3.1/AV:N/AC:H/PR:L/UI:N/S:U/C:H/I:H/A:H"), Secure: vul("CWE-89", "", "", "")},
			want: RecordGrade{Points: map[string]float64{Detection: 15, CWE: 5, OWASP: 10, Severity: 5, FPAvoidance: 0},
				Total: 35, GradedMax: 50, CVSS: &CVSSDistance{FieldsWrong: 2, ScoreError: 9.8 - 7.5}},
		},
		{
			// Two bands off (Medium) earns nothing; a wrong OWASP nothing; an unrelated CWE nothing.
			name: "unrelated CWE, wrong OWASP, two bands off, bad vector",
			it:   Item{Vul: vul("CWE-79", "A01:2021", "Medium", "CVSS:3.1/AV:N"), Secure: ben()},
			want: RecordGrade{Points: map[string]float64{Detection: 15, CWE: 0, OWASP: 0, Severity: 0, FPAvoidance: 5},
				Total: 20, GradedMax: 50, CVSS: &CVSSDistance{Invalid: true}},
		},
		{
			// Judge: exploit 0.8 of 10, fix 0.5 of 20, quality 1.0 of 10, explanation 0.3 of 10 = 8+10+10+3.
			name:  "judged parts add to the automatic ones",
			judge: scripted{Exploit: 0.8, Fix: 0.5, CodeQuality: 1, Explanation: 0.3},
			it:    Item{Vul: vul("CWE-89", "A03:2021", "Critical", exact), Secure: ben()},
			want: RecordGrade{Points: map[string]float64{Detection: 15, CWE: 10, OWASP: 10, Severity: 10, FPAvoidance: 5,
				Exploit: 8, Fix: 10, CodeQuality: 10, Explanation: 3}, Total: 81, GradedMax: 100, CVSS: &CVSSDistance{}},
		},
		{
			// The judge's fix answer could not be read: failed, not 0, and out of GradedMax.
			name:  "malformed judge answer is failed, never a silent 0",
			judge: scripted{Exploit: 1, CodeQuality: 1, Explanation: 1},
			it:    Item{Vul: vul("CWE-89", "A03:2021", "Critical", exact), Secure: ben()},
			want: RecordGrade{Points: map[string]float64{Detection: 15, CWE: 10, OWASP: 10, Severity: 10, FPAvoidance: 5,
				Exploit: 10, CodeQuality: 10, Explanation: 10}, JudgeFailed: []string{Fix}, Total: 80, GradedMax: 80, CVSS: &CVSSDistance{}},
		},
		{
			// Missed: detection 0, classification earns nothing, judged parts 0 without asking.
			name:  "missed weakness",
			judge: scripted{},
			it:    Item{Vul: ben(), Secure: ben()},
			want: RecordGrade{Points: map[string]float64{Detection: 0, CWE: 0, OWASP: 0, Severity: 0, FPAvoidance: 5,
				Exploit: 0, Fix: 0, CodeQuality: 0, Explanation: 0}, Total: 5, GradedMax: 100},
		},
		{
			// No answer on the secure twin: false-positive avoidance is not graded.
			name: "no secure answer",
			it:   Item{Vul: vul("CWE-89", "A03:2021", "Critical", "")},
			want: RecordGrade{Points: map[string]float64{Detection: 15, CWE: 10, OWASP: 10, Severity: 10},
				Total: 45, GradedMax: 45, CVSS: &CVSSDistance{Missing: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gr := *g
			gr.Judge = tt.judge
			it := tt.it
			it.Record = sqli()
			got, err := gr.Grade(context.Background(), &it)
			if err != nil {
				t.Fatal(err)
			}
			tt.want.ID, tt.want.Language, tt.want.Difficulty, tt.want.Archetype = "ASB-000001", "python", "beginner", "sql-injection"
			if diff := cmp.Diff(&tt.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("grade (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGradeNotGraded(t *testing.T) {
	g, _ := NewGrader()
	for _, v := range []*verdict.Verdict{nil, {Status: verdict.Error}} {
		got, err := g.Grade(context.Background(), &Item{Record: sqli(), Vul: v})
		if err != nil || got != nil {
			t.Errorf("verdict %+v: grade %+v, %v; want nil (error and missing verdicts are not graded)", v, got, err)
		}
	}
}

func TestSummarise(t *testing.T) {
	g, _ := NewGrader()
	r1, r2 := sqli(), sqli()
	r2.BenchmarkID, r2.Language, r2.Difficulty = "ASB-000002", "go", appsec.Expert
	j := scripted{Exploit: 1, Fix: 1, CodeQuality: 1, Explanation: 1}
	g.Judge = j
	items := []*Item{
		{Record: r1, Vul: vul("CWE-89", "A03:2021", "Critical", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"), Secure: ben()}, // 100
		{Record: r2, Vul: vul("CWE-79", "A01:2021", "Medium", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:L"), Secure: ben()},   // 15+0+0+0+5+50 = 70
	}
	gs, err := g.GradeAll(context.Background(), items)
	if err != nil {
		t.Fatal(err)
	}
	got := g.Summarise(gs)
	want := &score.AppSec{Records: 2, MeanScore: 0.85, PassRate: 1, GradedMax: 100, MeanGraded: 0.85, PassRateGraded: 1,
		Parts: map[string]float64{Detection: 1, CWE: 0.5, OWASP: 0.5, Severity: 0.5, FPAvoidance: 1, Exploit: 1, Fix: 1, CodeQuality: 1, Explanation: 1},
		// 9.8 vs 9.4 (A:L): one field wrong on the second answer.
		CVSS:         &score.CVSSScore{N: 2, FieldsWrong: 0.5, ScoreMAE: 0.2, Exact: 0.5},
		ByDifficulty: map[string]score.Group{"beginner": {N: 1, MeanScore: 1, PassRate: 1, MeanGraded: 1}, "expert": {N: 1, MeanScore: 0.7, PassRate: 1, MeanGraded: 0.7}},
		ByLanguage:   map[string]score.Group{"python": {N: 1, MeanScore: 1, PassRate: 1, MeanGraded: 1}, "go": {N: 1, MeanScore: 0.7, PassRate: 1, MeanGraded: 0.7}},
		ByArchetype:  map[string]score.Group{"sql-injection": {N: 2, MeanScore: 0.85, PassRate: 1, MeanGraded: 0.85}},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

// failing is a Judge whose call fails for one record: the error of an infrastructure fault.
type failing struct{ id string }

func (f failing) Judge(_ context.Context, _ string, it *Item) (JudgeScore, error) {
	if it.Record.BenchmarkID == f.id {
		return JudgeScore{}, errors.New("provider down")
	}
	return JudgeScore{Fraction: 1}, nil
}

func TestGradeAllKeepsOrderAndStopsOnError(t *testing.T) {
	g, _ := NewGrader()
	g.Concurrency = 4
	var items []*Item
	for i := range 50 {
		r := sqli()
		r.BenchmarkID = fmt.Sprintf("ASB-%06d", i)
		v := vul("CWE-89", "A03:2021", "Critical", "")
		if i%7 == 3 {
			v = nil // not graded: left out
		}
		items = append(items, &Item{Record: r, Vul: v})
	}
	g.Judge = failing{id: "none"}
	gs, err := g.GradeAll(context.Background(), items)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for i, it := range items {
		if it.Vul != nil {
			want = append(want, fmt.Sprintf("ASB-%06d", i))
		}
	}
	for _, rg := range gs {
		got = append(got, rg.ID)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	g.Judge = failing{id: "ASB-000020"}
	if _, err := g.GradeAll(context.Background(), items); err == nil || !strings.Contains(err.Error(), "ASB-000020") || !strings.Contains(err.Error(), "provider down") {
		t.Errorf("error %v, want the failed call's, naming its record", err)
	}
}
