package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/store"
)

// TestPreflightListsEveryMiss: a suite whose govulncheck run lacks two repositories, one
// advisory and the scanner gets one message listing all four with their fixes, exit 2, and the
// store is left byte for byte as it was; what is present (a third repository at its commit,
// the other advisory) is not listed.
func TestPreflightListsEveryMiss(t *testing.T) {
	dir := t.TempDir()
	head := gittest.Repo(t, filepath.Join(dir, "repos", "github.com", "acme", "app"), map[string]string{"go.mod": "module example.com/app\n"})
	var suite strings.Builder
	for i, c := range []struct{ repo, commit, cve string }{
		{"app", head, "CVE-2020-27813"}, {"lib", head, "CVE-2020-27813"}, {"tool", head, "CVE-2099-0001"}, {"app", head, "CVE-2099-0001"},
	} {
		fmt.Fprintf(&suite, `{"id":"v%d","kind":"vex","label":"ben","cve":%q,"language":"go","repo":{"url":"https://github.com/acme/%s","commit":%q},"vex":{"category":"code_not_reachable","ecosystem":"Go"}}`+"\n", i, c.cve, c.repo, c.commit)
	}
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(suite.String()), 0o644)
	os.MkdirAll(filepath.Join(dir, "adv"), 0o755)
	os.WriteFile(filepath.Join(dir, "adv", "GO-2020-0019.json"), []byte(`{"id":"GO-2020-0019","modified":"2023-01-01T00:00:00Z","aliases":["CVE-2020-27813"],"affected":[{"package":{"name":"github.com/gorilla/websocket","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.4.1"}]}]}]}`), 0o644)

	// A store with a run in it already.
	db := filepath.Join(dir, "v.db")
	if code, _, errOut := run(t, dir, "run", "--suite", "s.jsonl", "--subject", "constant:vul", "--db", db, "--run-id", "before", "--no-score"); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, errOut)
	}
	st, err := store.Open(context.Background(), db) // settle the file as any later opening would
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}

	// PATH holds git alone: no govulncheck.
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	if err := os.Symlink(git, filepath.Join(bin, "git")); err != nil {
		t.Fatal(err)
	}
	noPrograms(t)
	t.Setenv("PATH", bin)
	code, out, errOut := run(t, dir, "run", "--suite", "s.jsonl", "--subject", "govulncheck", "--repos", "repos", "--advisories", "adv", "--db", db)
	if code != 2 || out != "" {
		t.Errorf("exit %d, stdout %q; want 2 and nothing", code, out)
	}
	want := []string{
		"4 things it needs are missing (nothing was stored)",
		"subject govulncheck needs a program: govulncheck is not installed (looked in ",
		", on PATH, in ",
		")\n      fix: go install golang.org/x/vuln/cmd/govulncheck@",
		"repository https://github.com/acme/lib (1 case) is not under repos\n      fix: vulnbench fetch repos --suite s.jsonl --repos repos",
		"repository https://github.com/acme/tool (1 case) is not under repos\n      fix: vulnbench fetch repos --suite s.jsonl --repos repos",
		"advisory CVE-2099-0001 (2 cases) has no OSV record in adv\n      fix: vulnbench fetch advisories --suite s.jsonl --advisories adv",
	}
	for _, w := range want {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	if n := strings.Count(errOut, "  - "); n != 4 || strings.Contains(errOut, "acme/app") || strings.Contains(errOut, "CVE-2020-27813") {
		t.Errorf("%d misses listed, want exactly the four (the present repository and advisory are not misses):\n%s", n, errOut)
	}
	after, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the store changed: a failed preflight must store nothing")
	}
	for _, suffix := range []string{"-wal", "-journal"} {
		if b, err := os.ReadFile(db + suffix); err == nil && len(b) > 0 {
			t.Errorf("%s%s holds %d bytes: the store was written", db, suffix, len(b))
		}
	}
}
