package sast_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/sast"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func TestParseFlawfinderCSV(t *testing.T) {
	in := `File,Line,Column,DefaultLevel,Level,Category,Name,Warning,Suggestion,Note,CWEs,Context,Fingerprint,ToolVersion,RuleId,HelpUri
t.c,2,30,4,4,buffer,strcpy,"Does not check (CWE-120).",x,,CWE-120,"a, ""b""",f,2.0.19,FF1001,u
t.c,5,18,2,2,buffer,char,"Statically-sized (CWE-119!/CWE-120).",x,,CWE-119!/CWE-120,c,f,2.0.19,FF1013,u
`
	got, err := sast.ParseFlawfinderCSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []sast.Hit{{Line: 2, Level: 4, Name: "strcpy", CWEs: []string{"CWE-120"}}, {Line: 5, Level: 2, Name: "char", CWEs: []string{"CWE-119", "CWE-120"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("hits (-want +got):\n%s", d)
	}
	if _, err := sast.ParseFlawfinderCSV(strings.NewReader("File,Line\nx,1\n")); err == nil {
		t.Error("a header without Level and CWEs was accepted")
	}
	if hits, err := sast.ParseFlawfinderCSV(strings.NewReader("")); err != nil || hits != nil {
		t.Errorf("empty output = %v, %v", hits, err)
	}
}

// TestFlawfinderReal runs the Debian flawfinder on three snippets.
func TestFlawfinderReal(t *testing.T) {
	if _, err := exec.LookPath("flawfinder"); err != nil {
		t.Skip("flawfinder not installed (make test installs it)")
	}
	ctx := context.Background()
	tests := []struct {
		name, code string
		minLevel   int
		label      suite.Label
		score      float64
		cwe        []string
	}{
		{"strcpy is level 4", "void f(char *s){ char b[8]; strcpy(b, s); }", 1, suite.Vul, 0.8, []string{"CWE-120"}},
		{"min level above the hit", "void f(char *s){ char b[8]; strcpy(b, s); }", 5, suite.Ben, 0.8, []string{"CWE-120"}},
		{"system is level 4, CWE-78", "int run(const char *c){ return system(c); }", 1, suite.Vul, 0.8, []string{"CWE-78"}},
		{"nothing to say", "int add(int a, int b){ return a + b; }", 1, suite.Ben, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ff, err := sast.NewFlawfinder(ctx, tt.minLevel)
			if err != nil {
				t.Fatal(err)
			}
			v, err := ff.Assess(ctx, subject.Unit{Case: &suite.Case{ID: "x", Language: "c", Code: tt.code}, Repeat: 0}, subject.NewEnv(subject.EnvOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			got := verdict.Verdict{Status: v.Status, Label: v.Label, Score: v.Score, CWE: v.CWE}
			want := verdict.Verdict{Status: verdict.OK, Label: tt.label, Score: verdict.Float(tt.score), CWE: tt.cwe}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("verdict (-want +got):\n%s\nexplanation: %s", d, v.Explanation)
			}
		})
	}
	if _, err := sast.NewFlawfinder(ctx, 6); err == nil {
		t.Error("--min-level 6 accepted")
	}
}
