package sast_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/sast"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
)

// TestScannersSeeNothingOutside: a snapshot holding links out of it (a file and a directory
// with code every scanner flags, and a marker) is scanned by each installed scanner in the
// sandbox; nothing of the linked files is in any verdict, finding or trace event.
func TestScannersSeeNothingOutside(t *testing.T) {
	tag := fmt.Sprintf("MARKER%d", time.Now().UnixNano())    // the linked files' names
	secret := fmt.Sprintf("SECRET%d", time.Now().UnixNano()) // their contents
	outside := t.TempDir()
	bad := map[string]string{
		"c":      "#include <string.h>\nvoid " + secret + "(char *s) { char b[8]; strcpy(b, s); gets(b); }\n",
		"python": "import subprocess\ndef " + secret + "(x):\n    eval(x)\n    subprocess.call(x, shell=True)\n",
	}
	for lang, code := range bad {
		if err := os.WriteFile(filepath.Join(outside, tag+sast.Extension(lang)), []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap := snapshotOf(t, map[string]string{"src/ok.c": "int ok(void) { return 0; }\n", "src/ok.py": "def ok():\n    return 0\n"})
	for _, name := range []string{tag + ".c", tag + ".py"} {
		if err := os.Symlink(filepath.Join(outside, name), filepath.Join(snap.Root(), "src", "leak-"+name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(snap.Root(), "outside")); err != nil {
		t.Fatal(err)
	}
	open := func(context.Context) (*snapshot.Snapshot, error) { return snap, nil }
	ran := 0
	for _, tc := range []struct{ tool, lang, file string }{
		{"flawfinder", "c", "src/ok.c"}, {"cppcheck", "c", "src/ok.c"}, {"bandit", "python", "src/ok.py"},
	} {
		s, _ := sast.LookupScanner(tc.tool)
		tool, err := sast.NewTool(sast.ToolConfig{Tool: tc.tool})
		if err != nil {
			t.Logf("%s: %v", tc.tool, err)
			continue
		}
		ran++
		buf := trace.NewBuffer()
		c := &suite.Case{ID: "c", Kind: suite.KindJIT, Language: tc.lang, Target: &suite.Target{File: tc.file, Line: 1}}
		v, err := tool.Assess(context.Background(), subject.Unit{Case: c}, subject.NewEnv(subject.EnvOptions{Snapshot: open, Trace: buf}))
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		all, _ := json.Marshal(struct {
			V any
			E any
		}{v, buf.Events()})
		if strings.Contains(string(all), secret) {
			t.Errorf("%s reported on a file outside the snapshot: %.2000s", tc.tool, all)
		}
		for _, f := range v.Findings {
			if strings.Contains(f.File, "leak") || strings.Contains(f.File, "outside") || strings.Contains(f.Message, secret) {
				t.Errorf("%s: a finding in a file outside the snapshot: %+v", tc.tool, f)
			}
		}
		if !strings.Contains(v.Explanation, "3 files not scanned") || !strings.Contains(v.Explanation, "(a symbolic link)") {
			t.Errorf("%s: the verdict does not note the links left out: %q", tc.tool, v.Explanation)
		}
	}
	if ran < 3 {
		t.Errorf("only %d scanners installed; flawfinder, cppcheck and bandit are make deps's", ran)
	}
}
