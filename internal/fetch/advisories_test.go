package fetch

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/vexbench"
)

// osvRecord is a small OSV record.
func osvRecord(id string, aliases []string, withdrawn bool) string {
	w := ""
	if withdrawn {
		w = `, "withdrawn": "2024-06-01T00:00:00Z"`
	}
	al := `"` + strings.Join(aliases, `", "`) + `"`
	if len(aliases) == 0 {
		al = ""
	}
	return fmt.Sprintf("{\n  \"schema_version\": \"1.6.0\",\n  \"id\": %q,\n  \"modified\": \"2024-05-01T00:00:00Z\",\n  \"aliases\": [%s]%s,\n  \"summary\": \"a test record\"\n}\n", id, al, w)
}

func zipOf(t *testing.T, records map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range records {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// exportServer serves OSV-like per-ecosystem exports at /ECOSYSTEM/all.zip and counts requests.
type exportServer struct {
	*httptest.Server
	requests atomic.Int64
}

func newExportServer(t *testing.T, zips map[string][]byte) *exportServer {
	s := &exportServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		eco, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/"), "/all.zip")
		b, found := zips[eco]
		if !ok || !found {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/zip")
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestAdvisories(t *testing.T) {
	goRecords := map[string]string{
		"GO-2024-0001.json": osvRecord("GO-2024-0001", []string{"CVE-2024-1111", "GHSA-aaaa-bbbb-cccc"}, false),
		"GO-2024-0002.json": osvRecord("GO-2024-0002", []string{"CVE-2024-9999"}, false),
	}
	pyRecords := map[string]string{
		"GHSA-xxxx-yyyy-zzzz.json": osvRecord("GHSA-xxxx-yyyy-zzzz", []string{"CVE-2024-2222"}, false),
		"PYSEC-2024-5.json":        osvRecord("PYSEC-2024-5", []string{"CVE-2024-2222"}, false),
		"GHSA-wwww-wwww-wwww.json": osvRecord("GHSA-wwww-wwww-wwww", []string{"CVE-2024-3333"}, true),
	}
	zips := map[string][]byte{"Go": zipOf(t, goRecords), "PyPI": zipOf(t, pyRecords)}
	srv := newExportServer(t, zips)

	dir := t.TempDir()
	gittest.WriteFiles(t, dir, map[string]string{"suite.jsonl": strings.Join([]string{
		`{"id": "g", "kind": "vex", "label": "ben", "cve": "CVE-2024-1111", "vex": {"ecosystem": "Go", "advisory": "GHSA-aaaa-bbbb-cccc"}}`,
		`{"id": "p", "kind": "vex", "label": "ben", "cve": "cve-2024-2222", "vex": {"ecosystem": "PyPI"}}`,
		`{"id": "w", "kind": "vex", "label": "ben", "cve": "CVE-2024-3333", "vex": {"ecosystem": "PyPI"}}`,
		`{"id": "m", "kind": "vex", "label": "ben", "cve": "CVE-2024-4444", "vex": {"ecosystem": "PyPI"}}`,
		`{"id": "f", "kind": "function", "label": "vul", "code": "int f;", "cve": "CVE-2024-2222"}`,
	}, "\n") + "\n"})
	needs, problems, err := AdvisoryNeeds(filepath.Join(dir, "suite.jsonl"))
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	wantNeeds := []AdvisoryNeed{
		{ID: "CVE-2024-1111", Ecosystems: []string{"Go"}, Cases: 1},
		{ID: "GHSA-AAAA-BBBB-CCCC", Ecosystems: []string{"Go"}, Cases: 1},
		{ID: "CVE-2024-2222", Ecosystems: []string{"PyPI"}, Cases: 2},
		{ID: "CVE-2024-3333", Ecosystems: []string{"PyPI"}, Cases: 1},
		{ID: "CVE-2024-4444", Ecosystems: []string{"PyPI"}, Cases: 1},
	}
	if d := cmp.Diff(wantNeeds, needs); d != "" {
		t.Fatalf("needs (-want +got):\n%s", d)
	}

	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	out := filepath.Join(dir, "advisories")
	var steps []string
	opts := AdvisoryOptions{Dir: out, From: srv.URL, Now: func() time.Time { return now },
		Progress: func(e AdvisoryEvent) { steps = append(steps, e.Ecosystem+" "+e.Step) }}
	rep, err := Advisories(context.Background(), needs, opts)
	if err != nil {
		t.Fatal(err)
	}
	wantFound := []Found{
		{ID: "CVE-2024-1111", Records: []string{"GO-2024-0001"}},
		{ID: "GHSA-AAAA-BBBB-CCCC", Records: []string{"GO-2024-0001"}},
		{ID: "CVE-2024-2222", Records: []string{"GHSA-xxxx-yyyy-zzzz", "PYSEC-2024-5"}},
		{ID: "CVE-2024-3333", Records: []string{"GHSA-wwww-wwww-wwww"}, Withdrawn: true},
		{ID: "CVE-2024-4444"},
	}
	if d := cmp.Diff(wantFound, rep.Found); d != "" {
		t.Errorf("found (-want +got):\n%s", d)
	}
	if len(rep.Problems) > 0 {
		t.Errorf("problems: %v", rep.Problems)
	}
	if d := cmp.Diff([]string{"Go reading", "Go done", "PyPI reading", "PyPI done"}, steps); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
	// The records the suite needs, verbatim, and no other.
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	wantNames := []string{"GHSA-wwww-wwww-wwww.json", "GHSA-xxxx-yyyy-zzzz.json", "GO-2024-0001.json", "PYSEC-2024-5.json", ManifestName}
	if d := cmp.Diff(wantNames, names); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "PYSEC-2024-5.json")); string(b) != pyRecords["PYSEC-2024-5.json"] {
		t.Errorf("PYSEC-2024-5.json is not the export's record: %q", b)
	}
	m, err := ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	searched := []string{"CVE-2024-1111", "CVE-2024-2222", "CVE-2024-3333", "CVE-2024-4444", "GHSA-AAAA-BBBB-CCCC"}
	wantManifest := &Manifest{Updated: now, Sources: []Source{
		{Ecosystem: "Go", From: srv.URL + "/Go/all.zip", Fetched: now, SHA256: sum(zips["Go"]), Bytes: int64(len(zips["Go"])), Records: 2, Written: 1, Searched: searched},
		{Ecosystem: "PyPI", From: srv.URL + "/PyPI/all.zip", Fetched: now, SHA256: sum(zips["PyPI"]), Bytes: int64(len(zips["PyPI"])), Records: 3, Written: 3, Searched: searched},
	}, Advisories: []ManifestEntry{
		{ID: "CVE-2024-1111", Records: []string{"GO-2024-0001"}, Checked: now},
		{ID: "CVE-2024-2222", Records: []string{"GHSA-xxxx-yyyy-zzzz", "PYSEC-2024-5"}, Checked: now},
		{ID: "CVE-2024-3333", Records: []string{"GHSA-wwww-wwww-wwww"}, Withdrawn: true, Checked: now},
		{ID: "CVE-2024-4444", Records: []string{}, Checked: now},
		{ID: "GHSA-AAAA-BBBB-CCCC", Records: []string{"GO-2024-0001"}, Checked: now},
	}}
	if d := cmp.Diff(wantManifest, m); d != "" {
		t.Errorf("manifest (-want +got):\n%s", d)
	}

	checkOfflineAndMirror(t, srv, zips, needs, out, now, wantFound)
}

// checkOfflineAndMirror goes on from TestAdvisories' first fetch into out: offline, from a
// mirror directory, and from a source without the export.
func checkOfflineAndMirror(t *testing.T, srv *exportServer, zips map[string][]byte, needs []AdvisoryNeed, out string, now time.Time, wantFound []Found) {
	t.Helper()
	opts := AdvisoryOptions{Dir: out, From: srv.URL}
	// Offline: what is there, without a request; the manifest is left as it was.
	before := srv.requests.Load()
	opts.Offline, opts.Now = true, func() time.Time { return now.Add(time.Hour) }
	off, err := Advisories(context.Background(), needs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(wantFound, off.Found); d != "" {
		t.Errorf("offline (-want +got):\n%s", d)
	}
	if n := srv.requests.Load(); n != before {
		t.Errorf("offline made %d requests", n-before)
	}
	if m2, _ := ReadManifest(out); !m2.Updated.Equal(now) {
		t.Errorf("offline changed the manifest: updated %v", m2.Updated)
	}

	// A mirror directory in the published layout gives the same records.
	mirror := t.TempDir()
	for eco, b := range zips {
		gittest.WriteFiles(t, mirror, map[string]string{eco + "/all.zip": string(b)})
	}
	fromDir, err := Advisories(context.Background(), needs, AdvisoryOptions{Dir: t.TempDir(), From: mirror})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(wantFound, fromDir.Found); d != "" {
		t.Errorf("from a directory (-want +got):\n%s", d)
	}
	if got := fromDir.Sources[0].From; got != filepath.Join(mirror, "Go", "all.zip") {
		t.Errorf("source recorded as %q", got)
	}

	// An export the source does not have is an error naming it.
	rep, err := Advisories(context.Background(), needs, AdvisoryOptions{Dir: t.TempDir(), From: srv.URL, Ecosystems: []string{"Maven"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), "/Maven/all.zip: 404") {
		t.Errorf("missing export: %v", err)
	}
}

// The Go CVEs of VEX-Bench's task file, from the Go vulnerability database subset in
// /work/shared (OSV's Go export layout), served over HTTP: each found one is a record that
// internal/advisory reads back by the CVE.
func TestAdvisoriesVEXBenchGo(t *testing.T) {
	export, err := os.ReadFile("../../../shared/data/osv/go-vulndb.zip")
	if err != nil {
		t.Fatalf("the shared Go database subset: %v", err)
	}
	tasks, err := os.ReadFile("../../../shared/data/vex-bench/vex_bench.jsonl")
	if err != nil {
		t.Fatalf("VEX-Bench's task file: %v", err)
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "vex.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w := suite.NewWriter(f)
	if _, problems, err := vexbench.Import(bytes.NewReader(tasks), "vex_bench.jsonl", nil, w); err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	if err := w.Flush(); err != nil || f.Close() != nil {
		t.Fatal(err)
	}
	needs, _, err := AdvisoryNeeds(filepath.Join(dir, "vex.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	srv := newExportServer(t, map[string][]byte{"Go": export})
	rep, err := Advisories(context.Background(), needs, AdvisoryOptions{Dir: filepath.Join(dir, "adv"), From: srv.URL, Ecosystems: []string{"Go"}})
	if err != nil {
		t.Fatal(err)
	}
	found, withdrawn := 0, 0
	for _, f := range rep.Found {
		if !f.Missing() {
			found++
		}
		if f.Withdrawn {
			withdrawn++
		}
	}
	t.Logf("%d advisory ids, %d with records in the Go export (%d withdrawn), %d records written", len(needs), found, withdrawn, rep.Sources[0].Written)
	if found == 0 || found == len(needs) {
		t.Errorf("%d of %d ids found: the Go export should hold some of VEX-Bench's ids (its Go ones), not all", found, len(needs))
	}
}
