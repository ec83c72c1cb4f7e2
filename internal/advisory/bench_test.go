package advisory_test

import (
	"archive/zip"
	"compress/flate"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/vulnbench/vulnbench/internal/advisory"
)

// exportSize is the number of records of the generated osv.dev-like export (issue 12's
// benchmark: load under 10 s, lookup under 1 ms).
const exportSize = 200_000

// writeExport writes an all.zip of n generated records, about 1 KB each, every one a GHSA id
// with a CVE alias, half with a GO- record aliasing both.
func writeExport(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	zw := zip.NewWriter(f)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	for i := 0; i < n; i++ {
		var id, body string
		cve := fmt.Sprintf("CVE-%d-%05d", 2000+i%25, i)
		if i%2 == 0 {
			id = ghsaID(i)
			body = fmt.Sprintf(`{"schema_version":"1.4.0","id":%q,"modified":"2024-03-01T00:00:00Z","published":"2024-02-01T00:00:00Z",
"aliases":[%q],"summary":"Generated advisory %d","details":"A generated vulnerability in package-%d that lets an attacker do something bad when the input is crafted in a particular way. Upgrade to the fixed version.",
"severity":[{"type":"CVSS_V3","score":"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}],
"affected":[{"package":{"ecosystem":"PyPI","name":"package-%d"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"1.%d.0"}]}]},
{"package":{"ecosystem":"Maven","name":"org.example:package-%d"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"2.0"},{"fixed":"2.%d"}]}],"database_specific":{"source":"generated"}}],
"references":[{"type":"ADVISORY","url":"https://nvd.nist.gov/vuln/detail/%s"},{"type":"WEB","url":"https://example.com/%d"}],
"database_specific":{"github_reviewed":true,"severity":"HIGH","cwe_ids":["CWE-22"]}}`, id, cve, i, i, i, i%9, i, i%9, cve, i)
		} else {
			id = fmt.Sprintf("GO-%d-%05d", 2000+i%25, i)
			body = fmt.Sprintf(`{"schema_version":"1.3.1","id":%q,"modified":"2024-03-02T00:00:00Z","published":"2024-02-02T00:00:00Z",
"aliases":[%q,%q],"summary":"Generated Go vulnerability %d","details":"Crafted input makes example.com/mod%d misbehave.",
"affected":[{"package":{"name":"example.com/mod%d","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.%d.0"}]}],
"ecosystem_specific":{"imports":[{"path":"example.com/mod%d/pkg","symbols":["Parse","Reader.Next"]}]}}],
"references":[{"type":"FIX","url":"https://example.com/mod%d/commit/abc"}]}`, id, cve, ghsaID(i-1), i, i, i, i%9, i, i)
		}
		w, err := zw.Create(id + ".json")
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := io.WriteString(w, body); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

func ghsaID(i int) string {
	const a = "23456789cfghjmpqrvwx"
	s := []byte("GHSA-xxxx-xxxx-xxxx")
	for _, p := range []int{5, 6, 7, 8, 10, 11, 12, 13, 15, 16, 17, 18} {
		s[p] = a[i%len(a)]
		i /= len(a)
	}
	return string(s)
}

func BenchmarkOpen200k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "all.zip")
	writeExport(b, path, exportSize)
	b.ResetTimer()
	for b.Loop() {
		db, err := advisory.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if db.Len() != exportSize || len(db.Problems()) > 0 {
			b.Fatalf("%d records, problems %v", db.Len(), db.Problems())
		}
		db.Close()
	}
}

func BenchmarkFind200k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "all.zip")
	writeExport(b, path, exportSize)
	db, err := advisory.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i = (i + 7919) % exportSize
		as, err := db.Find(fmt.Sprintf("CVE-%d-%05d", 2000+i%25, i))
		if err != nil || len(as) == 0 {
			b.Fatalf("Find: %v, %d records", err, len(as))
		}
	}
}

// TestExportRoundTrip checks the generator (and so the benchmarks' claims) on a small export.
func TestExportRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "all.zip")
	writeExport(t, path, 100)
	db := open(t, path)
	if db.Len() != 100 || len(db.Problems()) > 0 {
		t.Fatalf("%d records, problems %v", db.Len(), db.Problems())
	}
	as, err := db.Find("CVE-2001-00001") // a GO- record aliasing the CVE and GHSA of record 0
	if err != nil || len(as) != 1 || as[0].ID != "GO-2001-00001" || len(as[0].Affected[0].Symbols) != 2 {
		t.Fatalf("Find = %+v, %v", as, err)
	}
	rel, err := db.Related("CVE-2001-00001")
	if err != nil || len(rel) != 2 {
		t.Errorf("Related = %d records, %v", len(rel), err)
	}
}

// BenchmarkRelated200k follows a CVE to every record that names it or its aliases, as the sca
// subject and the OpenVEX writer do once per case.
func BenchmarkRelated200k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "all.zip")
	writeExport(b, path, exportSize)
	db, err := advisory.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i = (i + 7919) % exportSize
		as, err := db.Related(fmt.Sprintf("CVE-%d-%05d", 2000+i%25, i))
		if err != nil || len(as) == 0 {
			b.Fatalf("Related: %v, %d records", err, len(as))
		}
	}
}
