package advisory_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/advisory"
)

func TestParseCommitURL(t *testing.T) {
	sha := "8f96da9f5d5eff988554c1aae1784627c4bf6754"
	for _, tc := range []struct {
		url  string
		want advisory.CommitRef // zero: not a commit
	}{
		{"https://github.com/go-yaml/yaml/commit/" + sha, advisory.CommitRef{Repo: "https://github.com/go-yaml/yaml", Commit: sha}},
		{"https://github.com/go-yaml/yaml/commit/" + sha + ".patch", advisory.CommitRef{Repo: "https://github.com/go-yaml/yaml", Commit: sha}},
		{"https://github.com/o/n/commit/" + sha + "#diff-0123abcd", advisory.CommitRef{Repo: "https://github.com/o/n", Commit: sha}},
		{"https://github.com/o/n/pull/12/commits/abc1234", advisory.CommitRef{Repo: "https://github.com/o/n", Commit: "abc1234"}},
		{"https://gitlab.com/group/sub/name/-/commit/" + sha, advisory.CommitRef{Repo: "https://gitlab.com/group/sub/name", Commit: sha}},
		{"https://bitbucket.org/o/n/commits/" + sha, advisory.CommitRef{Repo: "https://bitbucket.org/o/n", Commit: sha}},
		{"https://go.googlesource.com/go/+/" + sha, advisory.CommitRef{Repo: "https://go.googlesource.com/go", Commit: sha}},
		{"https://codeberg.org/o/n.git/commit/" + sha, advisory.CommitRef{Repo: "https://codeberg.org/o/n", Commit: sha}},
		{"https://git.example.org/cgit/proj.git/commit/?id=" + sha, advisory.CommitRef{Repo: "https://git.example.org/cgit/proj", Commit: sha}},
		{"https://gitlab.com/group/name/-/merge_requests/3/diffs?commit_id=" + sha, advisory.CommitRef{Repo: "https://gitlab.com/group/name", Commit: sha}},
		{"https://gitlab.com/group/name/-/merge_requests/3", advisory.CommitRef{}},
		{"https://github.com/o/n/pull/1991/commits", advisory.CommitRef{}},
		{"https://github.com/o/n/commits/v0.2.4", advisory.CommitRef{}},
		{"https://github.com/o/n/compare/v1.0.0...v1.0.1", advisory.CommitRef{}},
		{"https://github.com/o/n/pull/12", advisory.CommitRef{}},
		{"https://github.com/o/n/pull/12/files", advisory.CommitRef{}},
		{"https://github.com/o/n/commits/master", advisory.CommitRef{}},
		{"https://github.com/o/n/releases/tag/v1.2.3", advisory.CommitRef{}},
		{"https://go.dev/cl/12345", advisory.CommitRef{}},
		{"https://go-review.googlesource.com/c/go/+/12345", advisory.CommitRef{}},
		{"https://github.com/commit/" + sha, advisory.CommitRef{}},
		{"ftp://github.com/o/n/commit/" + sha, advisory.CommitRef{}},
	} {
		got, ok := advisory.ParseCommitURL(tc.url)
		if ok != (tc.want != advisory.CommitRef{}) || got != tc.want {
			t.Errorf("ParseCommitURL(%q) = %+v, %v; want %+v", tc.url, got, ok, tc.want)
		}
	}
}

func TestCrashInfo(t *testing.T) {
	for _, tc := range []struct {
		name, details, typ string
		frames             []string
	}{{
		name:    "three frames",
		details: "OSS-Fuzz report: https://bugs.chromium.org/p/oss-fuzz/issues/detail?id=143\n\n```\nCrash type: UNKNOWN READ\nCrash state:\nfile_regexec\nmagiccheck\nmatch\n```\n",
		typ:     "UNKNOWN READ", frames: []string{"file_regexec", "magiccheck", "match"},
	}, {
		name:    "C++ frames, CRLF, no closing fence",
		details: "```\r\nCrash type: Heap-buffer-overflow READ 4\r\nCrash state:\r\nArchive::ConvertAttributes\r\nstd::__1::function<void\r\n",
		typ:     "Heap-buffer-overflow READ 4", frames: []string{"Archive::ConvertAttributes", "std::__1::function<void"},
	}, {
		name:    "no crash block",
		details: "A generated vulnerability.",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			typ, frames := advisory.CrashInfo(tc.details)
			if typ != tc.typ {
				t.Errorf("type %q, want %q", typ, tc.typ)
			}
			if d := cmp.Diff(tc.frames, frames); d != "" {
				t.Errorf("frames (-want +got):\n%s", d)
			}
		})
	}
}

// An OSS-Fuzz record's GIT range keeps its repository and the bisection's ranges, from
// ecosystem_specific or database_specific.
func TestOSSFuzzRecord(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"OSV-2020-75.json": `{"id":"OSV-2020-75","published":"2020-03-01T00:00:00Z","details":"x",
"affected":[{"package":{"name":"file","ecosystem":"OSS-Fuzz"},
 "ranges":[{"type":"GIT","repo":"https://github.com/file/file.git","events":[{"introduced":"648bbd91"},{"fixed":"29955546"}]}],
 "ecosystem_specific":{"severity":"MEDIUM","introduced_range":"6cd9ecd3:1956e3ad"},
 "database_specific":{"fixed_range":"1956e3ad:29955546"}}]}`,
	})
	db := open(t, dir)
	write(t, dir, map[string]string{"OSV-2020-76.json": `{"id":"OSV-2020-76","published":"last week"}`})
	bad := open(t, dir)
	var read []string
	problems, err := bad.Each(func(a *advisory.Advisory) error { read = append(read, a.ID); return nil })
	if err != nil || len(read) != 1 || len(problems) != 0 || len(bad.Problems()) != 1 || !strings.Contains(bad.Problems()[0].Error(), "OSV-2020-76.json") {
		t.Errorf("Each over a bad record: read %v, problems %v and at Open %v, %v", read, problems, bad.Problems(), err)
	}
	as, err := db.Find("OSV-2020-75")
	if err != nil || len(as) != 1 {
		t.Fatalf("Find: %v, %v", as, err)
	}
	af := as[0].Affected[0]
	want := advisory.Affected{Ecosystem: "OSS-Fuzz", Package: "file",
		Ranges: []advisory.Range{{Type: "GIT", Repo: "https://github.com/file/file.git",
			Events: []advisory.Event{{Introduced: "648bbd91"}, {Fixed: "29955546"}}}},
		IntroducedRange: "6cd9ecd3:1956e3ad", FixedRange: "1956e3ad:29955546"}
	if d := cmp.Diff(want, af); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	var seen []string
	problems, err = db.Each(func(a *advisory.Advisory) error {
		seen = append(seen, a.ID)
		return nil
	})
	if err != nil || len(problems) > 0 || len(seen) != 1 || seen[0] != "OSV-2020-75" {
		t.Errorf("Each: %v %v %v", seen, problems, err)
	}
}
