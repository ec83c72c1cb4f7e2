package advisory_test

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/gittest"
)

// ghsa is a GitHub-reviewed advisory with two packages, one of them with two ranges.
const ghsa = `{
  "schema_version": "1.4.0",
  "id": "GHSA-xxxx-yyyy-zzzz",
  "modified": "2024-03-01T00:00:00Z",
  "published": "2024-02-01T00:00:00Z",
  "aliases": ["CVE-2024-1111"],
  "summary": "Path traversal in example",
  "details": "A crafted archive escapes the target directory.",
  "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}],
  "affected": [
    {"package": {"ecosystem": "PyPI", "name": "example"},
     "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": "1.2.3"}]},
                {"type": "ECOSYSTEM", "events": [{"introduced": "2.0.0"}, {"last_affected": "2.0.5"}]}],
     "database_specific": {"last_known_affected_version_range": "<= 2.0.5"}},
    {"package": {"ecosystem": "Maven", "name": "org.example:example-core", "purl": "pkg:maven/org.example/example-core"},
     "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "1.0"}, {"fixed": "1.4"}]}],
     "versions": ["1.0", "1.1"]}
  ],
  "references": [{"type": "ADVISORY", "url": "https://nvd.nist.gov/vuln/detail/CVE-2024-1111"}],
  "database_specific": {"github_reviewed": true, "severity": "HIGH", "cwe_ids": ["CWE-22", "CWE-23"]},
  "a_future_field": {"ignored": true}
}`

// goVuln is a Go database record that aliases the CVE and the GHSA, with symbols.
const goVuln = `{"schema_version":"1.3.1","id":"GO-2024-2222","modified":"2024-03-02T00:00:00Z","published":"2024-02-02T00:00:00Z",
"aliases":["CVE-2024-1111","GHSA-xxxx-yyyy-zzzz"],"summary":"Path traversal in example.com/mod",
"affected":[{"package":{"name":"example.com/mod","ecosystem":"Go"},
 "ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.5.0"}]}],
 "ecosystem_specific":{"imports":[{"path":"example.com/mod/archive","symbols":["Extract","Reader.Next"]}]}}]}`

const withdrawn = `{"id":"GHSA-wwww-wwww-wwww","modified":"2024-04-01T00:00:00Z","withdrawn":"2024-04-01T00:00:00Z",
"aliases":["CVE-2024-3333"],"summary":"withdrawn","affected":[{"package":{"ecosystem":"npm","name":"left-pad"}}]}`

func write(t *testing.T, root string, files map[string]string) { gittest.WriteFiles(t, root, files) }

