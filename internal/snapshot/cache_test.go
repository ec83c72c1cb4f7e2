package snapshot_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// gitSandboxes are where git runs in the tests that take both: on the host (nil), and in a
// bubblewrap sandbox where one can run.
func gitSandboxes(t *testing.T) []*sandbox.Sandbox {
	t.Helper()
	out := []*sandbox.Sandbox{nil}
	sb, err := sandbox.New(context.Background(), sandbox.Options{})
	if err != nil {
		t.Logf("git in a sandbox not tested: %v", err)
		return out
	}
	return append(out, sb)
}

func sandboxName(sb *sandbox.Sandbox) string {
	if sb == nil {
		return "host"
	}
	return string(sb.Mode())
}

// tree lists a directory as "path mode [-> target | size]" lines, without following links.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v", filepath.ToSlash(rel), info.Mode())
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += " -> " + target
		case d.Type().IsRegular():
			line += fmt.Sprintf(" %d", info.Size())
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A snapshot's lines are counted as it is extracted: a last line without a newline counts, a
// binary file (a NUL byte in its first 8000 bytes) does not.
func TestLinesCounted(t *testing.T) {
	r := newRepo(t)
	r.write("a.c", "int a;\nint b;\n")
	r.write("b.go", "package b\n\nvar c = 1") // three lines, the last without a newline
	r.write("blob.bin", "\x00\x01\n\n\n")
	r.write("empty.txt", "")
	commit := r.commit("lines")
	s := get(t, newCache(t, snapshot.Options{}), r.dir, commit)
	if n := s.Info().Lines; n == nil || *n != 5 {
		t.Errorf("lines %v, want 5", n)
	}
}

