package sarif_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/sarif"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func fnCase(id, file string, line, end int, cwe ...string) *suite.Case {
	return &suite.Case{ID: id, Kind: suite.KindFunction, CWE: cwe, Target: &suite.Target{File: file, Line: line, EndLine: end}}
}

func TestMatch(t *testing.T) {
	m, err := sarif.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	at := func(file string, s, e int, cwe ...string) verdict.Finding {
		return verdict.Finding{File: file, StartLine: s, EndLine: e, CWE: cwe}
	}
	tests := []struct {
		name     string
		cases    []*suite.Case
		findings []verdict.Finding
		want     []sarif.CaseMatch
	}{
		{"exact file, line inside, exact CWE", []*suite.Case{fnCase("a", "src/x.c", 10, 20, "CWE-787")},
			[]verdict.Finding{at("src/x.c", 15, 15, "CWE-787")}, []sarif.CaseMatch{{Case: "a", Findings: []int{0}, Tier: sarif.Exact}}},
		{"suffix: finding's absolute path ends with the case file", []*suite.Case{fnCase("a", "src/x.c", 10, 20, "CWE-787")},
			[]verdict.Finding{at("/home/ci/repo/src/x.c", 12, 12, "CWE-119")}, []sarif.CaseMatch{{Case: "a", Findings: []int{0}, Tier: sarif.Related}}},
		{"suffix: case path ends with the finding's file", []*suite.Case{fnCase("a", "proj/src/x.c", 10, 20, "CWE-787")},
			[]verdict.Finding{at("src/x.c", 12, 12, "CWE-120")}, []sarif.CaseMatch{{Case: "a", Findings: []int{0}, Tier: sarif.Related}}},
		{"suffix not at a path boundary", []*suite.Case{fnCase("a", "a/x.c", 10, 20)},
			[]verdict.Finding{at("src/ba/x.c", 12, 12)}, []sarif.CaseMatch{{Case: "a"}}},
		{"ambiguous suffix matches neither", []*suite.Case{fnCase("a", "lib/x.c", 1, 50), fnCase("b", "src/x.c", 1, 50)},
			[]verdict.Finding{at("x.c", 12, 12)}, []sarif.CaseMatch{{Case: "a"}, {Case: "b"}}},
		{"line outside the span", []*suite.Case{fnCase("a", "src/x.c", 10, 20)},
			[]verdict.Finding{at("src/x.c", 21, 21), at("src/x.c", 9, 9)}, []sarif.CaseMatch{{Case: "a"}}},
		{"region overlapping the span's start and end", []*suite.Case{fnCase("a", "src/x.c", 10, 20)},
			[]verdict.Finding{at("src/x.c", 5, 10), at("src/x.c", 20, 30), at("src/x.c", 1, 40)}, []sarif.CaseMatch{{Case: "a", Findings: []int{0, 1, 2}, Tier: sarif.Unrelated}}},
		{"unrelated CWE", []*suite.Case{fnCase("a", "src/x.c", 10, 20, "CWE-787")},
			[]verdict.Finding{at("src/x.c", 11, 11, "CWE-89")}, []sarif.CaseMatch{{Case: "a", Findings: []int{0}, Tier: sarif.Unrelated}}},
		{"finding without a location", []*suite.Case{fnCase("a", "src/x.c", 10, 20, "CWE-787")},
			[]verdict.Finding{{CWE: []string{"CWE-787"}}}, []sarif.CaseMatch{{Case: "a"}}},
		{"file but no lines meets only a case without lines", []*suite.Case{fnCase("a", "src/x.c", 10, 20), fnCase("b", "src/y.c", 0, 0)},
			[]verdict.Finding{{File: "src/x.c"}, {File: "src/y.c"}}, []sarif.CaseMatch{{Case: "a"}, {Case: "b", Findings: []int{1}, Tier: sarif.Unrelated}}},
		{"two findings on one case: the best tier wins", []*suite.Case{fnCase("a", "src/x.c", 10, 20, "CWE-89")},
			[]verdict.Finding{at("src/x.c", 11, 11, "CWE-79"), at("src/x.c", 12, 13, "CWE-89")}, []sarif.CaseMatch{{Case: "a", Findings: []int{0, 1}, Tier: sarif.Exact}}},
		{"target line only: a one-line span", []*suite.Case{fnCase("a", "src/x.c", 10, 0)},
			[]verdict.Finding{at("src/x.c", 10, 10), at("src/x.c", 11, 11)}, []sarif.CaseMatch{{Case: "a", Findings: []int{0}, Tier: sarif.Unrelated}}},
		{"case without a file matches nothing", []*suite.Case{{ID: "a", Kind: suite.KindFunction}},
			[]verdict.Finding{at("src/x.c", 10, 10)}, []sarif.CaseMatch{{Case: "a"}}},
		{"repo path when there is no target", []*suite.Case{{ID: "a", Kind: suite.KindAppSec, Repo: &suite.Repo{Path: "app/views.py"}}},
			[]verdict.Finding{at("app/views.py", 3, 3)}, []sarif.CaseMatch{{Case: "a", Findings: []int{0}, Tier: sarif.Unrelated}}},
		{"file:/// URI against a relative case file", []*suite.Case{fnCase("a", "src/x.c", 1, 5)},
			[]verdict.Finding{at(sarif.NormalizePath("file:///C:/w/src/x.c"), 2, 2)}, []sarif.CaseMatch{{Case: "a", Findings: []int{0}, Tier: sarif.Unrelated}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := m.Match(tt.cases, tt.findings)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("matches (-want +got):\n%s", d)
			}
		})
	}
}

