package jitvul_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo is a real git repository in a test's temporary directory, with fixed, increasing
// commit dates: commit n is dated 2024-01-01 plus n hours.
type gitRepo struct {
	t   testing.TB
	dir string
	n   int
}

func newRepo(t testing.TB) *gitRepo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &gitRepo{t: t, dir: dir}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *gitRepo) date() string {
	return fmt.Sprintf("2024-01-01T%02d:%02d:00Z", r.n/60%24, r.n%60)
}

func (r *gitRepo) git(args ...string) string {
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

func (r *gitRepo) remove(name string) {
	r.t.Helper()
	if err := os.Remove(filepath.Join(r.dir, filepath.FromSlash(name))); err != nil {
		r.t.Fatal(err)
	}
}

// commit commits everything and returns the commit id.
func (r *gitRepo) commit(msg string) string {
	r.t.Helper()
	r.n++
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// merge merges branch into the current branch with a merge commit.
func (r *gitRepo) merge(branch string) string {
	r.t.Helper()
	r.n++
	r.git("merge", "-q", "--no-ff", "--no-edit", branch)
	return r.git("rev-parse", "HEAD")
}

// C sources used by the histories.
const (
	helper = "int helper(int x)\n{\n\treturn x + 1;\n}\n"
	other  = "int other(void)\n{\n\treturn 7;\n}\n"
	v1     = "int parse(char *p, int n)\n{\n\tchar b[8];\n\tmemcpy(b, p, n);\n\treturn 0;\n}\n"
	v2     = "int parse(char *p, int n)\n{\n\tchar b[8];\n\tmemcpy(b, p, n);\n\treturn b[0];\n}\n"
	v2ws   = "int parse(char *p, int n)\n{\n    char b[8];\n    memcpy(b, p, n);\n    return b[0];\n}\n"
	fixed  = "int parse(char *p, int n)\n{\n\tchar b[8];\n\tif (n > 8)\n\t\treturn -1;\n\tmemcpy(b, p, n);\n\treturn b[0];\n}\n"
)
