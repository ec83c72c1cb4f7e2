package demo

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/suite"
)

var update = flag.Bool("update", false, "rewrite demo.jsonl")

const (
	srcDir    = "src"
	suiteFile = "demo.jsonl"
)

func encode(t *testing.T, cases []suite.Case) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := suite.NewWriter(&buf)
	for i := range cases {
		if err := w.Write(&cases[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDemoUpToDate(t *testing.T) {
	cases, err := Build(srcDir)
	if err != nil {
		t.Fatal(err)
	}
	want := encode(t, cases)
	if *update {
		err := suite.WriteFileAtomic(suiteFile, func(w io.Writer) error {
			_, err := w.Write(want)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(suiteFile)
	if err != nil {
		t.Fatalf("%v: run go test ./suites/demo -update", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what %s builds (-committed +built):\n%s\nrun go test ./suites/demo -update",
			suiteFile, srcDir, cmp.Diff(strings.Split(string(got), "\n"), strings.Split(string(want), "\n")))
	}
}

func TestDemoSuiteValid(t *testing.T) {
	type pair struct{ vul, ben *suite.Case }
	pairs := map[string]*pair{}
	cwes := map[string]bool{}
	_, problems, err := suite.Scan(suiteFile, nil, true, func(c *suite.Case, line int) error {
		p := pairs[c.Pair]
		if p == nil {
			p = &pair{}
			pairs[c.Pair] = p
		}
		if c.Label == suite.Vul {
			p.vul = c
		} else {
			p.ben = c
		}
		for _, w := range c.CWE {
			cwes[w] = true
		}
		if c.Kind != suite.KindFunction || c.Language != "c" || c.Pair == "" || len(c.Commit) != 40 {
			t.Errorf("line %d: case %q: want a paired c function case with a 40-hex commit", line, c.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if len(pairs) < 24 {
		t.Errorf("%d pairs, want at least 24", len(pairs))
	}
	if len(cwes) < 8 {
		t.Errorf("%d distinct CWEs, want at least 8", len(cwes))
	}
	for id, p := range pairs {
		if p.vul == nil || p.ben == nil {
			continue // reported by Scan
		}
		if p.vul.Code == p.ben.Code {
			t.Errorf("pair %s: vul and ben code are the same", id)
		}
		if p.vul.Commit != p.ben.Commit || p.vul.Project != p.ben.Project || !cmp.Equal(p.vul.CWE, p.ben.CWE) {
			t.Errorf("pair %s: vul and ben differ in commit, project or cwe", id)
		}
		if r := sharedLines(p.vul.Code, p.ben.Code); r < 0.6 {
			t.Errorf("pair %s: vul and ben share %.0f%% of their lines, want at least 60%%", id, 100*r)
		}
	}
}

// sharedLines is the length of the longest common subsequence of a's and b's lines over the
// line count of the longer one.
func sharedLines(a, b string) float64 {
	x := strings.Split(strings.TrimRight(a, "\n"), "\n")
	y := strings.Split(strings.TrimRight(b, "\n"), "\n")
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for i := range x {
		for j := range y {
			switch {
			case x[i] == y[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(y)]) / float64(max(len(x), len(y)))
}

func TestSharedLines(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want float64
	}{
		{"a\nb\nc\n", "a\nb\nc\n", 1},
		{"a\nb\nc\nd\n", "a\nx\nc\nd\n", 0.75},
		{"a\nb\n", "a\nb\nc\nd\n", 0.5},
		{"a\n", "b\n", 0},
	} {
		if got := sharedLines(tc.a, tc.b); got != tc.want {
			t.Errorf("sharedLines(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestDemoCompiles(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc is not on PATH: cannot check that the demo functions compile")
	}
	files, err := filepath.Glob(filepath.Join(srcDir, "*", "*.c"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no C files under %s", srcDir)
	}
	header := filepath.Join(srcDir, "common.h")
	for _, f := range files {
		t.Run(filepath.ToSlash(f), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, gcc, "-std=gnu11", "-fsyntax-only",
				"-Werror=implicit-function-declaration", "-Werror=implicit-int",
				"-include", header, "-x", "c", f)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("gcc -fsyntax-only %s: %v\n%s", f, err, out)
			}
		})
	}
}

func TestBuildErrorsNameTheFile(t *testing.T) {
	const vul = "int f(int x)\n{\n\treturn x;\n}\n"
	const ben = "int f(int x)\n{\n\treturn x + 1;\n}\n"
	const info = `{"cwe": ["CWE-787"], "project": "p", "function": "f", "date": "2020-01-02T03:04:05Z", "summary": "s"}`
	for _, tc := range []struct {
		name  string
		files map[string]string // path under the source dir -> content
		want  string            // in the error
	}{
		{"ok", map[string]string{"01_f/vul.c": vul, "01_f/ben.c": ben, "01_f/case.json": info}, ""},
		{"missing ben", map[string]string{"01_f/vul.c": vul, "01_f/case.json": info}, filepath.Join("01_f", "ben.c")},
		{"bad json", map[string]string{"01_f/vul.c": vul, "01_f/ben.c": ben, "01_f/case.json": `{"cwe": "CWE-787"}`}, filepath.Join("01_f", "case.json")},
		{"unknown field", map[string]string{"01_f/vul.c": vul, "01_f/ben.c": ben, "01_f/case.json": strings.Replace(info, `"s"}`, `"s", "cve": "x"}`, 1)}, "case.json"},
		{"bad date", map[string]string{"01_f/vul.c": vul, "01_f/ben.c": ben, "01_f/case.json": strings.Replace(info, "2020-01-02T03:04:05Z", "2020-01-02", 1)}, "case.json"},
		{"wrong function", map[string]string{"01_f/vul.c": strings.Replace(vul, "f(", "g(", 1), "01_f/ben.c": ben, "01_f/case.json": info}, filepath.Join("01_f", "vul.c")},
		{"same code", map[string]string{"01_f/vul.c": vul, "01_f/ben.c": vul, "01_f/case.json": info}, filepath.Join("01_f", "ben.c")},
		{"bad dir name", map[string]string{"1-f/vul.c": vul}, "1-f"},
		{"duplicate number", map[string]string{"01_f/vul.c": vul, "01_f/ben.c": ben, "01_f/case.json": info, "01_g/vul.c": vul}, "01_g"},
		{"empty", map[string]string{"common.h": ""}, "no pair directories"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cases, err := Build(dir)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(cases) != 2 || cases[0].ID != "demo-01-vul" || cases[1].ID != "demo-01-ben" ||
					cases[0].Code != vul || cases[1].Code != ben || cases[0].Commit != cases[1].Commit {
					t.Errorf("unexpected cases: %+v", cases)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Build: error %v, want one naming %q", err, tc.want)
			}
		})
	}
}
