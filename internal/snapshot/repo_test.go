package snapshot_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// gitRepo is a real git repository in a test's temporary directory.
type gitRepo struct {
	t   *testing.T
	dir string
}

// gitEnv isolates git from the machine's configuration and fixes the commit dates.
func gitEnv(home string) []string {
	return append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "HOME="+home,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=2024-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2024-01-02T03:04:05Z")
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

func newRepo(t *testing.T) *gitRepo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "init", "-q", "-b", "main")
	return &gitRepo{t: t, dir: dir}
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	return runGit(r.t, r.dir, args...)
}

func (r *gitRepo) write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *gitRepo) symlink(target, name string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		r.t.Fatal(err)
	}
}

// commit commits everything and returns the commit id.
func (r *gitRepo) commit(msg string) string {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// newCache returns a cache in a temporary directory, removed (read-only directories and all)
// at the end of the test.
func newCache(t *testing.T, opts snapshot.Options) *snapshot.Cache {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() {
		if err := snapshot.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	c, err := snapshot.NewCache(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func get(t *testing.T, c *snapshot.Cache, repo, commit string) *snapshot.Snapshot {
	t.Helper()
	s, err := c.Get(context.Background(), repo, commit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// loggingGit writes a git wrapper that logs each invocation's arguments, one line each, and
// returns its path and a function that reads the lines logged so far.
func loggingGit(t *testing.T) (string, func() []string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "git.log")
	script := filepath.Join(dir, "git")
	body := "#!/bin/sh\necho \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, func() []string {
		b, err := os.ReadFile(log)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
}

// count is how many lines hold s.
func count(lines []string, s string) int {
	n := 0
	for _, l := range lines {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

// noTemporaries fails t if an extraction left its temporary directory in c: nothing but
// snapshots and lock files may stay.
func noTemporaries(t *testing.T, c *snapshot.Cache) {
	t.Helper()
	es, err := os.ReadDir(filepath.Join(c.Dir(), "snapshots"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary directory left: %s", e.Name())
		}
	}
}
