package fetch

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Findings of issue 31 on fetch advisories, one subtest each: a folder of GitHub advisory files
// could not be used; every run downloaded every export again; the first unavailable export
// stopped the command (others unread, no manifest); records were written 0600; --offline ignored
// the manifest.
func TestAdvisoriesFindings(t *testing.T) {
	goZip := zipOf(t, map[string]string{"GO-2024-0001.json": osvRecord("GO-2024-0001", []string{"CVE-2024-1111"}, false)})
	needs := []AdvisoryNeed{{ID: "CVE-2024-1111", Ecosystems: []string{"Go"}, Cases: 1}}

	t.Run("GitHub's advisory database layout as --from", func(t *testing.T) {
		const ghsa = "../../../shared/data/ghsa"
		// The real records: GHSA-25xm-hr59-7c27 is CVE-2021-29482 (github.com/ulikunitz/xz).
		want := "advisories/github-reviewed/2021/05/GHSA-25xm-hr59-7c27/GHSA-25xm-hr59-7c27.json"
		orig, err := os.ReadFile(filepath.Join(ghsa, want))
		if err != nil {
			t.Fatalf("the shared GitHub advisories: %v", err)
		}
		dir := t.TempDir()
		rep, err := Advisories(context.Background(), []AdvisoryNeed{{ID: "CVE-2021-29482", Ecosystems: []string{"Go"}}, {ID: "CVE-1999-0001"}},
			AdvisoryOptions{Dir: dir, From: ghsa})
		if err != nil || rep.Err() != nil {
			t.Fatal(err, rep.Err())
		}
		if d := cmp.Diff([]Found{{ID: "CVE-2021-29482", Records: []string{"GHSA-25xm-hr59-7c27"}}, {ID: "CVE-1999-0001"}}, rep.Found); d != "" {
			t.Errorf("found (-want +got):\n%s", d)
		}
		got, _ := os.ReadFile(filepath.Join(dir, "GHSA-25xm-hr59-7c27.json"))
		if string(got) != string(orig) {
			t.Error("the record is not the database's file, verbatim")
		}
		if s := rep.Sources; len(s) != 1 || s[0].Ecosystem != "*" || s[0].Records != 60 || s[0].Written != 1 {
			t.Errorf("sources: %+v, want the 60 records read once, 1 written", s)
		}
	})

	t.Run("a second fetch transfers nothing", func(t *testing.T) {
		var requests, bytes, notModified atomic.Int64
		modified := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			w.Header().Set("ETag", `"go-1"`)
			cw := &countingWriter{ResponseWriter: w, n: &bytes}
			http.ServeContent(cw, r, "all.zip", modified, strings.NewReader(string(goZip)))
			if cw.status == http.StatusNotModified {
				notModified.Add(1)
			}
		}))
		defer srv.Close()
		dir := t.TempDir()
		opts := AdvisoryOptions{Dir: dir, From: srv.URL}
		if _, err := Advisories(context.Background(), needs, opts); err != nil {
			t.Fatal(err)
		}
		first := bytes.Load()
		rep, err := Advisories(context.Background(), needs, opts)
		if err != nil {
			t.Fatal(err)
		}
		if requests.Load() != 2 || notModified.Load() != 1 || bytes.Load() != first {
			t.Errorf("%d requests, %d answered 304, %d bytes after the first %d: want the second unchanged, nothing sent", requests.Load(), notModified.Load(), bytes.Load(), first)
		}
		if !rep.Sources[0].Unchanged || rep.Found[0].Missing() {
			t.Errorf("second fetch: %+v %+v", rep.Sources, rep.Found)
		}
		// New ids: the export must be read again, whole.
		more := append(needs, AdvisoryNeed{ID: "CVE-2024-7777", Ecosystems: []string{"Go"}})
		rep, err = Advisories(context.Background(), more, opts)
		if err != nil || rep.Sources[0].Unchanged || bytes.Load() != 2*first {
			t.Errorf("new ids: unchanged %v, %d bytes sent (want the export again): %v", rep.Sources[0].Unchanged, bytes.Load(), err)
		}
	})

	t.Run("every export tried, the manifest written for what was read", func(t *testing.T) {
		srv := newExportServer(t, map[string][]byte{"Go": goZip})
		dir := t.TempDir()
		two := []AdvisoryNeed{{ID: "CVE-2024-0404", Ecosystems: []string{"Maven"}}, needs[0]}
		rep, err := Advisories(context.Background(), two, AdvisoryOptions{Dir: dir, From: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		if err := rep.Err(); !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), "Maven/all.zip: 404") {
			t.Errorf("Err = %v, want Maven's export named", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "GO-2024-0001.json")); err != nil {
			t.Errorf("the Go export after the failed Maven one was not read: %v", err)
		}
		m, err := ReadManifest(dir)
		if err != nil || len(m.Sources) != 1 || m.Sources[0].Ecosystem != "Go" {
			t.Errorf("manifest: %+v %v, want the Go export recorded", m, err)
		}
	})

	t.Run("records and manifest are 0644", func(t *testing.T) {
		srv := newExportServer(t, map[string][]byte{"Go": goZip})
		dir := t.TempDir()
		if _, err := Advisories(context.Background(), needs, AdvisoryOptions{Dir: dir, From: srv.URL}); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"GO-2024-0001.json", ManifestName} {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil || fi.Mode().Perm() != 0o644 {
				t.Errorf("%s: %v %v, want 0644", name, fi.Mode(), err)
			}
		}
	})

	t.Run("--offline compares with the manifest", func(t *testing.T) {
		srv := newExportServer(t, map[string][]byte{"Go": goZip})
		dir := t.TempDir()
		if _, err := Advisories(context.Background(), needs, AdvisoryOptions{Dir: dir, From: srv.URL}); err != nil {
			t.Fatal(err)
		}
		// A record the fetch did not write, and the one it wrote gone.
		if err := os.WriteFile(filepath.Join(dir, "GHSA-hand-made-0001.json"), []byte(osvRecord("GHSA-hand-made-0001", []string{"CVE-2024-1111"}, false)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(dir, "GO-2024-0001.json")); err != nil {
			t.Fatal(err)
		}
		rep, err := Advisories(context.Background(), append(needs, AdvisoryNeed{ID: "CVE-2024-5555"}), AdvisoryOptions{Dir: dir, Offline: true})
		if err != nil {
			t.Fatal(err)
		}
		m := rep.Manifest.Advisories[0].Checked.Format(time.RFC3339)
		want := []string{
			"CVE-2024-1111: the manifest lists GO-2024-0001 (checked " + m + "), no longer in the directory",
			"CVE-2024-1111: GHSA-hand-made-0001 in the directory, not written by a fetch (the manifest lists GO-2024-0001)",
			"CVE-2024-5555: never fetched into this directory (not in its manifest)",
		}
		if d := cmp.Diff(want, rep.Differences); d != "" || !rep.Lost() {
			t.Errorf("differences (-want +got):\n%s\nlost %v", d, rep.Lost())
		}
	})
}

type countingWriter struct {
	http.ResponseWriter
	n      *atomic.Int64
	status int
}

func (c *countingWriter) WriteHeader(code int) { c.status = code; c.ResponseWriter.WriteHeader(code) }
func (c *countingWriter) Write(b []byte) (int, error) {
	c.n.Add(int64(len(b)))
	return c.ResponseWriter.Write(b)
}
