package sast_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/progs"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/sast"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// fixtures are small original programs, one per scanner, each with one planted weakness at the
// line given; clean is a harmless program in the same language.
var fixtures = []struct {
	tool, language, file string
	line                 int
	out                  [2]int // lines without a weakness
	cwe                  string
	clean                string
}{
	{"flawfinder", "c", "copy.c", 7, [2]int{1, 3}, "CWE-120", "int add(int a, int b)\n{\n\treturn a + b;\n}\n"},
	{"cppcheck", "c", "index.c", 5, [2]int{1, 3}, "CWE-788", "int add(int a, int b)\n{\n\treturn a + b;\n}\n"},
	{"bandit", "python", "run.py", 6, [2]int{2, 5}, "CWE-78", "def add(a, b):\n    return a + b\n"},
	{"gosec", "go", "lookup.go", 7, [2]int{1, 5}, "CWE-89", "package add\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n"},
	{"eslint", "javascript", "report.js", 6, [2]int{1, 4}, "CWE-78", "function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n"},
}

// TestScannerTableHasFixtures: every row of the table is tested below.
func TestScannerTableHasFixtures(t *testing.T) {
	var got, want []string
	for _, s := range sast.Scanners() {
		got = append(got, s.Name)
	}
	for _, f := range fixtures {
		want = append(want, f.tool)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("scanners without a fixture (-fixtures +table):\n%s", d)
	}
}

// TestScannersFindPlantedWeakness runs each scanner of the table on its fixture as a function
// case (the code written to a file with the language's extension) and on a repository snapshot
// holding it (a jit case whose target is the fixture's function), and on clean code.
func TestScannersFindPlantedWeakness(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.tool, func(t *testing.T) {
			s, _ := sast.LookupScanner(fx.tool)
			needTool(t, s.Binary, s.Install)
			tool, err := sast.NewTool(sast.ToolConfig{Tool: fx.tool, MinLevel: 1})
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := tool.Describe()["tool_version"].(string); v == "" || v == "dev" {
				t.Errorf("Describe() = %v: no tool version for the manifest", tool.Describe())
			}
			code, err := os.ReadFile(filepath.Join("testdata", "scan", fx.file))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			env := subject.NewEnv(subject.EnvOptions{})
			v, err := tool.Assess(ctx, subject.Unit{Case: &suite.Case{ID: "f", Kind: suite.KindFunction, Language: fx.language, Code: string(code)}}, env)
			if err != nil {
				t.Fatal(err)
			}
			if v.Label != suite.Vul || !hasFinding(v.Findings, fx.line, fx.cwe) {
				t.Errorf("function case: label %s, findings %+v; want vul with %s at line %d\n%s", v.Label, v.Findings, fx.cwe, fx.line, v.Explanation)
			}
			v, err = tool.Assess(ctx, subject.Unit{Case: &suite.Case{ID: "clean", Kind: suite.KindFunction, Language: fx.language, Code: fx.clean}}, env)
			if err != nil {
				t.Fatal(err)
			}
			if v.Label != suite.Ben {
				t.Errorf("clean code: label %s, findings %+v", v.Label, v.Findings)
			}

			snap := snapshotOf(t, map[string]string{"src/" + fx.file: string(code), "lib/clean" + sast.Extension(fx.language): fx.clean})
			open := func(context.Context) (*snapshot.Snapshot, error) { return snap, nil }
			cases := []struct {
				c    *suite.Case
				want suite.Label
			}{
				{&suite.Case{ID: "in", Kind: suite.KindJIT, Language: fx.language, CWE: []string{fx.cwe}, Target: &suite.Target{File: "src/" + fx.file, Line: fx.line - 1, EndLine: fx.line + 1}}, suite.Vul},
				{&suite.Case{ID: "out", Kind: suite.KindJIT, Language: fx.language, Target: &suite.Target{File: "src/" + fx.file, Line: fx.out[0], EndLine: fx.out[1]}}, suite.Ben},
				{&suite.Case{ID: "clean", Kind: suite.KindJIT, Language: fx.language, Target: &suite.Target{File: "lib/clean" + sast.Extension(fx.language), Line: 1, EndLine: 4}}, suite.Ben},
			}
			for _, tc := range cases {
				v, err := tool.Assess(ctx, subject.Unit{Case: tc.c}, subject.NewEnv(subject.EnvOptions{Snapshot: open}))
				if err != nil {
					t.Fatal(err)
				}
				if v.Label != tc.want {
					t.Errorf("repository case %s: label %s, want %s (%s)", tc.c.ID, v.Label, tc.want, v.Explanation)
				}
			}
		})
	}
}

