// Package gittest builds real git repositories (and the file trees they commit) for tests, with the git command, isolated from
// the system's and the user's git configuration (no signing, no hooks, a fixed identity).
// Only tests import it.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Run runs git with args in dir and returns its output, trimmed; a failure fails the test with
// git's output.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "HOME="+dir,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// WriteFiles writes files (slash-separated paths under dir, made as needed).
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Repo writes files under dir, makes dir a repository if it is not one yet, commits everything
// in it and returns the commit's id.
func Repo(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	WriteFiles(t, dir, files)
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		Run(t, dir, "init", "-q")
	}
	Run(t, dir, "add", "-A")
	Run(t, dir, "commit", "-q", "--allow-empty", "-m", "files")
	return Run(t, dir, "rev-parse", "HEAD")
}