func TestGet(t *testing.T) {
	r := newRepo(t)
	r.write("README", "hello\n")
	r.write("src/main.c", "int main(void) { return 0; }\n")
	r.write("src/deep/er/x.py", "print(1)\n")
	r.write("run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(r.dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.symlink("src/main.c", "link")
	r.write(".gitattributes", "ignored.txt export-ignore\n")
	r.write("ignored.txt", "not exported\n")
	commit := r.commit("first")
	r.write("README", "changed\n")
	second := r.commit("second")

	c := newCache(t, snapshot.Options{})
	s := get(t, c, r.dir, commit)
	want := []string{
		". dr-xr-xr-x",
		".gitattributes -r--r--r-- 26",
		"README -r--r--r-- 6",
		"ignored.txt -r--r--r-- 13", // the commit's blobs as they are: export-ignore is a packaging rule
		"link Lrwxrwxrwx -> src/main.c",
		"run.sh -r-xr-xr-x 10",
		"src dr-xr-xr-x",
		"src/deep dr-xr-xr-x",
		"src/deep/er dr-xr-xr-x",
		"src/deep/er/x.py -r--r--r-- 9",
		"src/main.c -r--r--r-- 29",
	}
	if d := cmp.Diff(want, tree(t, s.Root())); d != "" {
		t.Errorf("snapshot tree (-want +got):\n%s", d)
	}
	info := s.Info()
	tid := r.git("rev-parse", commit+"^{tree}")
	gitDir, _ := filepath.EvalSymlinks(filepath.Join(r.dir, ".git"))
	six := int64(6) // a line each
	if d := cmp.Diff(snapshot.Info{Repo: gitDir, Commit: commit, Tree: tid, Files: 6, Symlinks: 1, Bytes: 93, Lines: &six}, info); d != "" {
		t.Errorf("Info (-want +got):\n%s", d)
	}
	if !s.Built() {
		t.Error("first Get: Built() = false")
	}
	if got, want := filepath.Base(s.Dir()), snapshot.Key(gitDir, commit, snapshot.DefaultExtractMaxFileSize); got != want {
		t.Errorf("snapshot directory %s, want the key %s", got, want)
	}
	if fi, err := os.Stat(s.Dir()); err != nil || fi.Mode().Perm() != 0o555 {
		t.Errorf("snapshot directory mode %v, %v; want 0555", fi.Mode(), err)
	}

	// Again, by a short id, in another cache of the same directory: found, not built.
	c2, err := snapshot.NewCache(c.Dir(), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	again := get(t, c2, r.dir, commit[:10])
	if again.Built() || again.Root() != s.Root() {
		t.Errorf("second Get: built %v, root %s; want false, %s", again.Built(), again.Root(), s.Root())
	}
	// A branch name resolves to the commit it names now.
	head := get(t, c2, r.dir, "main")
	if head.Info().Commit != second || !head.Built() {
		t.Errorf("Get main: commit %s built %v; want %s, true", head.Info().Commit, head.Built(), second)
	}
	if b, err := head.ReadFile("README"); err != nil || string(b) != "changed\n" {
		t.Errorf("README at main: %q, %v", b, err)
	}
	// The files have the commit's time.
	fi, err := os.Lstat(filepath.Join(s.Root(), "README"))
	if err != nil || fi.ModTime().UTC().Format("2006-01-02T15:04:05Z") != "2024-01-02T03:04:05Z" {
		t.Errorf("README mtime %v, %v; want the commit time", fi.ModTime(), err)
	}
	noTemporaries(t, c)
}

// TestGetErrors: each way a repository or commit can be missing gives an error that names the
// path and the commit, says what to do, and matches its sentinel.
func TestGetErrors(t *testing.T) {
	r := newRepo(t)
	r.write("a.c", "int a;\n")
	r.write("sub/b.c", "int b;\n")
	first := r.commit("one")
	r.write("a.c", "int a2;\n")
	r.commit("two")
	if err := os.Mkdir(filepath.Join(r.dir, "notrepo"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A shallow clone lacks the first commit.
	shallow := filepath.Join(t.TempDir(), "shallow")
	runGit(t, t.TempDir(), "clone", "-q", "--depth", "1", "file://"+r.dir, shallow)
	// A clone missing a blob of the first commit.
	damaged := filepath.Join(t.TempDir(), "damaged")
	runGit(t, t.TempDir(), "clone", "-q", "--no-local", r.dir, damaged)
	blob := runGit(t, damaged, "rev-parse", first+":sub/b.c")
	looseAll(t, damaged)
	if err := os.Remove(filepath.Join(damaged, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	missingDir := filepath.Join(t.TempDir(), "missing")
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, sb := range gitSandboxes(t) {
		testGetErrors(t, sb, r, first, shallow, damaged, blob, missingDir, file)
	}
}

func testGetErrors(t *testing.T, sb *sandbox.Sandbox, r *gitRepo, first, shallow, damaged, blob, missingDir, file string) {
	for _, tc := range []struct {
		name     string
		repo     string
		commit   string
		kind     error
		contains []string
	}{
		{"no such directory", missingDir, first, snapshot.ErrNoRepository, []string{missingDir, "does not exist"}},
		{"a file", file, first, snapshot.ErrNotRepository, []string{file, "not a directory"}},
		{"not a repository (inside one)", filepath.Join(r.dir, "notrepo"), first, snapshot.ErrNotRepository, []string{filepath.Join(r.dir, "notrepo"), "is not a git repository"}},
		{"commit not in the repository", r.dir, "0123456789abcdef0123456789abcdef01234567", snapshot.ErrNoCommit,
			[]string{"commit 0123456789abcdef0123456789abcdef01234567 is not in " + r.dir, "git -C " + r.dir + " fetch origin 0123456789abcdef0123456789abcdef01234567"}},
		{"shallow clone", shallow, first, snapshot.ErrNoCommit,
			[]string{"commit " + first + " is not in " + shallow + " (it is a shallow clone: fetch it with: git -C " + shallow + " fetch origin " + first + ")"}},
		{"missing blob", damaged, first, snapshot.ErrMissingObjects, []string{damaged, first, "lacks objects", "fetch origin " + first, blob}},
		{"option-like commit", r.dir, "--output=/tmp/x", nil, []string{`commit "--output=/tmp/x" is not a commit id`}},
	} {
		t.Run(sandboxName(sb)+"/"+tc.name, func(t *testing.T) {
			c := newCache(t, snapshot.Options{Sandbox: sb})
			s, err := c.Get(context.Background(), tc.repo, tc.commit)
			if err == nil {
				s.Close()
				t.Fatal("Get succeeded")
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) {
				t.Errorf("error %q does not match %v", err, tc.kind)
			}
			for _, want := range tc.contains {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if es, _ := os.ReadDir(filepath.Join(c.Dir(), "snapshots")); len(es) > 0 {
				var names []string
				for _, e := range es {
					if !strings.HasSuffix(e.Name(), ".lock") {
						names = append(names, e.Name())
					}
				}
				if len(names) > 0 {
					t.Errorf("a failed Get left %v in the cache", names)
				}
			}
		})
	}
}

// looseAll unpacks every pack of the repository at dir into loose objects.
func looseAll(t *testing.T, dir string) {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	for _, p := range packs {
		moved := p + ".moved"
		if err := os.Rename(p, moved); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(moved)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("git", "unpack-objects", "-q")
		cmd.Dir, cmd.Stdin, cmd.Env = dir, f, gitEnv(dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("unpack-objects: %v\n%s", err, out)
		}
		f.Close()
		os.Remove(moved)
		os.Remove(strings.TrimSuffix(p, ".pack") + ".idx")
	}
}

// TestGetConcurrent: goroutines asking for one snapshot at once share one extraction.
func TestGetConcurrent(t *testing.T) {
	r := newRepo(t)
	for i := range 50 {
		r.write(fmt.Sprintf("d%d/f%d.c", i%5, i), strings.Repeat("x", i*100))
	}
	commit := r.commit("c")
	git, logged := loggingGit(t)
	c := newCache(t, snapshot.Options{Git: git})
	const n = 8
	var wg sync.WaitGroup
	snaps := make([]*snapshot.Snapshot, n)
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			snaps[i], errs[i] = c.Get(context.Background(), r.dir, commit)
		}()
	}
	close(start)
	wg.Wait()
	built := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Get %d: %v", i, errs[i])
		}
		defer snaps[i].Close()
		if snaps[i].Built() {
			built++
		}
		if snaps[i].Root() != snaps[0].Root() {
			t.Errorf("Get %d: root %s, want %s", i, snaps[i].Root(), snaps[0].Root())
		}
	}
	if built != 1 {
		t.Errorf("%d Gets built the snapshot, want 1", built)
	}
	if got := snaps[n-1].Info().Files; got != 50 {
		t.Errorf("Files = %d, want 50", got)
	}
	// One flight: the commit was looked up once and its tree listed once.
	lines := logged()
	if got := [2]int{count(lines, " rev-parse --verify "), count(lines, " ls-tree ")}; got != [2]int{1, 1} {
		t.Errorf("git looked up the commit %d times and listed its tree %d times; want once each:\n%s", got[0], got[1], strings.Join(lines, "\n"))
	}
	// Later Gets of the full commit id ask git nothing.
	get(t, c, r.dir, commit)
	if got := len(logged()); got != len(lines) {
		t.Errorf("a Get of a materialised commit ran git %d times", got-len(lines))
	}
}

// The environment variables of TestHelperProcess.
const (
	helperEnv   = "VULNBENCH_SNAPSHOT_HELPER"
	helperCache = "VULNBENCH_SNAPSHOT_HELPER_CACHE"
	helperRepo  = "VULNBENCH_SNAPSHOT_HELPER_REPO"
	helperRev   = "VULNBENCH_SNAPSHOT_HELPER_COMMIT"
	helperGit   = "VULNBENCH_SNAPSHOT_HELPER_GIT"
)

// TestHelperProcess is a child of TestGetProcesses: it waits for a byte on stdin (so that all
// children start at once), runs four concurrent Gets, and prints "ROOT BUILT" per Get.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("run by TestGetProcesses")
	}
	c, err := snapshot.NewCache(os.Getenv(helperCache), snapshot.Options{Git: os.Getenv(helperGit)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(os.Stdin, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	lines := make([]string, 4)
	for i := range lines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.Get(context.Background(), os.Getenv(helperRepo), os.Getenv(helperRev))
			if err != nil {
				lines[i] = "ERROR " + err.Error()
				return
			}
			defer s.Close()
			lines[i] = fmt.Sprintf("%s %v", s.Root(), s.Built())
		}()
	}
	wg.Wait()
	fmt.Println("BEGIN")
	for _, l := range lines {
		fmt.Println(l)
	}
	fmt.Println("END")
}

// TestGetProcesses: three processes of four goroutines each materialise one commit at once;
// one Get in all builds it, every Get gets the same directory, and no temporary is left.
func TestGetProcesses(t *testing.T) {
	r := newRepo(t)
	for i := range 200 {
		r.write(fmt.Sprintf("p%d/q%d.txt", i%10, i), strings.Repeat("line\n", i))
	}
	commit := r.commit("c")
	git, logged := loggingGit(t)
	c := newCache(t, snapshot.Options{})
	type child struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *strings.Builder
	}
	var kids []child
	for range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), helperEnv+"=1", helperCache+"="+c.Dir(), helperRepo+"="+r.dir, helperRev+"="+commit, helperGit+"="+git)
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		kids = append(kids, child{cmd, stdin, out})
	}
	for _, k := range kids { // go
		if _, err := k.stdin.Write([]byte{1}); err != nil {
			t.Fatal(err)
		}
		k.stdin.Close()
	}
	built, gets := 0, 0
	var root string
	for i, k := range kids {
		if err := k.cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, k.out)
		}
		out := k.out.String()
		b, e := strings.Index(out, "BEGIN\n"), strings.Index(out, "END\n")
		if b < 0 || e < b {
			t.Fatalf("child %d printed no result:\n%s", i, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(out[b+6:e]), "\n") {
			dir, isBuilt, ok := strings.Cut(line, " ")
			if !ok || strings.HasPrefix(line, "ERROR") {
				t.Fatalf("child %d: %s", i, line)
			}
			gets++
			if isBuilt == "true" {
				built++
			}
			if root == "" {
				root = dir
			} else if dir != root {
				t.Errorf("child %d got %s, another Get %s", i, dir, root)
			}
		}
	}
	if gets != 12 || built != 1 {
		t.Errorf("%d Gets, %d built the snapshot; want 12 and 1", gets, built)
	}
	// The lock let one process extract; the others waited and used its snapshot.
	if lines := logged(); count(lines, " ls-tree ") != 1 || count(lines, " rev-parse --verify ") != 3 {
		t.Errorf("git ls-tree ran %d times, the commit was looked up %d times; want 1 and 3 (one a process):\n%s",
			count(lines, " ls-tree "), count(lines, " rev-parse --verify "), strings.Join(lines, "\n"))
	}
	s := get(t, c, r.dir, commit)
	if s.Root() != root || s.Info().Files != 200 {
		t.Errorf("after the children: root %s with %d files, want %s with 200", s.Root(), s.Info().Files, root)
	}
	noTemporaries(t, c)
}

