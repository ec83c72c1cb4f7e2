package jitvul_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
)

// history builds a repository and says what tracing its fix must give.
type history struct {
	name string
	// build returns the fix commit, and the introducing commit the walk must find ("" when the
	// record must be dropped).
	build      func(r *gitRepo) (fix, intro string)
	file       string // default a.c
	function   string // default parse
	maxCommits int
	want       jitvul.Walk // compared without the commit ids, which build returns
	drop       jitvul.Reason
	vulCode    string // default v2
}

func histories() []history {
	return []history{{
		name: "introduced then edited",
		build: func(r *gitRepo) (string, string) {
			r.write("a.c", helper)
			r.commit("helper")
			r.write("a.c", helper+v1)
			r.commit("add parse")
			r.write("a.c", helper+v2)
			intro := r.commit("parse returns the first byte")
			r.write("b.c", other)
			r.commit("unrelated file")
			r.write("a.c", "#include <string.h>\n"+helper+v2)
			r.commit("same file, another place")
			r.write("a.c", "#include <string.h>\n"+helper+fixed)
			return r.commit("fix overflow"), intro
		},
		want: jitvul.Walk{CommitsWalked: 3, FileChanges: 2, Stop: jitvul.StopChanged},
	}, {
		name: "whitespace-only edit is the introducing commit",
		build: func(r *gitRepo) (string, string) {
			r.write("a.c", v2)
			r.commit("add parse")
			r.write("a.c", v2ws)
			intro := r.commit("reindent")
			r.write("a.c", strings.ReplaceAll(fixed, "\t", "    "))
			return r.commit("fix"), intro
		},
		want:    jitvul.Walk{CommitsWalked: 1, FileChanges: 1, Stop: jitvul.StopChanged, WhitespaceOnly: true},
		vulCode: v2ws,
	}, {
		name: "merge passed on the way back",
		build: func(r *gitRepo) (string, string) {
			r.write("a.c", v2)
			intro := r.commit("add parse")
			r.git("checkout", "-q", "-b", "side")
			r.write("b.c", other)
			r.commit("side: other")
			r.git("checkout", "-q", "main")
			r.write("c.c", helper)
			r.commit("main: helper")
			r.merge("side")
			r.write("a.c", fixed)
			return r.commit("fix"), intro
		},
		want: jitvul.Walk{CommitsWalked: 3, MergesPassed: 1, FileChanges: 1, Stop: jitvul.StopFileAdded},
	}, {
		name: "merge brings f_vul: the merge is the introducing commit",
		build: func(r *gitRepo) (string, string) {
			r.write("a.c", v1)
			r.commit("add parse")
			r.git("checkout", "-q", "-b", "side")
			r.write("a.c", v2)
			r.commit("side: edit parse")
			r.git("checkout", "-q", "main")
			r.write("c.c", helper)
			r.commit("main: helper")
			intro := r.merge("side")
			r.write("a.c", fixed)
			return r.commit("fix"), intro
		},
		want: jitvul.Walk{CommitsWalked: 1, MergesPassed: 1, FileChanges: 1, Stop: jitvul.StopChanged},
	}, {
		name: "file renamed: the walk stops at the rename",
		build: func(r *gitRepo) (string, string) {
			r.write("old.c", helper+v2)
			r.commit("add parse")
			r.git("mv", "old.c", "a.c")
			intro := r.commit("rename")
			r.write("b.c", other)
			r.commit("unrelated")
			r.write("a.c", helper+fixed)
			return r.commit("fix"), intro
		},
		want: jitvul.Walk{CommitsWalked: 2, FileChanges: 1, Stop: jitvul.StopRenamed, From: "old.c"},
	}, {
		name: "function moved from another file",
		build: func(r *gitRepo) (string, string) {
			r.write("a.c", helper)
			r.write("b.c", other+v2)
			r.commit("parse in b.c")
			r.write("a.c", helper+v2)
			r.write("b.c", other)
			intro := r.commit("move parse to a.c")
			r.write("a.c", helper+fixed)
			return r.commit("fix"), intro
		},
		want: jitvul.Walk{CommitsWalked: 1, FileChanges: 1, Stop: jitvul.StopMoved, From: "b.c"},
	}, {
		name: "function added to an existing file",
		build: func(r *gitRepo) (string, string) {
			r.write("a.c", helper)
			r.commit("helper")
			r.write("a.c", helper+v2)
			intro := r.commit("add parse")
			r.write("a.c", helper+fixed)
			return r.commit("fix"), intro
		},
		want: jitvul.Walk{CommitsWalked: 1, FileChanges: 1, Stop: jitvul.StopAdded},
	}, {
		name: "the fix deletes the function",
		build: func(r *gitRepo) (string, string) {
			r.write("a.c", helper+v2)
			r.commit("add parse")
			r.write("a.c", helper)
			return r.commit("drop parse"), ""
		},
		drop: jitvul.ReasonFunctionDeleted,
	}, {
		name: "the fix deletes the file",
		build: func(r *gitRepo) (string, string) {
			r.write("a.c", v2)
			r.write("b.c", other)
			r.commit("add parse")
			r.remove("a.c")
			return r.commit("drop a.c"), ""
		},
		drop: jitvul.ReasonFileDeleted,
	}, {
		name: "f_vul unchanged within the history limit",
		build: func(r *gitRepo) (string, string) {
			r.write("a.c", v2)
			r.commit("add parse")
			for i := 0; i < 3; i++ {
				r.write("b.c", strings.Repeat("/* x */\n", i+1))
				r.commit("unrelated")
			}
			r.write("a.c", fixed)
			return r.commit("fix"), ""
		},
		maxCommits: 3,
		drop:       jitvul.ReasonHistoryLimit,
	}, {
		name: "identical halves after whitespace normalisation",
		build: func(r *gitRepo) (string, string) {
			r.write("a.c", v2)
			r.commit("add parse")
			r.write("a.c", v2ws)
			return r.commit("reindent only"), ""
		},
		drop: jitvul.ReasonIdentical,
	}, {
		name: "function not found",
		build: func(r *gitRepo) (string, string) {
			r.write("a.c", v2)
			r.commit("add parse")
			r.write("a.c", fixed)
			return r.commit("fix"), ""
		},
		function: "parse_header",
		drop:     jitvul.ReasonFunctionNotFound,
	}, {
		name: "a path that looks like an option is refused",
		build: func(r *gitRepo) (string, string) {
			r.write("a.c", v2)
			return r.commit("add parse"), ""
		},
		file: "--output=/tmp/x",
		drop: jitvul.ReasonBadInput,
	}}
}

