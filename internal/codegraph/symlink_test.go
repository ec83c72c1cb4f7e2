package codegraph_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/codegraph"
)

// TestSymlinksNotFollowed: links to files and directories outside the repository (by absolute
// path and by ..) and inside it are never followed: nothing outside is indexed, a linked
// file is reported skipped, a linked directory is not entered.
func TestSymlinksNotFollowed(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	repo := filepath.Join(base, "repo")
	for _, d := range []string{outside, filepath.Join(repo, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.c"), "int outside_fn (void) { return 1; }\n")
	write(filepath.Join(repo, "src", "in.c"), "int inside_fn (void) { return outside_fn (); }\n")
	for target, name := range map[string]string{
		outside:                            "lib",     // a directory outside, by absolute path
		"../outside":                       "up",      // the same, by ..
		"../../outside/secret.c":           "src/x.c", // a file outside, by ..
		filepath.Join(outside, "secret.c"): "abs.c",
		"src":                              "alias", // a directory inside
		"in.c":                             "src/again.c",
	} {
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := codegraph.Open(context.Background(), repo, codegraph.Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	var files, skipped []string
	for _, f := range ix.Files {
		files = append(files, f.Path)
	}
	for _, s := range ix.Skipped {
		skipped = append(skipped, s.Path+": "+s.Reason)
	}
	if d := cmp.Diff([]string{"src/in.c"}, files); d != "" {
		t.Errorf("indexed files (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"abs.c: symbolic link", "src/again.c: symbolic link", "src/x.c: symbolic link"}, skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
	if got := ix.Definitions("outside_fn", codegraph.Near{}); len(got) != 0 {
		t.Errorf("a definition from outside the repository was indexed: %v", defStrings(got))
	}
	if got := ix.Definitions("inside_fn", codegraph.Near{}); len(got) != 1 {
		t.Errorf("inside_fn: %v", defStrings(got))
	}
}
