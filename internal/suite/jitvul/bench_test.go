package jitvul_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
)

// Shape of the generated history: commit i rewrites file i%benchFiles, changing its function
// (i/benchFiles)%benchFuncs, so a function changes every benchFiles*benchFuncs commits and its
// file every benchFiles commits.
const (
	benchCommits = 2000
	benchFiles   = 50
	benchFuncs   = 10
	benchFixes   = 200
)

func benchFile(versions []int) string {
	var b strings.Builder
	b.WriteString("#include <string.h>\n\n")
	for k, v := range versions {
		fmt.Fprintf(&b, "static int fn_%d(const char *p, int n)\n{\n\tchar buf[%d];\n\tint i;\n\tfor (i = 0; i < n; i++)\n\t\tbuf[i %% %d] = p[i];\n\treturn buf[0] + %d;\n}\n\n",
			k, 16+k, 16+k, v)
	}
	return b.String()
}

// genRepo writes a repository of benchCommits commits with git fast-import and returns its
// directory and the commit ids, oldest first.
func genRepo(tb testing.TB) (string, []string) {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "gen")
	r := &gitRepo{t: tb, dir: dir}
	if err := os.Mkdir(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
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
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter t <t@example.com> %d +0000\ndata %d\n%s\n", i+1, 1704067200+60*i, len(msg), msg)
		if i > 0 {
			fmt.Fprintf(&s, "from :%d\n", i)
		}
		body := benchFile(versions[f])
		fmt.Fprintf(&s, "M 100644 inline src/f%d.c\ndata %d\n%s\n", f, len(body), body)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = dir, &s
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("git fast-import: %v\n%s", err, out)
	}
	return dir, strings.Fields(r.git("rev-list", "--reverse", "main"))
}

// BenchmarkTrace200 traces the last 200 commits of a 2,000-commit history as fix records, the
// issue's target being under 10 s for all of them. Each walk goes back 500 commits.
func BenchmarkTrace200(b *testing.B) {
	dir, commits := genRepo(b)
	if len(commits) != benchCommits {
		b.Fatalf("%d commits", len(commits))
	}
	reposDir := filepath.Dir(dir)
	var in bytes.Buffer
	for i := benchCommits - benchFixes; i < benchCommits; i++ {
		fmt.Fprintf(&in, `{"idx": %d, "project_url": "https://example.com/bench/gen", "commit_id": %q, "file_name": "src/f%d.c", "function_name": "fn_%d"}`+"\n",
			i, commits[i], i%benchFiles, (i/benchFiles)%benchFuncs)
	}
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		s := jitvul.NewSession(jitvul.Options{})
		var out bytes.Buffer
		rep, problems, err := s.Batch(context.Background(), bytes.NewReader(in.Bytes()), "records.jsonl", reposDir, suite.NewWriter(&out))
		s.Close()
		if err != nil || len(problems) > 0 || rep.Pairs != benchFixes {
			b.Fatalf("%d pairs, %d dropped (%v), %d problems (%v), %v", rep.Pairs, len(rep.Dropped), rep.ByReason, len(problems), problems[:min(len(problems), 3)], err)
		}
		el := time.Since(start)
		b.ReportMetric(float64(benchFixes)/el.Seconds(), "records/s")
		// Every walk must end at the previous change of its function, 500 commits back.
		want := commits[benchCommits-benchFixes-benchFiles*benchFuncs]
		if !strings.Contains(out.String(), want) {
			b.Fatalf("introducing commit %s of the first record not written", want)
		}
	}
}
