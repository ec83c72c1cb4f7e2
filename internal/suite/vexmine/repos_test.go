package vexmine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// A change that swaps an affected module for the module the record says is fixed (the Go
// database's GO-2020-0017: github.com/dgrijalva/jwt-go, fixed only in its /v4 module) is a
// candidate; one that only removes the affected module is dropped as removed.
func TestMineReplacement(t *testing.T) {
	repos := t.TempDir()
	h := newHistory(t, filepath.Join(repos, "github.com", "acme", "api"))
	mod := func(req string) string {
		return "module example.com/api\n\ngo 1.21\n\nrequire (\n\tgithub.com/labstack/echo/v4 v4.1.0\n" + req + ")\n"
	}
	h.commit("initial", map[string]string{"go.mod": mod("\tgithub.com/dgrijalva/jwt-go v3.2.0+incompatible\n")})
	swap := h.commit("Upgrade github.com/dgrijalva/jwt-go to 4.0.0-preview1", map[string]string{"go.mod": mod("\tgithub.com/dgrijalva/jwt-go/v4 v4.0.0-preview1\n")})
	h.commit("back to v3", map[string]string{"go.mod": mod("\tgithub.com/dgrijalva/jwt-go v3.2.0+incompatible\n")})
	drop := h.commit("no more jwt", map[string]string{"go.mod": mod("")})
	db, err := advisory.Open(realAdvisories(t, nil, []string{"GO-2020-0017"}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rep, err := vexmine.Mine(context.Background(), repos, db, vexmine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 1 {
		t.Fatalf("%d cases, want 1", len(rep.Cases))
	}
	mi := rep.Cases[0].Meta["mined"].(*vexmine.Mined)
	got := []string{rep.Cases[0].ID, mi.FixCommit, mi.Package + " " + mi.Old + " -> " + mi.NewPackage + " " + mi.New, manifestLines(mi)[0]}
	want := []string{"acme-api-" + h.revs[0][:7] + "-CVE-2020-26160", swap, "github.com/dgrijalva/jwt-go 3.2.0+incompatible -> github.com/dgrijalva/jwt-go/v4 4.0.0-preview1",
		"go.mod:7 github.com/dgrijalva/jwt-go v3.2.0+incompatible -> go.mod:7 github.com/dgrijalva/jwt-go/v4 v4.0.0-preview1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replacement (-want +got):\n%s", diff)
	}
	var drops []string
	for _, d := range rep.Drops {
		drops = append(drops, d.Commit+" "+string(d.Reason)+" "+d.Bump.Package+" "+strings.Join(d.Vulns, ","))
	}
	if diff := cmp.Diff([]string{drop + " removed github.com/dgrijalva/jwt-go CVE-2020-26160"}, drops); diff != "" {
		t.Errorf("drops (-want +got):\n%s", diff)
	}
}

// With Pulls, the commits of pull request refs the first-parent history does not reach are
// mined too: a closed pull request's fix is a candidate (its number from the ref), one that was
// squashed onto the mainline is dropped as landed there.
func TestMinePulls(t *testing.T) {
	repos := t.TempDir()
	h := newHistory(t, filepath.Join(repos, "github.com", "acme", "pyapp"))
	base := h.commit("initial", map[string]string{"requirements.txt": requirements("2.3.3", "2.25.0", "1.26.4", "3.1.2")})
	// pull request 5, never merged: werkzeug 2.3.3 -> 3.0.3
	gittest.Run(t, h.dir, "checkout", "-q", "-b", "pr5")
	closed := h.commit("Bump werkzeug from 2.3.3 to 3.0.3", map[string]string{"requirements.txt": requirements("3.0.3", "2.25.0", "1.26.4", "3.1.2")})
	gittest.Run(t, h.dir, "update-ref", "refs/pull/5/head", closed)
	// pull request 6, squashed onto main: requests 2.25.0 -> 2.31.0
	gittest.Run(t, h.dir, "checkout", "-q", "-b", "pr6", base)
	proposed := h.commit("Bump requests from 2.25.0 to 2.31.0", map[string]string{"requirements.txt": requirements("2.3.3", "2.31.0", "1.26.4", "3.1.2")})
	gittest.Run(t, h.dir, "update-ref", "refs/pull/6/head", proposed)
	gittest.Run(t, h.dir, "checkout", "-q", "main")
	h.commit("other work", map[string]string{"README": "x\n"})
	squash := h.commit("Bump requests from 2.25.0 to 2.31.0 (#6)", map[string]string{"requirements.txt": requirements("2.3.3", "2.31.0", "1.26.4", "3.1.2")})
	gittest.Run(t, h.dir, "branch", "-q", "-D", "pr5", "pr6")
	db, err := advisory.Open(realAdvisories(t, []string{"GHSA-2g68-c3qc-8985", "GHSA-j8r2-6x86-q33q"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	summary := func(opts vexmine.Options) ([]string, []string) {
		rep, err := vexmine.Mine(context.Background(), repos, db, opts)
		if err != nil {
			t.Fatal(err)
		}
		var cs, ds []string
		for _, c := range rep.Cases {
			mi := c.Meta["mined"].(*vexmine.Mined)
			cs = append(cs, mi.FixCommit[:7]+" "+c.CVE+" "+mi.Ref+" "+strconv.Itoa(mi.PullRequest))
		}
		for _, d := range rep.Drops {
			ds = append(ds, d.Commit[:7]+" "+string(d.Reason))
		}
		return cs, ds
	}
	cs, ds := summary(vexmine.Options{})
	if diff := cmp.Diff([]string{squash[:7] + " CVE-2023-32681  6"}, cs); diff != "" || ds != nil {
		t.Errorf("first-parent only: drops %q, candidates (-want +got):\n%s", ds, diff)
	}
	cs, ds = summary(vexmine.Options{Pulls: true})
	if diff := cmp.Diff([]string{closed[:7] + " CVE-2024-34069 refs/pull/5/head 5", squash[:7] + " CVE-2023-32681  6"}, cs); diff != "" {
		t.Errorf("with pull requests: candidates (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{proposed[:7] + " landed_on_mainline"}, ds); diff != "" {
		t.Errorf("with pull requests: drops (-want +got):\n%s", diff)
	}
}
