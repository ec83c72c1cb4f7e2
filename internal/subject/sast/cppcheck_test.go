package sast_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/subject/sast"
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

// TestCppcheckCounts: errors and warnings about the code make a case vul; cppcheck's reports
// about its own trouble with the input (at any severity) and lesser severities do not.
func TestCppcheckCounts(t *testing.T) {
	s, _ := sast.LookupScanner("cppcheck")
	tests := []struct {
		rule, severity string
		want           bool
	}{
		{"arrayIndexOutOfBounds", "error", true},
		{"uninitvar", "warning", true},
		{"unusedVariable", "style", false},
		{"missingIncludeSystem", "information", false},
		{"syntaxError", "error", false},
		{"internalAstError", "error", false},
		{"preprocessorErrorDirective", "error", false},
	}
	for _, tt := range tests {
		if got := s.Counts(verdict.Finding{Rule: tt.rule, Severity: tt.severity}); got != tt.want {
			t.Errorf("Counts(%s, %s) = %v, want %v", tt.rule, tt.severity, got, tt.want)
		}
	}
}
