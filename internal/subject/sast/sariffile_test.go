package sast_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/sast"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func TestSARIFFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tool.sarif")
	doc := `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t","version":"3","rules":[{"id":"bof","properties":{"tags":["external/cwe/cwe-119"]}}]}},
	"results":[{"ruleId":"bof","message":{"text":"overflow"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"file:///ci/repo/src/a.c"},"region":{"startLine":12}}}]},
	           {"ruleId":"bof","message":{"text":"elsewhere"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"src/b.c"},"region":{"startLine":99}}}]}]}]}`
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := sast.LoadSARIF(sast.SARIFConfig{File: file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		c    *suite.Case
		want verdict.Verdict
	}{
		{"finding in the function", &suite.Case{ID: "a", CWE: []string{"CWE-787"}, Target: &suite.Target{File: "src/a.c", Line: 10, EndLine: 20}},
			verdict.Verdict{Status: verdict.OK, Label: suite.Vul, Score: verdict.Float(1), ScoreSource: verdict.FromTool, CWE: []string{"CWE-119"},
				Findings:    []verdict.Finding{{File: "/ci/repo/src/a.c", StartLine: 12, EndLine: 12, Rule: "bof", CWE: []string{"CWE-119"}, Severity: "warning", Message: "overflow", Tier: verdict.TierRelated}},
				Explanation: "1 findings at src/a.c:10-20; best CWE tier related (matcher 1)"}},
		{"finding outside the function", &suite.Case{ID: "b", Target: &suite.Target{File: "src/b.c", Line: 10, EndLine: 20}},
			verdict.Verdict{Status: verdict.OK, Label: suite.Ben, Score: verdict.Float(0), ScoreSource: verdict.FromTool, Explanation: "no finding at src/b.c:10-20 (matcher 1)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Assess(context.Background(), subject.Unit{Case: tt.c}, subject.NewEnv(subject.EnvOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("verdict (-want +got):\n%s", d)
			}
		})
	}
	if _, err := s.Assess(context.Background(), subject.Unit{Case: &suite.Case{ID: "c", Code: "x"}}, subject.NewEnv(subject.EnvOptions{})); err == nil {
		t.Error("a case without a file was judged")
	}
	if _, err := sast.LoadSARIF(sast.SARIFConfig{File: filepath.Join(t.TempDir(), "none.sarif")}, nil); err == nil {
		t.Error("a missing file was loaded")
	}
}