func writeZip(t *testing.T, path string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, path string) *advisory.DB {
	t.Helper()
	db, err := advisory.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// ids names the records Find returns, with where they came from (relative to root).
func ids(t *testing.T, db *advisory.DB, root, id string) []string {
	t.Helper()
	as, err := db.Find(id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range as {
		rel, _ := filepath.Rel(root, a.Source)
		out = append(out, a.ID+" "+filepath.ToSlash(rel))
	}
	return out
}

func TestLayouts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(t *testing.T, dir string) string // returns the path to open
		want  map[string][]string                   // Find(id) -> "ID SOURCE"
	}{{
		name: "GitHub Advisory Database",
		build: func(t *testing.T, dir string) string {
			write(t, dir, map[string]string{
				"advisories/github-reviewed/2024/02/GHSA-xxxx-yyyy-zzzz/GHSA-xxxx-yyyy-zzzz.json": ghsa,
				"advisories/unreviewed/2024/04/GHSA-wwww-wwww-wwww/GHSA-wwww-wwww-wwww.json":      withdrawn,
				".git/objects/x.json": `{"id":"SHOULD-NOT-BE-READ"}`,
				"README.md":           "# not json",
			})
			return dir
		},
		want: map[string][]string{
			"CVE-2024-1111":       {"GHSA-xxxx-yyyy-zzzz advisories/github-reviewed/2024/02/GHSA-xxxx-yyyy-zzzz/GHSA-xxxx-yyyy-zzzz.json"},
			"ghsa-XXXX-yyyy-zzzz": {"GHSA-xxxx-yyyy-zzzz advisories/github-reviewed/2024/02/GHSA-xxxx-yyyy-zzzz/GHSA-xxxx-yyyy-zzzz.json"},
			"SHOULD-NOT-BE-READ":  nil,
		},
	}, {
		name: "Go vulnerability database",
		build: func(t *testing.T, dir string) string {
			write(t, dir, map[string]string{
				"ID/GO-2024-2222.json": goVuln,
				"index/db.json":        `{"modified":"2024-03-02T00:00:00Z"}`,
				"index/modules.json":   `[{"path":"example.com/mod","vulns":[{"id":"GO-2024-2222"}]}]`,
				"index/vulns.json":     `[{"id":"GO-2024-2222","modified":"2024-03-02T00:00:00Z"}]`,
			})
			return dir
		},
		want: map[string][]string{
			"GO-2024-2222":        {"GO-2024-2222 ID/GO-2024-2222.json"},
			"CVE-2024-1111":       {"GO-2024-2222 ID/GO-2024-2222.json"},
			"GHSA-xxxx-yyyy-zzzz": {"GO-2024-2222 ID/GO-2024-2222.json"},
		},
	}, {
		name: "osv.dev all.zip",
		build: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "all.zip")
			writeZip(t, p, map[string]string{"GHSA-xxxx-yyyy-zzzz.json": ghsa, "GO-2024-2222.json": goVuln})
			return p
		},
		want: map[string][]string{
			// the record with the id first, then those aliasing it
			"GHSA-xxxx-yyyy-zzzz": {"GHSA-xxxx-yyyy-zzzz all.zip:GHSA-xxxx-yyyy-zzzz.json", "GO-2024-2222 all.zip:GO-2024-2222.json"},
			"CVE-2024-1111":       {"GHSA-xxxx-yyyy-zzzz all.zip:GHSA-xxxx-yyyy-zzzz.json", "GO-2024-2222 all.zip:GO-2024-2222.json"},
		},
	}, {
		name: "folder of json with an ecosystem zip in it",
		build: func(t *testing.T, dir string) string {
			write(t, dir, map[string]string{"a.json": ghsa})
			writeZip(t, filepath.Join(dir, "Go", "all.zip"), map[string]string{"GO-2024-2222.json": goVuln})
			return dir
		},
		want: map[string][]string{
			"CVE-2024-1111": {"GHSA-xxxx-yyyy-zzzz a.json", "GO-2024-2222 Go/all.zip:GO-2024-2222.json"},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db := open(t, tc.build(t, dir))
			if len(db.Problems()) > 0 {
				t.Fatalf("problems: %v", db.Problems())
			}
			got := map[string][]string{}
			for id := range tc.want {
				got[id] = ids(t, db, dir, id)
			}
			if d := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestRecord(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"g.json": ghsa, "go.json": goVuln, "w.json": withdrawn})
	db := open(t, dir)
	as, err := db.Find("GHSA-xxxx-yyyy-zzzz")
	if err != nil {
		t.Fatal(err)
	}
	want := &advisory.Advisory{
		ID: "GHSA-xxxx-yyyy-zzzz", Aliases: []string{"CVE-2024-1111"}, Summary: "Path traversal in example",
		Details:   "A crafted archive escapes the target directory.",
		Published: time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC), Modified: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC),
		Affected: []advisory.Affected{
			{Ecosystem: "PyPI", Package: "example", Ranges: []advisory.Range{
				{Type: "ECOSYSTEM", Events: []advisory.Event{{Introduced: "0"}, {Fixed: "1.2.3"}}},
				{Type: "ECOSYSTEM", Events: []advisory.Event{{Introduced: "2.0.0"}, {LastAffected: "2.0.5"}}}}},
			{Ecosystem: "Maven", Package: "org.example:example-core", PURL: "pkg:maven/org.example/example-core",
				Ranges:   []advisory.Range{{Type: "ECOSYSTEM", Events: []advisory.Event{{Introduced: "1.0"}, {Fixed: "1.4"}}}},
				Versions: []string{"1.0", "1.1"}},
		},
		References: []string{"https://nvd.nist.gov/vuln/detail/CVE-2024-1111"},
		Refs:       []advisory.Reference{{Type: "ADVISORY", URL: "https://nvd.nist.gov/vuln/detail/CVE-2024-1111"}},
		CWEs:       []string{"CWE-22", "CWE-23"},
		Source:     filepath.Join(dir, "g.json"),
	}
	if d := cmp.Diff(want, as[0], cmpopts.IgnoreFields(advisory.Advisory{}, "Record")); d != "" {
		t.Errorf("GHSA (-want +got):\n%s", d)
	}
	if as[0].Record.GetDatabaseSpecific().GetFields()["severity"].GetStringValue() != "HIGH" || as[0].IsWithdrawn() {
		t.Errorf("record: %v", as[0].Record)
	}
	gov, err := db.Find("GO-2024-2222")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"example.com/mod/archive.Extract", "example.com/mod/archive.Reader.Next"}, gov[0].Affected[0].Symbols); d != "" {
		t.Errorf("Go symbols (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]advisory.Import{{Path: "example.com/mod/archive", Symbols: []string{"Extract", "Reader.Next"}}}, gov[0].Affected[0].Imports); d != "" {
		t.Errorf("Go imports (-want +got):\n%s", d)
	}
	w, err := db.Find("CVE-2024-3333")
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 1 || !w[0].IsWithdrawn() || !db.Withdrawn("CVE-2024-3333") || db.Withdrawn("CVE-2024-1111") || db.Withdrawn("CVE-0") {
		t.Errorf("withdrawn: %+v", w)
	}
	rel, err := db.Related("GO-2024-2222")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range rel {
		got = append(got, a.ID)
	}
	if d := cmp.Diff([]string{"GO-2024-2222", "GHSA-xxxx-yyyy-zzzz"}, got); d != "" {
		t.Errorf("Related (-want +got):\n%s", d)
	}
	if db.Len() != 3 {
		t.Errorf("Len = %d", db.Len())
	}
}

