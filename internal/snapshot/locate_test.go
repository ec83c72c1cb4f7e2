package snapshot_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/snapshot"
)

func TestParseRepoURL(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    snapshot.RepoURL
		wantErr string
	}{
		{in: "https://github.com/openssl/openssl", want: snapshot.RepoURL{Host: "github.com", Owner: []string{"openssl"}, Name: "openssl"}},
		{in: "https://github.com/openssl/openssl.git", want: snapshot.RepoURL{Host: "github.com", Owner: []string{"openssl"}, Name: "openssl"}},
		{in: "https://github.com/openssl/openssl/", want: snapshot.RepoURL{Host: "github.com", Owner: []string{"openssl"}, Name: "openssl"}},
		{in: "http://git.example.org:8080/a/b", want: snapshot.RepoURL{Host: "git.example.org", Owner: []string{"a"}, Name: "b"}},
		{in: "ssh://git@github.com/a/b.git", want: snapshot.RepoURL{Host: "github.com", Owner: []string{"a"}, Name: "b"}},
		{in: "git@github.com:torvalds/linux.git", want: snapshot.RepoURL{Host: "github.com", Owner: []string{"torvalds"}, Name: "linux"}},
		{in: "https://gitlab.com/group/sub/proj", want: snapshot.RepoURL{Host: "gitlab.com", Owner: []string{"group", "sub"}, Name: "proj"}},
		{in: "https://github.com/onlyowner", wantErr: "want HOST/OWNER/NAME"},
		{in: "https://github.com/a/../../etc", wantErr: `path element ".." is not a plain name`},
		{in: "https://github.com/a//b", wantErr: `path element "" is not a plain name`},
		{in: "https://../a/b", wantErr: `host ".." is not a plain name`},
		{in: "file:///etc/passwd", wantErr: `scheme "file" is not one of`},
		{in: "github.com/a/b", wantErr: "want https://HOST/OWNER/NAME"},
		{in: "https://github.com", wantErr: "has no path"},
	} {
		got, err := snapshot.ParseRepoURL(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseRepoURL(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRepoURL(%q): %v", tc.in, err)
			continue
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("ParseRepoURL(%q) (-want +got):\n%s", tc.in, d)
		}
	}
}

// TestLocate lays out repositories (real ones: clones and bare) under a --repos directory in
// every form of the contract and checks which one Locate picks.
func TestLocate(t *testing.T) {
	const url = "https://github.com/acme/widget"
	for _, tc := range []struct {
		name   string
		layout map[string]string // path under DIR -> "clone", "bare" or "plain" (a directory that is no repository)
		want   string            // path under DIR; "" for an error
	}{
		{name: "host/owner/name", layout: map[string]string{"github.com/acme/widget": "clone"}, want: "github.com/acme/widget"},
		{name: "host/owner/name.git bare", layout: map[string]string{"github.com/acme/widget.git": "bare"}, want: "github.com/acme/widget.git"},
		{name: "owner/name", layout: map[string]string{"acme/widget": "clone"}, want: "acme/widget"},
		{name: "owner/name.git", layout: map[string]string{"acme/widget.git": "bare"}, want: "acme/widget.git"},
		{name: "owner+name", layout: map[string]string{"acme+widget": "clone"}, want: "acme+widget"},
		{name: "owner+name.git", layout: map[string]string{"acme+widget.git": "bare"}, want: "acme+widget.git"},
		{name: "name", layout: map[string]string{"widget": "clone"}, want: "widget"},
		{name: "name.git", layout: map[string]string{"widget.git": "bare"}, want: "widget.git"},
		{name: "first form wins", layout: map[string]string{"widget": "clone", "acme/widget": "clone", "github.com/acme/widget.git": "bare"}, want: "github.com/acme/widget.git"},
		{name: "plain directory passed over", layout: map[string]string{"github.com/acme/widget": "plain", "widget": "clone"}, want: "widget"},
		{name: "missing", layout: map[string]string{"other": "clone", "acme/widget": "plain"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for p, kind := range tc.layout {
				full := filepath.Join(dir, filepath.FromSlash(p))
				if err := os.MkdirAll(full, 0o755); err != nil {
					t.Fatal(err)
				}
				switch kind {
				case "clone":
					runGit(t, full, "init", "-q")
				case "bare":
					runGit(t, full, "init", "-q", "--bare")
				}
			}
			got, err := snapshot.Locate(dir, url)
			if tc.want == "" {
				if !errors.Is(err, snapshot.ErrNoRepository) {
					t.Fatalf("Locate = %q, %v; want an ErrNoRepository error", got, err)
				}
				u, _ := snapshot.ParseRepoURL(url)
				for _, p := range u.Candidates(dir) {
					if !strings.Contains(err.Error(), p) {
						t.Errorf("error does not name the candidate %s: %v", p, err)
					}
				}
				if !strings.Contains(err.Error(), filepath.Join(dir, "acme", "widget")+" (exists, not a git repository)") {
					t.Errorf("error does not say acme/widget is no repository: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(dir, filepath.FromSlash(tc.want)); got != want {
				t.Errorf("Locate = %s, want %s", got, want)
			}
		})
	}
}

func TestLocateCandidatesOrder(t *testing.T) {
	u, err := snapshot.ParseRepoURL("git@gitlab.com:grp/sub/proj.git")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"R/gitlab.com/grp/sub/proj", "R/gitlab.com/grp/sub/proj.git",
		"R/grp/sub/proj", "R/grp/sub/proj.git",
		"R/grp+sub+proj", "R/grp+sub+proj.git",
		"R/proj", "R/proj.git",
	}
	if d := cmp.Diff(want, u.Candidates("R")); d != "" {
		t.Errorf("Candidates (-want +got):\n%s", d)
	}
}

func TestLocateNoReposDir(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := snapshot.Locate(missing, "https://github.com/a/b")
	if !errors.Is(err, snapshot.ErrNoRepository) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Locate in a missing directory: %v; want ErrNoRepository naming %s", err, missing)
	}
}
