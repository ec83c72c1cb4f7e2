package gittest_test

import (
	"testing"

	"github.com/vulnbench/vulnbench/internal/gittest"
)

// Two commits of one repository: each id is the commit of its files, the second has the first
// as its parent, and a file of the first is still there.
func TestRepo(t *testing.T) {
	dir := t.TempDir()
	first := gittest.Repo(t, dir, map[string]string{"a/b.c": "int b;\n"})
	second := gittest.Repo(t, dir, map[string]string{"c.py": "c = 1\n"})
	if first == second || len(second) != 40 {
		t.Fatalf("commits %q and %q", first, second)
	}
	if got := gittest.Run(t, dir, "rev-parse", second+"^"); got != first {
		t.Errorf("parent of the second commit = %s, want %s", got, first)
	}
	if got := gittest.Run(t, dir, "show", second+":a/b.c"); got != "int b;" {
		t.Errorf("a/b.c at the second commit = %q", got)
	}
}