// snapshotOf materialises files as a snapshot directory (what snapshot.Cache builds).
func snapshotOf(t *testing.T, files map[string]string) *snapshot.Snapshot {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, "tree", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "snapshot.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.OpenDir(dir, snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func hasFinding(fs []verdict.Finding, line int, cwe string) bool {
	for _, f := range fs {
		if f.StartLine <= line && line <= max(f.EndLine, f.StartLine) {
			for _, c := range f.CWE {
				if c == cwe {
					return true
				}
			}
		}
	}
	return false
}

// TestRepositoryScannedOnce: many cases on one snapshot, assessed concurrently, share one scan.
func TestRepositoryScannedOnce(t *testing.T) {
	needTool(t, "flawfinder", "apt-get install flawfinder")
	// Each unit's trace says whether the snapshot was scanned for it (the sandbox lets no
	// script write a counter outside).
	tool, err := sast.NewTool(sast.ToolConfig{Tool: "flawfinder", MinLevel: 1})
	if err != nil {
		t.Fatal(err)
	}
	code, _ := os.ReadFile("testdata/scan/copy.c")
	snap := snapshotOf(t, map[string]string{"copy.c": string(code)})
	open := func(context.Context) (*snapshot.Snapshot, error) { return snap, nil }
	bufs := make([]*trace.Buffer, 8)
	var wg sync.WaitGroup
	labels := make([]suite.Label, 8)
	for i := range labels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &suite.Case{ID: "c", Kind: suite.KindJIT, Target: &suite.Target{File: "copy.c", Line: 4 + i%2*5, EndLine: 9}}
			bufs[i] = trace.NewBuffer()
			v, err := tool.Assess(context.Background(), subject.Unit{Case: c}, subject.NewEnv(subject.EnvOptions{Snapshot: open, Trace: bufs[i]}))
			if err != nil {
				t.Error(err)
			}
			labels[i] = v.Label
		}()
	}
	wg.Wait()
	n := 0
	for _, b := range bufs {
		for _, e := range b.Events() {
			if strings.Contains(e.Content, "scanned for this case: true") {
				n++
			}
		}
	}
	if n != 1 {
		t.Errorf("flawfinder ran %d times on one snapshot, want 1", n)
	}
	if labels[0] != suite.Vul || labels[1] != suite.Ben {
		t.Errorf("labels %v: want vul for the span holding line 7, ben for 9-9", labels)
	}
}

// TestScannerFailureIsAnError: a tool that crashes, prints nothing or cannot read its input
// gives an error (the case's error verdict), never a ben verdict.
func TestScannerFailureIsAnError(t *testing.T) {
	ctx := context.Background()
	env := subject.NewEnv(subject.EnvOptions{})
	c := &suite.Case{ID: "x", Kind: suite.KindFunction, Language: "python", Code: "x = 1\n"}
	for _, tt := range []struct{ tool, binary string }{
		{"bandit", "/bin/false"}, // exit 1 is bandit's "issues found", but no report follows
		{"gosec", "/bin/true"},   // exit 0 with no SARIF
		{"eslint", "/bin/false"}, // exit 1 is eslint's "an error-level rule fired", but no report follows
		{"cppcheck", "/bin/false"},
	} {
		s, _ := sast.LookupScanner(tt.tool)
		tool := &sast.Tool{Scanner: s, Binary: tt.binary}
		if v, err := tool.Assess(ctx, subject.Unit{Case: c}, env); err == nil {
			t.Errorf("%s as %s: verdict %s, want an error", tt.tool, tt.binary, v.Label)
		}
	}
	needTool(t, "flawfinder", "apt-get install flawfinder")
	tool, err := sast.NewTool(sast.ToolConfig{Tool: "flawfinder", MinLevel: 1})
	if err != nil {
		t.Fatal(err)
	}
	bad := &suite.Case{ID: "latin1", Kind: suite.KindFunction, Language: "c", Code: "/* caf\xe9 */ void f(char *s){ char b[8]; strcpy(b, s); }\n"}
	if v, err := tool.Assess(ctx, subject.Unit{Case: bad}, env); err == nil {
		t.Errorf("flawfinder on a non-UTF-8 file: verdict %s, want an error", v.Label)
	}
}

func TestMissingScannerSaysHowToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(progs.NodePrefixEnv, t.TempDir()) // eslint is looked for in its prefix, not on PATH
	t.Setenv("GOBIN", t.TempDir())             // nor gosec where go install puts it
	for _, s := range sast.Scanners() {
		_, err := sast.NewTool(sast.ToolConfig{Tool: s.Name})
		if err == nil || !strings.Contains(err.Error(), "install it with: "+s.Install) {
			t.Errorf("%s not on PATH: %v, want the install command %q", s.Name, err, s.Install)
		}
	}
}

func TestParseBanditJSON(t *testing.T) {
	in := `{"errors": [], "results": [{"filename": "./src/run.py", "line_number": 6, "line_range": [6, 7], "test_id": "B602",
	"issue_severity": "HIGH", "issue_confidence": "HIGH", "issue_text": "subprocess call with shell=True identified, security issue."},
	{"filename": "a.py", "line_number": 1, "line_range": [1], "test_id": "B999", "issue_severity": "LOW", "issue_text": "new test"}]}`
	got, err := sast.ParseBanditJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []verdict.Finding{
		{File: "src/run.py", StartLine: 6, EndLine: 6, Rule: "B602", CWE: []string{"CWE-78"}, Severity: "high", Message: "subprocess call with shell=True identified, security issue."},
		{File: "a.py", StartLine: 1, EndLine: 1, Rule: "B999", Severity: "low", Message: "new test"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	for _, bad := range []string{"", "Traceback (most recent call last):", `{"errors": []}`,
		`{"errors": [{"filename": "x.py", "reason": "syntax error while parsing AST from file"}], "results": []}`} {
		if _, err := sast.ParseBanditJSON([]byte(bad)); err == nil {
			t.Errorf("%q was read as a bandit report", bad)
		}
	}
}

func TestParseFlawfinderSARIF(t *testing.T) {
	in := `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "Flawfinder", "version": "2.0.19", "rules": [
	{"id": "FF1001", "name": "buffer/strcpy", "relationships": [{"target": {"id": "CWE-120", "toolComponent": {"name": "CWE"}}}]}]}},
	"results": [{"ruleId": "FF1001", "level": "error", "message": {"text": "buffer/strcpy:Does not check for buffer overflows (CWE-120)."},
	"locations": [{"physicalLocation": {"artifactLocation": {"uri": "case.c"}, "region": {"startLine": 7}}}], "rank": 0.8}]}]}`
	got, err := sast.ParseFlawfinderSARIF([]byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []verdict.Finding{{File: "case.c", StartLine: 7, EndLine: 7, Rule: "strcpy", CWE: []string{"CWE-120"}, Severity: "4", Message: "strcpy (level 4)"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	if _, err := sast.ParseFlawfinderSARIF([]byte("Error: encoding error in case.c"), nil); err == nil {
		t.Error("flawfinder's encoding error was read as SARIF")
	}
}

// TestFlawfinderLevels keeps flawfinder's verdicts as they were with its CSV output.
func TestFlawfinderLevels(t *testing.T) {
	needTool(t, "flawfinder", "apt-get install flawfinder")
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
			ff, err := sast.NewTool(sast.ToolConfig{Tool: "flawfinder", MinLevel: tt.minLevel})
			if err != nil {
				t.Fatal(err)
			}
			v, err := ff.Assess(ctx, subject.Unit{Case: &suite.Case{ID: "x", Language: "c", Code: tt.code}}, subject.NewEnv(subject.EnvOptions{}))
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
	if _, err := sast.NewTool(sast.ToolConfig{Tool: "flawfinder", MinLevel: 6}); err == nil {
		t.Error("--min-level 6 accepted")
	}
}