func TestTierVul(t *testing.T) {
	m, err := sarif.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		finding, cas []string
		want         sarif.Tier
	}{
		{[]string{"CWE-787"}, []string{"CWE-787"}, sarif.Exact},
		{[]string{"CWE-119"}, []string{"CWE-787"}, sarif.Related}, // ancestor
		{[]string{"CWE-120"}, []string{"CWE-119"}, sarif.Related}, // grandchild
		{[]string{"CWE-78"}, []string{"CWE-89"}, sarif.Unrelated}, // cousins under CWE-74
		{nil, []string{"CWE-89"}, sarif.Unrelated},
		{[]string{"CWE-89"}, nil, sarif.Unrelated},
	}
	for _, tt := range tests {
		if got := m.TierOf(tt.finding, tt.cas); got != tt.want {
			t.Errorf("TierOf(%v, %v) = %v, want %v", tt.finding, tt.cas, got, tt.want)
		}
	}
	cm := sarif.CaseMatch{Tier: sarif.Related}
	got := []bool{cm.Vul(sarif.Unrelated), cm.Vul(sarif.Related), cm.Vul(sarif.Exact), sarif.CaseMatch{}.Vul(sarif.NoMatch)}
	if d := cmp.Diff([]bool{true, true, false, false}, got); d != "" {
		t.Errorf("Vul at unrelated, related, exact; no match (-want +got):\n%s", d)
	}
}

// BenchmarkMatch matches 100,000 findings to 10,000 cases (1,000 files of 10 functions each).
func BenchmarkMatch(b *testing.B) {
	m, err := sarif.NewMatcher()
	if err != nil {
		b.Fatal(err)
	}
	cases := make([]*suite.Case, 10000)
	for i := range cases {
		cases[i] = fnCase(fmt.Sprint(i), fmt.Sprintf("src/d%d/f%d.c", i/1000, i/10), (i%10)*100+1, (i%10)*100+80, "CWE-787")
	}
	findings := make([]verdict.Finding, 100000)
	for i := range findings {
		c := i % 10000
		findings[i] = verdict.Finding{File: fmt.Sprintf("/ci/repo/src/d%d/f%d.c", c/1000, c/10), StartLine: (c%10)*100 + i%97 + 1, CWE: []string{"CWE-119"}}
		findings[i].EndLine = findings[i].StartLine
	}
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		m.Match(cases, findings)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/match")
}
