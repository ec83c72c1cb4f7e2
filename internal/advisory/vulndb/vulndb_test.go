package vulndb_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/advisory/vulndb"
)

var records = map[string]string{
	"GO-2099-0001.json": `{"id":"GO-2099-0001","modified":"2024-01-01T00:00:00Z","published":"2023-12-01T00:00:00Z","aliases":["CVE-2099-1000"],
"summary":"s","affected":[{"package":{"name":"example.com/lib","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.1.0"}]}],
"ecosystem_specific":{"imports":[{"path":"example.com/lib/parse","goos":["linux"],"symbols":["Parse","Decoder.Decode"]}]}},
{"package":{"name":"stdlib","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[{"introduced":"1.22.0"},{"fixed":"1.22.5"}]}],
"ecosystem_specific":{"imports":[{"path":"net/http","symbols":["Get"]}]}}]}`,
	// GitHub's: a v-prefixed ECOSYSTEM range, a last_affected event, a PyPI package beside the Go one.
	"GHSA-aaaa-bbbb-cccc.json": `{"id":"GHSA-aaaa-bbbb-cccc","modified":"2024-03-01T00:00:00Z","aliases":["CVE-2099-1000"],
"affected":[{"package":{"name":"example.com/lib","ecosystem":"Go"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"v1.0.0"},{"last_affected":"v1.0.9"}]}]},
{"package":{"name":"requests","ecosystem":"PyPI"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"0"}]}]}]}`,
	"PYSEC-2099-1.json": `{"id":"PYSEC-2099-1","modified":"2024-01-01T00:00:00Z","affected":[{"package":{"name":"requests","ecosystem":"PyPI"}}]}`,
}

func TestWrite(t *testing.T) {
	src := t.TempDir()
	for name, body := range records {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db, err := advisory.Open(src)
	if err != nil || len(db.Problems()) > 0 {
		t.Fatal(err, db.Problems())
	}
	var advs []*advisory.Advisory
	for _, id := range []string{"GO-2099-0001", "GHSA-aaaa-bbbb-cccc", "PYSEC-2099-1"} {
		a, err := db.Find(id)
		if err != nil || len(a) != 1 {
			t.Fatal(id, a, err)
		}
		advs = append(advs, a[0])
	}
	out := t.TempDir()
	res, err := vulndb.Write(out, append(advs, advs[0])) // a repeated id is written once
	if err != nil {
		t.Fatal(err)
	}
	want := vulndb.Result{IDs: []string{"GHSA-aaaa-bbbb-cccc", "GO-2099-0001"}, Modules: []string{"example.com/lib", "stdlib"},
		Notes: []string{"GHSA-aaaa-bbbb-cccc: example.com/lib: last_affected v1.0.9 cannot be said to govulncheck; the range is left open after it"}}
	if d := cmp.Diff(want, res); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
	files := map[string]string{
		"index/db.json":      `{"modified":"2024-03-01T00:00:00Z"}`,
		"index/modules.json": `[{"path":"example.com/lib","vulns":[{"id":"GHSA-aaaa-bbbb-cccc","modified":"2024-03-01T00:00:00Z"},{"id":"GO-2099-0001","modified":"2024-01-01T00:00:00Z"}]},{"path":"stdlib","vulns":[{"id":"GO-2099-0001","modified":"2024-01-01T00:00:00Z"}]}]`,
		"ID/GO-2099-0001.json": `{"id":"GO-2099-0001","modified":"2024-01-01T00:00:00Z","published":"2023-12-01T00:00:00Z","aliases":["CVE-2099-1000"],"summary":"s",` +
			`"affected":[{"package":{"name":"example.com/lib","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.1.0"}]}],` +
			`"ecosystem_specific":{"imports":[{"path":"example.com/lib/parse","goos":["linux"],"symbols":["Parse","Decoder.Decode"]}]}},` +
			`{"package":{"name":"stdlib","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[{"introduced":"1.22.0"},{"fixed":"1.22.5"}]}],` +
			`"ecosystem_specific":{"imports":[{"path":"net/http","symbols":["Get"]}]}}]}`,
		"ID/GHSA-aaaa-bbbb-cccc.json": `{"id":"GHSA-aaaa-bbbb-cccc","modified":"2024-03-01T00:00:00Z","published":"0001-01-01T00:00:00Z","aliases":["CVE-2099-1000"],` +
			`"affected":[{"package":{"name":"example.com/lib","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[{"introduced":"1.0.0"}]}],"ecosystem_specific":{}}]}`,
	}
	got := map[string]string{}
	err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(out, p)
		got[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(files, got); d != "" {
		t.Errorf("database (-want +got):\n%s", d)
	}
}

func TestWriteLeavesOutUnsafeIDs(t *testing.T) {
	a := &advisory.Advisory{ID: "../escape", Source: "x.json", Affected: []advisory.Affected{{Ecosystem: "Go", Package: "example.com/lib"}}}
	out := t.TempDir()
	res, err := vulndb.Write(out, []*advisory.Advisory{a})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(vulndb.Result{Notes: []string{"../escape (x.json): an id that is not a file name is left out"}}, res); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if b, err := os.ReadFile(filepath.Join(out, "index", "modules.json")); err != nil || string(b) != "[]" {
		t.Errorf("modules.json = %q, %v; want []", b, err)
	}
}
