package snapshot_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// hostileClone is a clone whose history and configuration try to make its snapshot run
// commands and read files outside: a smudge filter on every file (from the tree's
// .gitattributes and the clone's info/attributes), core.fsmonitor, hooks, an include of a
// secret file outside, export-subst and export-ignore attributes, symbolic links out, and tree
// entries git itself would never check out (named "..", and ".git" holding a config).
type hostileClone struct {
	dir          string
	base, commit string // the attributes, links and configuration; the same with ".." and ".git" entries
	pwned        string // the directory every planted command would write into
	secret       string // a file outside that nothing may open
	files        map[string]string
}

func newHostileClone(t *testing.T) hostileClone {
	t.Helper()
	h := hostileClone{dir: filepath.Join(t.TempDir(), "clone"), pwned: t.TempDir()}
	h.secret = filepath.Join(t.TempDir(), "secret.conf")
	if err := os.WriteFile(h.secret, []byte("[secret]\n\tvalue = do-not-read\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	touch := func(name string) string { return "touch " + filepath.Join(h.pwned, name) }
	h.files = map[string]string{
		"main.c":         "int main(void) { return 0; }\n",
		"subst.txt":      "version $Format:%H$\n",
		"ignored.txt":    "hidden from git archive\n",
		".gitattributes": "* filter=evil\nsubst.txt export-subst\nignored.txt export-ignore\n",
	}
	gittest.Repo(t, h.dir, h.files)
	for _, l := range [][2]string{{h.secret, "abs"}, {"../../../../secret.conf", "up"}, {"main.c", "good"}} {
		if err := os.Symlink(l[0], filepath.Join(h.dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	h.base = gittest.Repo(t, h.dir, nil)
	// Entries no checkout would write: a directory "..", and ".git" with a config in it.
	evil := gitInput(t, h.dir, "[core]\n\tfsmonitor = "+touch("nested-fsmonitor")+"\n", "hash-object", "-w", "--stdin")
	sub := gitInput(t, h.dir, "100644 blob "+evil+"\tevil\n", "mktree")
	top := gittest.Run(t, h.dir, "ls-tree", "HEAD")
	tree := gitInput(t, h.dir, top+"\n040000 tree "+sub+"\t..\n040000 tree "+sub+"\t.git\n", "mktree")
	h.commit = gitInput(t, h.dir, "hostile\n", "commit-tree", tree, "-p", "HEAD")
	gittest.Run(t, h.dir, "update-ref", "refs/heads/hostile", h.commit)

	// The clone's own configuration and hooks, which git reads and runs when it is asked to.
	gittest.Run(t, h.dir, "config", "filter.evil.smudge", touch("smudge")+"; cat")
	gittest.Run(t, h.dir, "config", "filter.evil.clean", "cat")
	gittest.Run(t, h.dir, "config", "filter.evil.required", "true")
	gittest.Run(t, h.dir, "config", "core.fsmonitor", touch("fsmonitor"))
	gittest.Run(t, h.dir, "config", "core.pager", touch("pager"))
	gittest.Run(t, h.dir, "config", "include.path", h.secret)
	gitDir := filepath.Join(h.dir, ".git")
	gittest.WriteFiles(t, gitDir, map[string]string{"info/attributes": "* filter=evil\n"})
	for _, hook := range []string{"post-checkout", "pre-commit", "post-merge", "reference-transaction", "pre-auto-gc"} {
		p := filepath.Join(gitDir, "hooks", hook)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+touch("hook-"+hook)+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// gitInput runs git in dir with input on its standard input and returns its output, trimmed.
func gitInput(t *testing.T, dir, input string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(input)
	cmd.Env = gitEnv(dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// watchOpen starts watching path for opens; the returned function reports whether anything
// opened or read it since.
func watchOpen(t *testing.T, path string) func() bool {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("no inotify: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if _, err := syscall.InotifyAddWatch(fd, path, syscall.IN_OPEN|syscall.IN_ACCESS); err != nil {
		t.Fatal(err)
	}
	return func() bool {
		buf := make([]byte, 4096)
		n, err := syscall.Read(fd, buf)
		if errors.Is(err, syscall.EAGAIN) {
			return false
		}
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
}

// TestHostileClone: materialising the snapshot of a hostile clone runs none of its commands,
// reads nothing outside it, writes the commit's blobs as they are, keeps symbolic links as
// links and leaves out the names no checkout would write.
// Git runs on the host (no sandbox given), and in a bubblewrap sandbox.
func TestHostileClone(t *testing.T) {
	h := newHostileClone(t)
	opened := watchOpen(t, h.secret)
	sandboxes := map[string]*sandbox.Sandbox{"host": nil}
	if sb, err := sandbox.New(context.Background(), sandbox.Options{}); err == nil {
		sandboxes["bwrap"] = sb
	} else {
		t.Logf("git in a sandbox not tested: %v", err)
	}
	for _, mode := range []string{"host", "bwrap"} {
		sb, ok := sandboxes[mode]
		if !ok {
			continue
		}
		for _, tc := range []struct {
			name    string
			commit  string
			skipped []string
		}{
			{"attributes, filters, hooks, links", h.base, nil},
			{"entries named .. and .git", h.commit, []string{"../evil", ".git/evil"}},
		} {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				testHostile(t, h, opened, snapshot.Options{Sandbox: sb}, tc.commit, tc.skipped)
			})
		}
	}
}

func testHostile(t *testing.T, h hostileClone, opened func() bool, opts snapshot.Options, commit string, skipped []string) {
	c := newCache(t, opts)
	s, err := c.Get(context.Background(), h.dir, commit)
	ran, _ := os.ReadDir(h.pwned)
	for _, e := range ran {
		t.Errorf("the clone made git run a command: %s", e.Name())
		os.Remove(filepath.Join(h.pwned, e.Name()))
	}
	if opened() {
		t.Errorf("something opened %s, outside the clone", h.secret)
	}
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	defer s.Close()
	checkHostileSnapshot(t, h, s, skipped)
}

func checkHostileSnapshot(t *testing.T, h hostileClone, s *snapshot.Snapshot, skipped []string) {
	t.Helper()
	for name, want := range h.files {
		if b, err := s.ReadFile(name); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want the blob as committed, %q", name, b, err, want)
		}
	}
	for name, want := range map[string]string{"abs": h.secret, "up": "../../../../secret.conf", "good": "main.c"} {
		if got, err := os.Readlink(filepath.Join(s.Root(), name)); err != nil || got != want {
			t.Errorf("link %s: %q, %v; want a link to %q", name, got, err, want)
		}
	}
	listed := map[string]bool{}
	for _, sk := range s.Info().Skipped {
		listed[sk.Path] = true
	}
	for _, name := range skipped {
		if !listed[name] {
			t.Errorf("%s is not listed as skipped: %+v", name, s.Info().Skipped)
		}
	}
	for _, p := range []string{filepath.Join(s.Dir(), "evil"), filepath.Join(s.Root(), ".git")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	if got := fmt.Sprint(s.Info().Files, " files, ", s.Info().Symlinks, " links"); got != "4 files, 3 links" {
		t.Errorf("the snapshot holds %s; want 4 files, 3 links", got)
	}
}
