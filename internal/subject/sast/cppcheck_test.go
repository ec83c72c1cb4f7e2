package sast_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/sast"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// needTool skips a test when a scanner is not installed, saying how to install it, except under
// CI, where a missing tool is a failure.
func needTool(t *testing.T, name, install string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed (CI is set); install it with: %s", name, install)
		}
		t.Skipf("%s is not installed; install it with: %s (make test does)", name, install)
	}
}

func TestParseCppcheckXML(t *testing.T) {
	in := `<?xml version="1.0" encoding="UTF-8"?>
<results version="2"><cppcheck version="2.10"/><errors>
<error id="arrayIndexOutOfBounds" severity="error" msg="Array &apos;b[4]&apos; accessed at index 10." cwe="788" file0="t.c"><location file="t.c" line="4" column="3"/></error>
<error id="missingIncludeSystem" severity="information" msg="Include file not found."/>
</errors></results>`
	got, err := sast.ParseCppcheckXML([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []verdict.Finding{{File: "t.c", StartLine: 4, EndLine: 4, Rule: "arrayIndexOutOfBounds", CWE: []string{"CWE-788"}, Severity: "error", Message: "Array 'b[4]' accessed at index 10."},
		{Rule: "missingIncludeSystem", Severity: "information", Message: "Include file not found."}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	for _, bad := range []string{"", "Segmentation fault", `<results version="1"></results>`} {
		if _, err := sast.ParseCppcheckXML([]byte(bad)); err == nil {
			t.Errorf("%q was read as a cppcheck report", bad)
		}
	}
}

// TestCppcheckReal runs Debian's cppcheck on a planted out-of-bounds write and on clean code.
func TestCppcheckReal(t *testing.T) {
	needTool(t, "cppcheck", sast.CppcheckInstall)
	ctx := context.Background()
	cc, err := sast.NewCppcheck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, code string
		label      suite.Label
		cwe        []string
	}{
		{"write past a stack array", "void f(void)\n{\n\tchar b[4];\n\tb[10] = 0;\n}\n", suite.Vul, []string{"CWE-788"}},
		{"clean", "int add(int a, int b)\n{\n\treturn a + b;\n}\n", suite.Ben, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := cc.Assess(ctx, subject.Unit{Case: &suite.Case{ID: "x", Language: "c", Code: tt.code}}, subject.NewEnv(subject.EnvOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			got := verdict.Verdict{Status: v.Status, Label: v.Label, CWE: v.CWE}
			if d := cmp.Diff(verdict.Verdict{Status: verdict.OK, Label: tt.label, CWE: tt.cwe}, got); d != "" {
				t.Errorf("verdict (-want +got):\n%s\nexplanation: %s", d, v.Explanation)
			}
		})
	}
	if cc.Describe()["tool_version"] != "2.10" {
		t.Errorf("Describe() = %v, want tool_version 2.10", cc.Describe())
	}
}
