package vexmine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/suite/vexmine"
)

// Every --repos layout gives a URL that snapshot.Locate finds the repository again from.
func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"github.com/a/one", "gitlab.com/g/sub/two", "b/three", "c+four", "five", ".hidden/six"} {
		gittest.Repo(t, filepath.Join(dir, p), map[string]string{"x": "1"})
	}
	bare := filepath.Join(dir, "d+seven.git")
	gittest.Run(t, dir, "clone", "-q", "--bare", filepath.Join(dir, "five"), bare)
	gittest.Run(t, filepath.Join(dir, "five"), "remote", "add", "origin", "https://example.org/team/five.git")
	repos, err := vexmine.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range repos {
		got = append(got, r.Project+" "+r.URL)
		at, err := snapshot.Locate(dir, r.URL)
		if err != nil || at != r.Dir {
			t.Errorf("%s: Locate(%s) = %s, %v; want %s", r.Project, r.URL, at, err, r.Dir)
		}
	}
	want := []string{"a/one https://github.com/a/one", "b/three https://github.com/b/three", "c/four https://github.com/c/four",
		"d/seven https://github.com/d/seven", "g/sub/two https://gitlab.com/g/sub/two", "team/five https://example.org/team/five"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
}

// The repository's own configuration is never read: a gpg.program that git log runs to verify
// a signed commit when log.showSignature is set is not run. --since and --rev choose the
// history; a revision the repository lacks is the repository's error, not the run's.
func TestMineHostileAndOptions(t *testing.T) {
	repos := t.TempDir()
	dir := filepath.Join(repos, "github.com", "acme", "goapp")
	h := newHistory(t, dir)
	h.commit("initial", map[string]string{"go.mod": goMod("v3.0.0-20200313102051-9f266ea9e77c")})
	first := h.commit("Fix CVE-2022-28948", map[string]string{"go.mod": goMod("v3.0.1")})
	h.commit("pin yaml back", map[string]string{"go.mod": goMod("v3.0.0-20200313102051-9f266ea9e77c")})
	h.commit("again", map[string]string{"go.mod": goMod("v3.0.1")})
	// The last commit carries a signature, which git log verifies with gpg.program when
	// log.showSignature is set.
	raw := gittest.Run(t, dir, "cat-file", "commit", "HEAD")
	hdr, msg, _ := strings.Cut(raw, "\n\n")
	signed := hdr + "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQ==\n -----END PGP SIGNATURE-----\n\n" + msg + "\n"
	hash := exec.Command("git", "hash-object", "-t", "commit", "-w", "--stdin")
	hash.Dir, hash.Stdin = dir, strings.NewReader(signed)
	out, err := hash.Output()
	if err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, dir, "update-ref", "refs/heads/main", strings.TrimSpace(string(out)))
	h.revs[3] = strings.TrimSpace(string(out))
	ran := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "gpg")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+ran+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.WriteString("[log]\n\tshowSignature = true\n[gpg]\n\tprogram = " + script + "\n")
	cfg.Close()
	gittest.Run(t, dir, "log", "-1", "--format=%H") // git itself runs the program here
	if _, err := os.Stat(ran); err != nil {
		t.Fatalf("git log did not run the repository's gpg.program: the test shows nothing (%v)", err)
	}
	os.Remove(ran)
	db, err := advisory.Open(realAdvisories(t, nil, []string{"GO-2022-0603"}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids := func(opts vexmine.Options) []string {
		rep, err := vexmine.Mine(context.Background(), repos, db, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range rep.Cases {
			out = append(out, c.Commit[:7])
		}
		if e := rep.Repos[0].Err; e != "" {
			out = append(out, "error: "+e)
		}
		return out
	}
	all := ids(vexmine.Options{})
	if diff := cmp.Diff([]string{h.revs[0][:7], h.revs[2][:7]}, all); diff != "" {
		t.Errorf("two fixes (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("mining ran the repository's gpg.program")
	}
	since := ids(vexmine.Options{Since: time.Date(2024, 1, 3, 0, 0, 0, 0, time.UTC)})
	if diff := cmp.Diff([]string{h.revs[2][:7]}, since); diff != "" {
		t.Errorf("--since 2024-01-03 (-want +got):\n%s", diff)
	}
	rev := ids(vexmine.Options{Rev: first})
	if diff := cmp.Diff([]string{h.revs[0][:7]}, rev); diff != "" {
		t.Errorf("--rev %s (-want +got):\n%s", first, diff)
	}
	bad := ids(vexmine.Options{Rev: "no-such-branch"})
	if len(bad) != 1 || !strings.Contains(bad[0], `revision "no-such-branch" is not a commit`) {
		t.Errorf("--rev no-such-branch: %q", bad)
	}
}

// A manifest version over the size limit, or one its parser refuses, is a problem of its
// repository, named PATH@COMMIT; the rest of the history is mined.
func TestMineProblems(t *testing.T) {
	repos := t.TempDir()
	h := newHistory(t, filepath.Join(repos, "acme+web"))
	h.commit("initial", map[string]string{"package.json": packageJSON("4.17.1", "^4.17.15"), "web/package.json": "{broken"})
	h.commit("fix", map[string]string{"package.json": packageJSON("4.19.2", "^4.17.15"), "web/package.json": "{still broken"})
	db, err := advisory.Open(realAdvisories(t, []string{"GHSA-rv95-896h-c2vc"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rep, err := vexmine.Mine(context.Background(), repos, db, vexmine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Repos[0]
	if len(rep.Cases) != 1 || r.Project != "acme/web" || len(r.Problems) != 1 || !strings.HasPrefix(r.Problems[0], "web/package.json@"+h.revs[1][:12]+": web/package.json: not a JSON object") {
		t.Errorf("cases %d, repo %+v", len(rep.Cases), r)
	}
	rep, err = vexmine.Mine(context.Background(), repos, db, vexmine.Options{MaxManifest: 20})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Repos[0]; len(rep.Cases) != 0 || len(r.Problems) != 2 || !strings.Contains(r.Problems[0], "over the 20 byte limit") {
		t.Errorf("20-byte limit: cases %d, problems %q", len(rep.Cases), r.Problems)
	}
}
