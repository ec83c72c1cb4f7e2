package sast

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRelativeTo(t *testing.T) {
	root := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ root, file, want string }{
		{root, filepath.ToSlash(filepath.Join(root, "src", "run.js")), "src/run.js"},
		{link, filepath.ToSlash(filepath.Join(real, "src", "run.js")), "src/run.js"}, // the tool saw the real directory
		{root, "src/run.js", "src/run.js"},
		{root, "/elsewhere/run.js", "/elsewhere/run.js"},
		{root, filepath.ToSlash(filepath.Dir(root)) + "/other/run.js", filepath.ToSlash(filepath.Dir(root)) + "/other/run.js"},
	} {
		if got := relativeTo(tt.root, tt.file); got != tt.want {
			t.Errorf("relativeTo(%q, %q) = %q, want %q", tt.root, tt.file, got, tt.want)
		}
	}
}