// TestGetRemovesStaleTemporaries: an extraction a dead process left behind is removed by the
// next one to materialise that snapshot.
func TestGetRemovesStaleTemporaries(t *testing.T) {
	r := newRepo(t)
	r.write("a", "a\n")
	commit := r.commit("c")
	c := newCache(t, snapshot.Options{})
	gitDir, _ := filepath.EvalSymlinks(filepath.Join(r.dir, ".git"))
	key := snapshot.Key(gitDir, commit, snapshot.DefaultExtractMaxFileSize)
	stale := filepath.Join(c.Dir(), "snapshots", ".tmp-"+key+"-12345", "tree")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(stale, 0o555); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(c.Dir(), "snapshots", ".tmp-otherkey-1")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	get(t, c, r.dir, commit)
	if _, err := os.Stat(filepath.Dir(stale)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale temporary of this key: %v; want it removed", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another key's temporary (maybe under way): %v; want it kept", err)
	}
}

// TestGetCancelled: a cancelled context stops a Get, and a later Get still works.
func TestGetCancelled(t *testing.T) {
	r := newRepo(t)
	r.write("a", "a\n")
	commit := r.commit("c")
	c := newCache(t, snapshot.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s, err := c.Get(ctx, r.dir, commit); !errors.Is(err, context.Canceled) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("Get with a cancelled context: %v", err)
	}
	get(t, c, r.dir, commit)
}

