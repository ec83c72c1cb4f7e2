package osv_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/gittest"
)

// repo is a real git repository in a test's temporary directory whose commit n is dated
// 2024-01-01 plus n days, so that dates (and ids) are fixed.
type repo struct {
	t   testing.TB
	dir string
	n   int
}

func newRepo(t testing.TB, dir string) *repo {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &repo{t: t, dir: dir}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) date() string { return fmt.Sprintf("2024-01-%02dT12:00:00Z", r.n+1) }

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "HOME="+r.dir,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE="+r.date(), "GIT_COMMITTER_DATE="+r.date())
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes files ("" removes one), commits everything and returns the commit id.
func (r *repo) commit(msg string, files map[string]string) string {
	r.t.Helper()
	for name, body := range files {
		if body == "" {
			if err := os.Remove(filepath.Join(r.dir, filepath.FromSlash(name))); err != nil {
				r.t.Fatal(err)
			}
			delete(files, name)
		}
	}
	gittest.WriteFiles(r.t, r.dir, files)
	r.n++
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// show is git show REV:FILE.
func (r *repo) show(rev, file string) string { return r.git("show", rev+":"+file) }
