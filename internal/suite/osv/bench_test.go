package osv_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/osv"
)

// The benchmark's shape (issue 24: 4,000 records over 20 repositories, under 2 minutes and
// 1 GB): each repository has benchFiles C files of benchFuncs functions (about 450 lines a
// file); commit i rewrites function (i/benchFiles)%benchFuncs of file i%benchFiles, so a
// function changes every benchFiles*benchFuncs commits. The records fix the last
// benchRecords commits of each repository: three in four name the changed function in an
// OSS-Fuzz crash state, one in four is a hint-less FIX reference (one function changed: kept
// by --max-funcs), one in twenty names a commit the repository does not have.
const (
	benchRepos   = 20
	benchFiles   = 20
	benchFuncs   = 40
	benchCommits = 1000
	benchRecords = 200
)

func benchSource(versions []int) string {
	var b strings.Builder
	b.WriteString("#include <string.h>\n\n")
	for k, v := range versions {
		fmt.Fprintf(&b, "static int fn_%d(const char *p, int n)\n{\n\tchar buf[%d];\n\tint i;\n\tfor (i = 0; i < n; i++)\n\t\tbuf[i %% %d] = p[i];\n\tif (n > %d)\n\t\treturn -1;\n\treturn buf[0] + %d;\n}\n\n",
			k, 16+k, 16+k, 100+k, v)
	}
	return b.String()
}

// benchRepo writes one repository with git fast-import and returns its commit ids, oldest first.
func benchRepo(tb testing.TB, dir string) []string {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	r := &repo{t: tb, dir: dir}
	r.git("init", "-q", "-b", "main")
	versions := make([][]int, benchFiles)
	for f := range versions {
		versions[f] = make([]int, benchFuncs)
	}
	var s bytes.Buffer
	for i := 0; i < benchCommits; i++ {
		f, k := i%benchFiles, (i/benchFiles)%benchFuncs
		versions[f][k] = i
		msg := fmt.Sprintf("change fn_%d in f%d.c", k, f)
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter t <t@example.com> %d +0000\ndata %d\n%s\n", i+1, 1704067200+3600*i, len(msg), msg)
		if i > 0 {
			fmt.Fprintf(&s, "from :%d\n", i)
		}
		body := benchSource(versions[f])
		fmt.Fprintf(&s, "M 100644 inline src/f%d.c\ndata %d\n%s\n", f, len(body), body)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = dir, &s
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("git fast-import: %v\n%s", err, out)
	}
	return strings.Fields(r.git("rev-list", "--reverse", "main"))
}

// benchInputs writes the repositories and an OSV zip export of their records; it returns the
// --repos directory, the zip and how many records should give a pair.
func benchInputs(tb testing.TB) (string, string, int) {
	tb.Helper()
	root := tb.TempDir()
	repos := filepath.Join(root, "repos")
	commits := make([][]string, benchRepos)
	var wg sync.WaitGroup
	for i := range benchRepos {
		wg.Add(1)
		go func() {
			defer wg.Done()
			commits[i] = benchRepo(tb, filepath.Join(repos, "example.com", "bench", fmt.Sprintf("r%02d", i)))
		}()
	}
	wg.Wait()
	zipPath := filepath.Join(root, "osv.zip")
	f, err := os.Create(zipPath)
	if err != nil {
		tb.Fatal(err)
	}
	zw := zip.NewWriter(f)
	want := 0
	for ri := range benchRepos {
		url := fmt.Sprintf("https://example.com/bench/r%02d", ri)
		for j := 0; j < benchRecords; j++ {
			i := benchCommits - benchRecords + j
			fix, k := commits[ri][i], (i/benchFiles)%benchFuncs
			id := fmt.Sprintf("OSV-2025-%d", ri*benchRecords+j)
			var body string
			switch {
			case j%20 == 19:
				fix = fmt.Sprintf("%040x", ri*1000+j) // not in the repository
				fallthrough
			case j%4 != 0:
				body = fmt.Sprintf(`{"id":%q,"published":"2025-03-01T00:00:00Z","details":"Crash type: Heap-buffer-overflow READ 4\nCrash state:\nfn_%d\nLLVMFuzzerTestOneInput\n",
"affected":[{"package":{"name":"r%02d","ecosystem":"OSS-Fuzz"},"ranges":[{"type":"GIT","repo":"%s.git","events":[{"introduced":%q},{"fixed":%q}]}]}]}`,
					id, k, ri, url, commits[ri][0], fix)
			default:
				id = fmt.Sprintf("GHSA-bench-%04d", ri*benchRecords+j)
				body = fmt.Sprintf(`{"id":%q,"published":"2025-04-01T00:00:00Z","aliases":["CVE-2025-%d"],"references":[{"type":"FIX","url":"%s/commit/%s"}]}`,
					id, 10000+ri*benchRecords+j, url, fix)
			}
			if j%20 != 19 {
				want++
			}
			w, err := zw.Create(id + ".json")
			if err != nil {
				tb.Fatal(err)
			}
			if _, err := w.Write([]byte(body)); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return repos, zipPath, want
}

// BenchmarkBuild4000 builds function and jit suites from 4,000 records over 20 generated
// repositories and reports the time per build, records per second and the peak resident memory
// of the process and of its largest git child (getrusage).
func BenchmarkBuild4000(b *testing.B) {
	repos, zipPath, want := benchInputs(b)
	for _, kind := range []suite.Kind{suite.KindFunction, suite.KindJIT} {
		b.Run(string(kind), func(b *testing.B) {
			for range b.N {
				start := time.Now()
				db, err := advisory.Open(zipPath)
				if err != nil {
					b.Fatal(err)
				}
				bl := osv.NewBuilder(osv.Options{Kind: kind})
				res, err := bl.Build(context.Background(), db, repos)
				if err != nil {
					b.Fatal(err)
				}
				var out bytes.Buffer
				w := suite.NewWriter(&out)
				if err := res.Write(w); err != nil {
					b.Fatal(err)
				}
				w.Flush()
				bl.Close()
				db.Close()
				el := time.Since(start)
				rep := res.Report()
				if rep.Records != benchRepos*benchRecords || rep.WithPairs != want || rep.Pairs != want {
					b.Fatalf("%d records, %d with pairs, %d pairs (want %d), dropped %v", rep.Records, rep.WithPairs, rep.Pairs, want, rep.ByReason)
				}
				b.ReportMetric(float64(rep.Records)/el.Seconds(), "records/s")
			}
			var self, children syscall.Rusage
			if syscall.Getrusage(syscall.RUSAGE_SELF, &self) == nil && syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) == nil {
				b.ReportMetric(float64(self.Maxrss)/1024, "peak-MB")
				b.ReportMetric(float64(children.Maxrss)/1024, "child-peak-MB")
			}
		})
	}
}