// TestGetTooBig: the extraction limits refuse a commit with too many files or bytes.
func TestGetTooBig(t *testing.T) {
	r := newRepo(t)
	for i := range 5 {
		r.write(fmt.Sprintf("f%d", i), strings.Repeat("y", 100))
	}
	commit := r.commit("c")
	for _, tc := range []struct {
		opts snapshot.Options
		want string
	}{
		{snapshot.Options{MaxFiles: 4}, "more than 4 files"},
		{snapshot.Options{MaxBytes: 450}, "more than 450 bytes"},
	} {
		c := newCache(t, tc.opts)
		_, err := c.Get(context.Background(), r.dir, commit)
		if !errors.Is(err, snapshot.ErrTooBig) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), commit) {
			t.Errorf("Get with %+v: %v; want ErrTooBig saying %q", tc.opts, err, tc.want)
		}
	}
}

// TestGetBareAndWorktree: a bare clone and a linked worktree serve snapshots too; a worktree
// shares its repository's identity, so its snapshot is the repository's.
func TestGetBareAndWorktree(t *testing.T) {
	r := newRepo(t)
	r.write("x.c", "int x;\n")
	commit := r.commit("c")
	bare := filepath.Join(t.TempDir(), "x.git")
	runGit(t, t.TempDir(), "clone", "-q", "--bare", r.dir, bare)
	wt := filepath.Join(t.TempDir(), "wt")
	r.git("worktree", "add", "-q", "--detach", wt, commit)
	for _, sb := range gitSandboxes(t) {
		t.Run(sandboxName(sb), func(t *testing.T) { testBareAndWorktree(t, sb, r, bare, wt, commit) })
	}
}