func TestProblems(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"ok.json":        ghsa,
		"syntax.json":    "{\n  \"id\": \"GHSA-1\",\n  \"aliases\": [\"CVE-1\",]\n}",
		"type.json":      "{\n\"id\": \"GHSA-2\",\n\"aliases\": \"CVE-2\"}",
		"noid.json":      `{"summary": "no id"}`,
		"array.json":     `[1, 2]`, // not a record: skipped silently
		"badproto.json":  `{"id": "GHSA-3", "published": "last tuesday"}`,
		"sub/trunc.json": `{"id": "GHSA-4", "aliases": [`,
		// valid JSON, not valid OSV (issue 35 item 7): each a problem naming the field
		"notlist.json":   "{\n\"id\": \"GHSA-5\",\n\"affected\": {\"package\": {\"name\": \"x\"}}\n}",
		"semver.json":    "{\"id\": \"GO-6\",\n\"affected\": [{\"package\": {\"ecosystem\": \"Go\", \"name\": \"x\"},\n\"ranges\": [{\"type\": \"SEMVER\", \"events\": [{\"introduced\": \"0\"},\n{\"fixed\": \"1.x\"}]}]}]}",
		"pypi.json":      "{\"id\": \"PYSEC-7\",\n\"affected\": [{\"package\": {\"ecosystem\": \"PyPI\", \"name\": \"x\"},\n\"ranges\": [{\"type\": \"ECOSYSTEM\", \"events\": [{\"introduced\": \"0\"},\n{\"fixed\": \"the next one\"}]}]}]}",
		"goeco.json":     `{"id": "GHSA-8", "affected": [{"package": {"ecosystem": "Go", "name": "x"}, "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "latest"}]}]}]}`,
		"event.json":     `{"id": "GHSA-9", "affected": [{"ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0", "fixed": "1.0"}]}]}]}`,
		"rangetype.json": `{"id": "GHSA-10", "affected": [{"ranges": [{"type": "SEMVERS", "events": [{"introduced": "0"}]}]}]}`,
		"dupkey.json":    "{\"id\": \"GHSA-11\",\n\"withdrawn\": \"2024-01-01T00:00:00Z\",\n\"Withdrawn\": \"\"}",
	})
	if err := os.Symlink(filepath.Join(dir, "ok.json"), filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	db := open(t, dir)
	var got []string
	for _, p := range db.Problems() {
		got = append(got, strings.TrimPrefix(p.Error(), dir+string(filepath.Separator)))
	}
	want := []string{
		`badproto.json:1: not a valid OSV record: field published: "last tuesday" is not an RFC 3339 time`,
		`dupkey.json:3: keys "withdrawn" and "Withdrawn" of the object at $ differ only in case (a JSON reader may take either for the other)`,
		`event.json: not a valid OSV record: field affected[0].ranges[0].events[0]: an event has both "introduced" and "fixed"`,
		`goeco.json:1: not a valid OSV record: field affected[0].ranges[0].events[0].introduced: "latest" is not a Go version`,
		`noid.json:1: not an OSV record: no "id"`,
		`notlist.json:3: field "affected": expected a list of objects, got JSON object`,
		`pypi.json:4: not a valid OSV record: field affected[0].ranges[0].events[1].fixed: "the next one" is not a PyPI version`,
		`rangetype.json:1: not a valid OSV record: field affected[0].ranges[0].type: "SEMVERS" is not SEMVER, ECOSYSTEM or GIT`,
		`semver.json:4: not a valid OSV record: field affected[0].ranges[0].events[1].fixed: "1.x" is not a SemVer version`,
		"sub/trunc.json:1: invalid JSON: unexpected end of JSON input",
		"syntax.json:3: invalid JSON: invalid character ']' looking for beginning of value",
		`type.json:3: field "aliases": expected a list of strings, got JSON string`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
	if db.Len() != 1 { // ok.json; not the symlink
		t.Errorf("Len = %d, want 1", db.Len())
	}
	if as, err := db.Find("GHSA-3"); len(as) != 0 || err != nil {
		t.Errorf("Find(GHSA-3) = %v, %v; want nothing: the record is a problem", as, err)
	}
	if p := db.Problem(); !strings.HasPrefix(p, "12 advisory files could not be read or are not valid OSV") {
		t.Errorf("Problem() = %q; want the 12 counted for the run's notes", p)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"x.txt": "x", "bad.zip": "not a zip"})
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing"), "advisories: stat " + filepath.Join(dir, "missing") + ": no such file or directory"},
		{filepath.Join(dir, "x.txt"), "advisories " + filepath.Join(dir, "x.txt") + ": not a directory or a .zip export"},
		{filepath.Join(dir, "bad.zip"), filepath.Join(dir, "bad.zip") + ": open zip: zip: not a valid zip file"},
	} {
		_, err := advisory.Open(tc.path)
		if fmt.Sprint(err) != tc.want {
			t.Errorf("Open(%s) = %v\nwant %s", tc.path, err, tc.want)
		}
	}
}