func TestTrace(t *testing.T) {
	for _, h := range histories() {
		t.Run(h.name, func(t *testing.T) {
			r := newRepo(t)
			fix, intro := h.build(r)
			s := jitvul.NewSession(jitvul.Options{MaxCommits: h.maxCommits})
			defer s.Close()
			file, fn := h.file, h.function
			if file == "" {
				file = "a.c"
			}
			if fn == "" {
				fn = "parse"
			}
			p, err := s.Trace(context.Background(), r.dir, jitvul.Request{
				URL: "https://example.com/acme/lib", Fix: fix, File: file, Function: fn, CWE: []string{"CWE-787"}, CVE: "CVE-2024-0001"})
			if h.drop != "" {
				var de *jitvul.DropError
				if !errors.As(err, &de) || de.Reason != h.drop {
					t.Fatalf("Trace = %v, %v; want a drop for %q", p, err, h.drop)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Vul.Repo.Commit != intro {
				t.Errorf("introducing commit %s, want %s", p.Vul.Repo.Commit, intro)
			}
			got := p.Walk
			if got.Intro != intro || got.Fix != fix || got.Parent != r.git("rev-parse", fix+"^") {
				t.Errorf("walk commits %s %s %s", got.Intro, got.Fix, got.Parent)
			}
			got.Intro, got.Fix, got.Parent, got.MaxCommits = "", "", "", 0
			if d := cmp.Diff(h.want, got); d != "" {
				t.Errorf("walk (-want +got):\n%s", d)
			}
			want := h.vulCode
			if want == "" {
				want = v2
			}
			want = strings.TrimSuffix(want, "\n")
			if d := cmp.Diff(want, p.Vul.Code); d != "" {
				t.Errorf("f_vul (-want +got):\n%s", d)
			}
			if p.Ben.Repo.Commit != fix || !strings.Contains(p.Ben.Code, "if (n > 8)") {
				t.Errorf("ben case at %s with code %q", p.Ben.Repo.Commit, p.Ben.Code)
			}
			for _, c := range []*suite.Case{p.Vul, p.Ben} {
				if err := c.Check(); err != nil {
					t.Error(err)
				}
				if c.Kind != suite.KindJIT || c.Pair != p.Vul.Pair || c.Target.File != file || c.Target.Function != fn ||
					c.Language != "c" || c.Date == "" || c.CVE != "CVE-2024-0001" {
					t.Errorf("case %+v", c)
				}
				if want := c.Target.Line + strings.Count(c.Code, "\n"); c.Target.EndLine != want {
					t.Errorf("case %s: end_line %d, want %d (line %d + the code's %d lines)", c.ID, c.Target.EndLine, want, c.Target.Line, strings.Count(c.Code, "\n")+1)
				}
			}
		})
	}
}

// A symbolic link at the fix is refused, not followed.
func TestTraceSymlink(t *testing.T) {
	r := newRepo(t)
	r.write("real.c", v2)
	r.commit("add parse")
	if err := os.Symlink("real.c", filepath.Join(r.dir, "a.c")); err != nil {
		t.Fatal(err)
	}
	r.write("real.c", fixed)
	fix := r.commit("fix and link")
	s := jitvul.NewSession(jitvul.Options{})
	defer s.Close()
	_, err := s.Trace(context.Background(), r.dir, jitvul.Request{URL: "https://example.com/a/b", Fix: fix, File: "a.c", Function: "parse"})
	var de *jitvul.DropError
	if !errors.As(err, &de) || de.Reason != jitvul.ReasonNotAFile {
		t.Fatalf("Trace = %v; want a drop for a symbolic link", err)
	}
}