func testBareAndWorktree(t *testing.T, sb *sandbox.Sandbox, r *gitRepo, bare, wt, commit string) {
	c := newCache(t, snapshot.Options{Sandbox: sb})
	fromRepo := get(t, c, r.dir, commit)
	fromBare := get(t, c, bare, commit)
	fromWorktree := get(t, c, wt, commit)
	if b, err := fromBare.ReadFile("x.c"); err != nil || string(b) != "int x;\n" {
		t.Errorf("x.c from the bare clone: %q, %v", b, err)
	}
	if fromBare.Root() == fromRepo.Root() || !fromBare.Built() {
		t.Errorf("the bare clone is another repository: root %s built %v", fromBare.Root(), fromBare.Built())
	}
	if fromWorktree.Root() != fromRepo.Root() || fromWorktree.Built() {
		t.Errorf("the worktree's snapshot: root %s built %v; want the repository's %s", fromWorktree.Root(), fromWorktree.Built(), fromRepo.Root())
	}
}

// TestGetHEAD: HEAD is the repository's HEAD, and a linked worktree's own.
func TestGetHEAD(t *testing.T) {
	r := newRepo(t)
	r.write("v", "1\n")
	first := r.commit("one")
	wt := filepath.Join(t.TempDir(), "wt")
	r.git("worktree", "add", "-q", "--detach", wt, first)
	r.write("v", "2\n")
	second := r.commit("two")
	for _, sb := range gitSandboxes(t) {
		c := newCache(t, snapshot.Options{Sandbox: sb})
		for dir, want := range map[string]string{r.dir: second, wt: first} {
			if got := get(t, c, dir, "HEAD").Info().Commit; got != want {
				t.Errorf("%s: HEAD of %s is %s, want %s", sandboxName(sb), dir, got, want)
			}
		}
	}
}