// A broken advisory file is reported (path and reason), so that a record missing from the index
// is not taken for "no record" (issue 25, finding 8).
func TestUnreadableNamesBrokenFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "GHSA-xxxx-yyyy-zzzz.json"), []byte(`{"id": "GHSA-xxxx-yyyy-zzzz", "aliases": ["CVE-2024-1"`), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := advisory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := db.Unreadable()
	if !strings.Contains(got, "1 advisory file could not be read or is not valid OSV") || !strings.Contains(got, "GHSA-xxxx-yyyy-zzzz.json") {
		t.Errorf("Unreadable() = %q; want the count and the broken file's path", got)
	}
}

// The advisory files that could not be read (broken JSON, no permission) are counted and the
// first named with its reason in what a subject's Describe records for the run's notes; a
// database read whole records nothing, nor does a subject without one (issue 25, finding 8).
func TestDescribeCountsUnreadableFiles(t *testing.T) {
	dir := t.TempDir()
	gittest.WriteFiles(t, dir, map[string]string{
		"a/GHSA-aaaa-aaaa-aaaa.json": `{"id": "GHSA-aaaa-aaaa-aaaa"`,
		"b/GHSA-bbbb-bbbb-bbbb.json": `{"id": "GHSA-bbbb-bbbb-bbbb", "aliases": ["CVE-2024-2"]}`,
		"c/GHSA-cccc-cccc-cccc.json": `{"id": "GHSA-cccc-cccc-cccc"}`,
	})
	locked := filepath.Join(dir, "c/GHSA-cccc-cccc-cccc.json")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o644)
	want := 2
	if f, err := os.Open(locked); err == nil { // root reads it anyway
		f.Close()
		want = 1
	}
	db, err := advisory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, _ := db.Describe(map[string]any{"tool": "x"})[advisory.DescribeKey].(string)
	wantPrefix := fmt.Sprintf("%d advisory files could not be read or are not valid OSV (first: %s", want, filepath.Join(dir, "a/GHSA-aaaa-aaaa-aaaa.json"))
	if want == 1 {
		wantPrefix = "1 advisory file could not be read or is not valid OSV (first: " + filepath.Join(dir, "a/GHSA-aaaa-aaaa-aaaa.json")
	}
	if !strings.HasPrefix(got, wantPrefix) || !strings.HasSuffix(got, ")") {
		t.Errorf("Describe()[%s] = %q; want it to start %q", advisory.DescribeKey, got, wantPrefix)
	}

	good := t.TempDir()
	gittest.WriteFiles(t, good, map[string]string{"GHSA-dddd-dddd-dddd.json": `{"id": "GHSA-dddd-dddd-dddd"}`})
	gdb, err := advisory.Open(good)
	if err != nil {
		t.Fatal(err)
	}
	defer gdb.Close()
	for name, d := range map[string]map[string]any{"readable": gdb.Describe(map[string]any{}), "nil": (*advisory.DB)(nil).Describe(map[string]any{})} {
		if d := cmp.Diff(map[string]any{}, d); d != "" {
			t.Errorf("%s database: Describe (-want +got):\n%s", name, d)
		}
	}
}
