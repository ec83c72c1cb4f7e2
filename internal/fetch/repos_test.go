package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// gitServer serves bare repositories under its root over git's smart HTTP protocol (git
// http-backend as a CGI program) and counts the requests each repository gets.
type gitServer struct {
	*httptest.Server
	root string
	mu   sync.Mutex
	hits map[string]int // "OWNER/NAME" -> requests
}

// newGitServer starts a server; allow are the upload-pack settings it turns on (filter:
// partial clones; any: fetching any object by id).
func newGitServer(t *testing.T, filter bool) *gitServer {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	s := &gitServer{root: t.TempDir(), hits: map[string]int{}}
	cfg := filepath.Join(t.TempDir(), "server.gitconfig")
	gittest.Run(t, s.root, "config", "--file", cfg, "uploadpack.allowAnySHA1InWant", "true")
	gittest.Run(t, s.root, "config", "--file", cfg, "uploadpack.allowFilter", fmt.Sprint(filter))
	backend := &cgi.Handler{Path: gitPath, Args: []string{"http-backend"}, Stderr: io.Discard, Env: []string{
		"GIT_PROJECT_ROOT=" + s.root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + cfg, "HOME=" + s.root,
	}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 3)
		if len(parts) >= 2 {
			s.mu.Lock()
			s.hits[parts[0]+"/"+parts[1]]++
			s.mu.Unlock()
		}
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *gitServer) count(repo string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[repo]
}

// remote makes the bare repository OWNER/NAME on the server from a work tree's history and
// returns the work tree, to commit more into and push from.
func (s *gitServer) remote(t *testing.T, name string) string {
	t.Helper()
	work := t.TempDir()
	gittest.Run(t, work, "init", "-q", "-b", "main")
	bare := filepath.Join(s.root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(bare), 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, s.root, "init", "-q", "--bare", "-b", "main", bare)
	gittest.Run(t, work, "remote", "add", "origin", bare)
	return work
}

// push pushes the work tree's HEAD to ref on its server repository.
func push(t *testing.T, work, ref string) {
	t.Helper()
	gittest.Run(t, work, "push", "-q", "origin", "HEAD:"+ref)
}

// client is the git configuration of the fetching side: github.com is the test server (a
// mirror, by url.<base>.insteadOf) and gone.example a port nothing listens on.
func client(t *testing.T, s *gitServer) []string {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, "client.gitconfig")
	gittest.Run(t, home, "config", "--file", cfg, "url."+s.URL+"/.insteadOf", "https://github.com/")
	gittest.Run(t, home, "config", "--file", cfg, "url.http://127.0.0.1:1/.insteadOf", "https://gone.example/")
	return []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + cfg, "HOME=" + home,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
}

// outcome is what the tests compare of a Result.
type outcome struct {
	Action  Action
	Path    string
	Partial bool
	Commits int
	Missing map[string]string // commit -> which error
	Err     string            // which error
}

func which(err error) string {
	for _, e := range []error{ErrUnreachable, ErrNoCommit, ErrIncomplete, ErrInTheWay} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return ""
}

func outcomes(dir string, results []Result) []outcome {
	out := make([]outcome, len(results))
	for i, r := range results {
		rel, _ := filepath.Rel(dir, r.Path)
		o := outcome{Action: r.Action, Path: filepath.ToSlash(rel), Partial: r.Partial, Commits: r.Commits, Err: which(r.Err)}
		for _, m := range r.Missing {
			if o.Missing == nil {
				o.Missing = map[string]string{}
			}
			o.Missing[m.ID] = which(m.Err)
		}
		out[i] = o
	}
	return out
}

