package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// gitRepo makes a repository with one commit holding main.c and returns its commit id.
func gitRepo(t *testing.T, dir, content string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// reader answers vul when the case's snapshot has main.c containing "strcpy", and counts the
// functions its code graph found.
type reader struct{}

func (reader) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	s, err := env.Snapshot(ctx)
	if err != nil {
		return verdict.Verdict{}, err
	}
	b, err := s.ReadFile("main.c")
	if err != nil {
		return verdict.Verdict{}, err
	}
	if _, err := s.ReadFile("../../etc/passwd"); err == nil {
		return verdict.Verdict{}, fmt.Errorf("read outside the snapshot")
	}
	g, err := env.Graph(ctx)
	if err != nil {
		return verdict.Verdict{}, err
	}
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, Explanation: fmt.Sprintf("%d definitions of f", len(g.Definitions("f", codegraph.Near{})))}
	if strings.Contains(string(b), "strcpy") {
		v.Label = suite.Vul
	}
	return v, nil
}

type noConfig struct{}

func (noConfig) Validate() error { return nil }

func TestUnitsReadTheirSnapshot(t *testing.T) {
	dir := t.TempDir()
	repos := filepath.Join(dir, "repos")
	vul := gitRepo(t, filepath.Join(repos, "github.com", "acme", "lib"), "void f(char *s){char b[4];strcpy(b,s);}\n")
	ben := gitRepo(t, filepath.Join(repos, "acme+app"), "int f(int x){return x+1;}\n")
	lines := []string{
		fmt.Sprintf(`{"id":"v","kind":"jit","label":"vul","repo":{"url":"https://github.com/acme/lib","commit":%q},"target":{"file":"main.c","function":"f"}}`, vul),
		fmt.Sprintf(`{"id":"b","kind":"jit","label":"ben","repo":{"url":"https://github.com/acme/app","commit":%q},"target":{"file":"main.c","function":"f"}}`, ben),
		fmt.Sprintf(`{"id":"m","kind":"jit","label":"ben","repo":{"url":"https://github.com/acme/gone","commit":%q},"target":{"file":"main.c","function":"f"}}`, ben),
		`{"id":"n","kind":"function","label":"ben","code":"int g(void){return 0;}"}`,
	}
	suitePath := filepath.Join(dir, "s.jsonl")
	os.WriteFile(suitePath, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	st, err := store.Open(context.Background(), filepath.Join(dir, "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fac := subject.Factory{Name: "reader", Kinds: suite.Kinds, Version: "1",
		New: func(subject.Config, subject.Deps) (subject.Subject, error) { return reader{}, nil }}
	out, err := Execute(context.Background(), Plan{Store: st, Version: "test", RunID: "r", Suite: suitePath, Factory: fac,
		Spec: "reader", Config: noConfig{}, Repeats: 2, Concurrency: 4, Repos: repos, SnapshotCache: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	st.Verdicts(context.Background(), "r", func(v verdict.Verdict) error {
		got[fmt.Sprintf("%s/%d", v.CaseID, v.Repeat)] = string(v.Status) + " " + string(v.Label) + " " + firstLine(v.Reason+v.Explanation)
		return nil
	})
	gone := "error  case m: " // then the paths tried
	for k, v := range got {
		if strings.HasPrefix(k, "m/") {
			if !strings.HasPrefix(v, gone) || !strings.Contains(v, filepath.Join(repos, "github.com", "acme", "gone")) || !strings.Contains(v, filepath.Join(repos, "acme+gone")) {
				t.Errorf("%s: %q; want an error naming the paths tried", k, v)
			}
			delete(got, k)
		}
	}
	want := map[string]string{
		"v/0": "ok vul 1 definitions of f", "v/1": "ok vul 1 definitions of f",
		"b/0": "ok ben 1 definitions of f", "b/1": "ok ben 1 definitions of f",
		"n/0": "error  the case has no repository snapshot", "n/1": "error  the case has no repository snapshot",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("verdicts (-want +got):\n%s", d)
	}
	if out.Result.Done != 8 {
		t.Errorf("%d units done, want 8", out.Result.Done)
	}
	// Materialised once per commit, without .git, read-only.
	entries, _ := filepath.Glob(filepath.Join(dir, "cache", "snapshots", "*", "tree"))
	if len(entries) != 2 {
		t.Errorf("%d snapshots materialised, want 2 (one per repository and commit)", len(entries))
	}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(e, ".git")); err == nil {
			t.Errorf("%s has .git", e)
		}
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
