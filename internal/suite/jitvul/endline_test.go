package jitvul_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/sarif"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// A long function whose risky call is far below its first line: the call is flagged by
// flawfinder on line 12 of a function spanning lines 3-16.
const (
	longVul = "#include <string.h>\n\n" +
		"int copy(char *dst, const char *src, int n)\n{\n\tint i;\n\tint total = 0;\n" +
		"\tfor (i = 0; i < n; i++)\n\t\ttotal += src[i];\n\tif (total == 0)\n\t\treturn 0;\n" +
		"\t/* copy it */\n\tstrcpy(dst, src);\n\tdst[0] = 1;\n\tdst[1] = 2;\n\treturn total;\n}\n"
	longFixed = "#include <string.h>\n\n" +
		"int copy(char *dst, const char *src, int n)\n{\n\tint i;\n\tint total = 0;\n" +
		"\tfor (i = 0; i < n; i++)\n\t\ttotal += src[i];\n\tif (total == 0)\n\t\treturn 0;\n" +
		"\t/* copy it */\n\tmemmove(dst, src, n);\n\tdst[0] = 1;\n\tdst[1] = 2;\n\treturn total;\n}\n"
)

// Issue 24 item 3: a traced case carries target.end_line, so a scanner finding inside the
// function (not on its first line) matches it; a suite written before end_line existed still
// reads and matches on its first line only.
func TestEndLineScannerFinding(t *testing.T) {
	if _, err := exec.LookPath("flawfinder"); err != nil {
		t.Skip("flawfinder is not installed (apt-get install flawfinder)")
	}
	r := newRepo(t)
	r.write("src/copy.c", longVul)
	r.commit("add copy")
	r.write("src/copy.c", longFixed)
	fix := r.commit("fix copy")
	s := jitvul.NewSession(jitvul.Options{})
	defer s.Close()
	p, err := s.Trace(context.Background(), r.dir, jitvul.Request{URL: "https://example.com/acme/lib", Fix: fix, File: "src/copy.c", Function: "copy"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Vul.Target.Line != 3 || p.Vul.Target.EndLine != 16 || p.Ben.Target.EndLine != 16 {
		t.Fatalf("targets %+v %+v, want lines 3-16", p.Vul.Target, p.Ben.Target)
	}
	if got := strings.Count(p.Vul.Code, "\n") + 1; got != 14 {
		t.Fatalf("f_vul has %d lines, want 14", got)
	}

	// flawfinder on the vulnerable version of the file, as the sast subject scans a snapshot.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "copy.c"), []byte(longVul), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("flawfinder", "--sarif", "src/copy.c")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("flawfinder: %v", err)
	}
	log, err := sarif.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	var findings []verdict.Finding
	for _, run := range log.Runs {
		findings = append(findings, run.Findings...)
	}
	inside := false
	for _, f := range findings {
		if f.StartLine == 12 {
			inside = true
		}
		if f.StartLine == p.Vul.Target.Line {
			t.Fatalf("flawfinder flagged the function's first line: the test would not tell end_line apart")
		}
	}
	if !inside {
		t.Fatalf("flawfinder did not flag strcpy on line 12: %+v", findings)
	}
	m, err := sarif.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Match([]*suite.Case{p.Vul}, findings); len(got[0].Findings) == 0 {
		t.Errorf("no finding matched the traced case %+v", p.Vul.Target)
	}
	// The same case as an older suite wrote it: no end_line. It still matches its first line
	// only, so flawfinder's finding on line 12 does not reach it.
	old := *p.Vul
	old.Target = &suite.Target{File: p.Vul.Target.File, Function: p.Vul.Target.Function, Line: p.Vul.Target.Line}
	if err := old.Check(); err != nil {
		t.Fatal(err)
	}
	if got := m.Match([]*suite.Case{&old}, findings); len(got[0].Findings) != 0 {
		t.Errorf("a case without end_line matched findings %v", got[0].Findings)
	}
	if got := m.Match([]*suite.Case{&old}, []verdict.Finding{{File: "src/copy.c", StartLine: 3}}); len(got[0].Findings) != 1 {
		t.Errorf("a case without end_line does not match a finding on its first line")
	}
}