// readAt materialises repo at commit as a snapshot and reads file from it: the clone holds
// every object the commit needs.
func readAt(t *testing.T, reposDir, url, commit, file string) string {
	t.Helper()
	path, err := snapshot.Locate(reposDir, url)
	if err != nil {
		t.Fatal(err)
	}
	c, err := snapshot.NewCache(t.TempDir(), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Get(context.Background(), path, commit)
	if err != nil {
		t.Fatalf("snapshot of %s at %s: %v", url, commit, err)
	}
	defer s.Close()
	b, err := os.ReadFile(filepath.Join(s.Root(), file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const absent = "0123456789abcdef0123456789abcdef01234567"

// TestRepos fetches a suite's repositories from a mirror: a commit on a branch and one only
// on a pull request's ref (fetched by id), a commit the remote does not have, an unreachable
// remote. Then again: the complete repositories cost no request at all.
func TestRepos(t *testing.T) {
	srv := newGitServer(t, true)
	alpha := srv.remote(t, "acme/alpha")
	c1 := gittest.Repo(t, alpha, map[string]string{"src/a.c": "int a;\n", "README": "alpha\n"})
	push(t, alpha, "refs/heads/main")
	pr := gittest.Repo(t, alpha, map[string]string{"src/a.c": "int a = 1;\n"})
	push(t, alpha, "refs/pull/1/head")
	beta := srv.remote(t, "acme/beta")
	b1 := gittest.Repo(t, beta, map[string]string{"b.py": "b = 1\n"})
	push(t, beta, "refs/heads/main")

	suitePath := filepath.Join(t.TempDir(), "suite.jsonl")
	gittest.WriteFiles(t, filepath.Dir(suitePath), map[string]string{"suite.jsonl": strings.Join([]string{
		vexCase("a1", "https://github.com/acme/alpha", c1),
		vexCase("a2", "https://github.com/acme/alpha.git", pr),
		vexCase("b1", "https://github.com/acme/beta", b1),
		vexCase("b2", "https://github.com/acme/beta", absent),
		vexCase("g1", "https://gone.example/x/y", c1),
		vexCase("a3", "https://github.com/acme/alpha", c1),
	}, "\n") + "\n"})
	needs, problems, err := Needs(suitePath)
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	wantNeeds := []Need{
		{URL: "https://github.com/acme/alpha", Commits: []string{c1, pr}, Cases: 3},
		{URL: "https://github.com/acme/beta", Commits: []string{b1, absent}, Cases: 2},
		{URL: "https://gone.example/x/y", Commits: []string{c1}, Cases: 1},
	}
	if d := cmp.Diff(wantNeeds, needs); d != "" {
		t.Fatalf("needs (-want +got):\n%s", d)
	}

	dir := t.TempDir()
	var mu sync.Mutex
	steps := map[string][]Step{}
	opts := Options{Dir: dir, Jobs: 2, Filter: "blob:none", Env: client(t, srv), Progress: func(e Event) {
		mu.Lock()
		steps[e.URL] = append(steps[e.URL], e.Step)
		mu.Unlock()
	}}
	results, err := Repos(context.Background(), needs, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []outcome{
		{Action: Cloned, Path: "github.com/acme/alpha", Partial: true, Commits: 2},
		{Action: Cloned, Path: "github.com/acme/beta", Partial: true, Commits: 1, Missing: map[string]string{absent: ErrNoCommit.Error()}},
		{Action: Failed, Path: "gone.example/x/y", Err: ErrUnreachable.Error()},
	}
	if d := cmp.Diff(want, outcomes(dir, results)); d != "" {
		t.Fatalf("first fetch (-want +got):\n%s", d)
	}
	if !strings.Contains(results[2].Err.Error(), "127.0.0.1") {
		t.Errorf("the unreachable remote's reason does not say where git tried: %v", results[2].Err)
	}
	// Finding (issue 31): an unreachable repository left an empty owner folder with a .lock file.
	var litter []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if rel, _ := filepath.Rel(dir, path); strings.HasPrefix(rel, "gone.example") || strings.HasSuffix(rel, ".lock") {
			litter = append(litter, rel)
		}
		return nil
	})
	if len(litter) > 0 {
		t.Errorf("the fetch left %v", litter)
	}
	wantSteps := map[string][]Step{
		"https://github.com/acme/alpha": {StepCloning, StepContents, StepDone},
		"https://github.com/acme/beta":  {StepCloning, StepContents, StepDone},
		"https://gone.example/x/y":      {StepCloning, StepDone},
	}
	if d := cmp.Diff(wantSteps, steps); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
	if got := readAt(t, dir, "https://github.com/acme/alpha", pr, "src/a.c"); got != "int a = 1;\n" {
		t.Errorf("alpha's pull request commit has src/a.c = %q", got)
	}
	if got := readAt(t, dir, "https://github.com/acme/beta", b1, "b.py"); got != "b = 1\n" {
		t.Errorf("beta has b.py = %q", got)
	}

	// Again, with what could be had: no request reaches the server.
	before := srv.count("acme/alpha") + srv.count("acme/beta")
	needs[1].Commits = []string{b1}
	again, err := Repos(context.Background(), needs[:2], opts)
	if err != nil {
		t.Fatal(err)
	}
	want = []outcome{
		{Action: Present, Path: "github.com/acme/alpha", Partial: true, Commits: 2},
		{Action: Present, Path: "github.com/acme/beta", Partial: true, Commits: 1},
	}
	if d := cmp.Diff(want, outcomes(dir, again)); d != "" {
		t.Errorf("second fetch (-want +got):\n%s", d)
	}
	if after := srv.count("acme/alpha") + srv.count("acme/beta"); after != before || before == 0 {
		t.Errorf("requests to the server: %d before the second fetch, %d after (want equal, and some)", before, after)
	}
}

func vexCase(id, url, commit string) string {
	return fmt.Sprintf(`{"id": %q, "kind": "vex", "label": "ben", "cve": "CVE-2024-0001", "repo": {"url": %q, "commit": %q}}`, id, url, commit)
}

// An existing clone in another place of the layout (DIR/OWNER/NAME, with a work tree) is
// updated in place: a commit pushed since it was cloned is fetched into it, and the user's own
// branches are left as they were.
func TestReposUpdatesAnExistingClone(t *testing.T) {
	srv := newGitServer(t, true)
	alpha := srv.remote(t, "acme/alpha")
	c1 := gittest.Repo(t, alpha, map[string]string{"a.c": "int a;\n"})
	push(t, alpha, "refs/heads/main")
	env := client(t, srv)
	dir := t.TempDir()
	mine := filepath.Join(dir, "acme", "alpha")
	cmd := exec.Command("git", "clone", "-q", "https://github.com/acme/alpha", mine)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	c2 := gittest.Repo(t, alpha, map[string]string{"a.c": "int a = 2;\n"})
	push(t, alpha, "refs/heads/main")

	results, err := Repos(context.Background(), []Need{{URL: "https://github.com/acme/alpha", Commits: []string{c1, c2}}},
		Options{Dir: dir, Filter: "blob:none", Env: env})
	if err != nil {
		t.Fatal(err)
	}
	want := []outcome{{Action: Updated, Path: "acme/alpha", Commits: 2}}
	if d := cmp.Diff(want, outcomes(dir, results)); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if got := gittest.Run(t, mine, "rev-parse", "main"); got != c1 {
		t.Errorf("the clone's main moved to %s, want it left at %s", got, c1)
	}
	if _, err := os.Stat(filepath.Join(dir, "github.com")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a second clone was made beside the existing one: %v", err)
	}
	if got := readAt(t, dir, "https://github.com/acme/alpha", c2, "a.c"); got != "int a = 2;\n" {
		t.Errorf("a.c at the new commit = %q", got)
	}
}

// An interrupted run's leftovers: a temporary clone beside the repository's place is cleared
// and never found by Locate; a partial clone whose pinned commit's contents were not fetched
// yet is completed (not taken for complete because the commit is there); something in the
// way that is not a repository is reported and left alone.
func TestReposResumes(t *testing.T) {
	srv := newGitServer(t, true)
	alpha := srv.remote(t, "acme/alpha")
	c1 := gittest.Repo(t, alpha, map[string]string{"a.c": "int a;\n"})
	push(t, alpha, "refs/heads/main")
	beta := srv.remote(t, "acme/beta")
	b1 := gittest.Repo(t, beta, map[string]string{"b.c": "int b;\n"})
	push(t, beta, "refs/heads/main")
	env := client(t, srv)
	dir := t.TempDir()

	stale := filepath.Join(dir, "github.com", "acme", ".alpha.tmp-123")
	gittest.WriteFiles(t, stale, map[string]string{"HEAD": "ref: refs/heads/main\n", "objects/x": ""})
	half := filepath.Join(dir, "github.com", "acme", "beta")
	cmd := exec.Command("git", "clone", "-q", "--bare", "--filter=blob:none", "https://github.com/acme/beta", half)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	gittest.WriteFiles(t, filepath.Join(dir, "github.com", "acme", "gamma"), map[string]string{"notes.txt": "mine\n"})

	if _, err := snapshot.Locate(dir, "https://github.com/acme/alpha"); err == nil {
		t.Fatal("Locate found the interrupted clone")
	}
	needs := []Need{
		{URL: "https://github.com/acme/alpha", Commits: []string{c1}},
		{URL: "https://github.com/acme/beta", Commits: []string{b1}},
		{URL: "https://github.com/acme/gamma", Commits: []string{c1}},
	}
	results, err := Repos(context.Background(), needs, Options{Dir: dir, Filter: "blob:none", Env: env})
	if err != nil {
		t.Fatal(err)
	}
	want := []outcome{
		{Action: Cloned, Path: "github.com/acme/alpha", Partial: true, Commits: 1},
		{Action: Updated, Path: "github.com/acme/beta", Partial: true, Commits: 1},
		{Action: Failed, Path: "github.com/acme/gamma", Err: ErrInTheWay.Error()},
	}
	if d := cmp.Diff(want, outcomes(dir, results)); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the interrupted clone is still there: %v", err)
	}
	if got := readAt(t, dir, "https://github.com/acme/beta", b1, "b.c"); got != "int b;\n" {
		t.Errorf("b.c = %q", got)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "github.com", "acme", "gamma", "notes.txt")); err != nil || string(b) != "mine\n" {
		t.Errorf("what was in the way was touched: %q, %v", b, err)
	}
}

// A server that does not do partial clones sends everything, and everything works (git still
// records the clone as partial: its promisor remote is set).
func TestReposWithoutFilterSupport(t *testing.T) {
	srv := newGitServer(t, false)
	alpha := srv.remote(t, "acme/alpha")
	c1 := gittest.Repo(t, alpha, map[string]string{"a.c": "int a;\n"})
	push(t, alpha, "refs/heads/main")
	dir := t.TempDir()
	results, err := Repos(context.Background(), []Need{{URL: "https://github.com/acme/alpha", Commits: []string{c1}}},
		Options{Dir: dir, Filter: "blob:none", Env: client(t, srv)})
	if err != nil {
		t.Fatal(err)
	}
	want := []outcome{{Action: Cloned, Path: "github.com/acme/alpha", Partial: true, Commits: 1}}
	if d := cmp.Diff(want, outcomes(dir, results)); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if got := readAt(t, dir, "https://github.com/acme/alpha", c1, "a.c"); got != "int a;\n" {
		t.Errorf("a.c = %q", got)
	}
}

func TestNeedsProblems(t *testing.T) {
	dir := t.TempDir()
	gittest.WriteFiles(t, dir, map[string]string{"s.jsonl": strings.Join([]string{
		vexCase("ok", "https://github.com/acme/alpha", "abcdef0"),
		vexCase("opt", "https://github.com/acme/alpha", "--upload-pack=touch /tmp/x"),
		vexCase("ssh", "git@-oProxyCommand=x:acme/alpha.git", "abcdef0"),
		vexCase("scheme", "file:///etc/alpha", "abcdef0"),
		`{"id": "nocommit", "kind": "vex", "label": "ben", "cve": "CVE-1", "repo": {"url": "https://github.com/acme/beta"}}`,
		`{"id": "function", "kind": "function", "label": "ben", "code": "int f;"}`,
	}, "\n") + "\n"})
	needs, problems, err := Needs(filepath.Join(dir, "s.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Need{{URL: "https://github.com/acme/alpha", Commits: []string{"abcdef0"}, Cases: 1}, {URL: "https://github.com/acme/beta", Cases: 1}}
	if d := cmp.Diff(want, needs); d != "" {
		t.Errorf("needs (-want +got):\n%s", d)
	}
	var lines []string
	for _, p := range problems {
		lines = append(lines, strings.SplitN(p.Error(), ":", 3)[1])
	}
	if d := cmp.Diff([]string{"2", "3", "4"}, lines); d != "" {
		t.Errorf("problem lines (-want +got):\n%s\n%v", d, problems)
	}
}
