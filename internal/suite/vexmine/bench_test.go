package vexmine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/suite/vexmine"
)

// The mining benchmark's size (issue 34): five repositories of 10,000 first-parent commits each,
// one ecosystem's manifests in each (Go, PyPI, Maven, npm, npm with a lockfile), mined against
// 5,000 advisories of their packages.
const (
	benchRepos      = 5
	benchCommits    = 10000
	benchAdvisories = 5000
	benchPackages   = 40 // per repository
)

// genBench writes the benchmark's repositories under dir/repos (with git fast-import) and its
// advisories under dir/advisories, once: a complete dir is reused.
func genBench(tb testing.TB, dir string) {
	tb.Helper()
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil {
		return
	}
	rng := rand.New(rand.NewSource(34))
	kinds := []string{"go", "pypi", "maven", "npm", "npmlock"}
	type pkg struct {
		eco, name string
		minor     int // its current version is 1.minor.0
	}
	var all []*pkg
	var wg sync.WaitGroup
	errs := make(chan error, benchRepos)
	for r := 0; r < benchRepos; r++ {
		kind := kinds[r%len(kinds)]
		var pkgs []*pkg
		for i := 0; i < benchPackages; i++ {
			p := &pkg{minor: 1 + rng.Intn(3)}
			switch kind {
			case "go":
				p.eco, p.name = "Go", fmt.Sprintf("example.com/r%d/mod%d", r, i)
			case "pypi":
				p.eco, p.name = "PyPI", fmt.Sprintf("r%d-lib%d", r, i)
			case "maven":
				p.eco, p.name = "Maven", fmt.Sprintf("com.example.r%d:lib%d", r, i)
			default:
				p.eco, p.name = "npm", fmt.Sprintf("r%d-pkg%d", r, i)
			}
			pkgs = append(pkgs, p)
		}
		all = append(all, pkgs...)
		var names []string
		for _, p := range pkgs {
			names = append(names, p.name)
		}
		// The history, planned here (rng is not shared with the writers).
		type step struct {
			manifest bool
			bumps    []int
		}
		steps := make([]step, benchCommits)
		for c := range steps {
			if c > 0 && rng.Intn(4) == 0 { // a quarter of the commits change the manifest
				n := 1 + rng.Intn(3)
				for k := 0; k < n; k++ {
					steps[c].bumps = append(steps[c].bumps, rng.Intn(benchPackages))
				}
				steps[c].manifest = true
			}
		}
		repo := filepath.Join(dir, "repos", "github.com", "bench", fmt.Sprintf("%s%d", kind, r))
		versions := make([]int, benchPackages)
		for i, p := range pkgs {
			versions[i] = p.minor
		}
		// Final versions, for the advisories' ladder.
		final := append([]int(nil), versions...)
		for _, s := range steps {
			for _, b := range s.bumps {
				final[b]++
			}
		}
		for i, p := range pkgs {
			p.minor = final[i]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- fastImport(repo, benchCommits, func(c int, w *bufio.Writer) {
				for _, b := range steps[c].bumps {
					versions[b]++
				}
				if c == 0 || steps[c].manifest {
					for path, body := range manifests(kind, names, versions) {
						fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", path, len(body), body)
					}
				}
				src := fmt.Sprintf("package main\n\n// change %d\nfunc f%d() int { return %d }\n", c, c%7, c)
				fmt.Fprintf(w, "M 100644 inline src/file%d.go\ndata %d\n%s\n", c%50, len(src), src)
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			tb.Fatal(err)
		}
	}
	// 5,000 advisories over the packages: each fixed at some version of the package's ladder
	// (introduced a few minors before), so that bumps cross them, stay below them or pass them.
	adv := filepath.Join(dir, "advisories")
	if err := os.MkdirAll(adv, 0o755); err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < benchAdvisories; i++ {
		p := all[rng.Intn(len(all))]
		fixed := 2 + rng.Intn(max(1, p.minor))
		intro := max(0, fixed-1-rng.Intn(4))
		rec := map[string]any{"schema_version": "1.4.0", "id": fmt.Sprintf("GHSA-bnch-%04d-xxxx", i), "modified": "2024-01-01T00:00:00Z",
			"aliases": []string{fmt.Sprintf("CVE-2024-%05d", 10000+i)},
			"affected": []map[string]any{{"package": map[string]string{"ecosystem": p.eco, "name": p.name},
				"ranges": []map[string]any{{"type": "ECOSYSTEM", "events": []map[string]string{{"introduced": fmt.Sprintf("1.%d.0", intro)}, {"fixed": fmt.Sprintf("1.%d.0", fixed)}}}}}}}
		b, _ := json.Marshal(rec)
		if err := os.WriteFile(filepath.Join(adv, fmt.Sprintf("GHSA-bnch-%04d-xxxx.json", i)), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// manifests are a repository's manifest files at the given versions.
func manifests(kind string, names []string, versions []int) map[string]string {
	var b strings.Builder
	switch kind {
	case "go":
		b.WriteString("module example.com/app\n\ngo 1.22\n\nrequire (\n")
		for i, n := range names {
			fmt.Fprintf(&b, "\t%s v1.%d.0\n", n, versions[i])
		}
		b.WriteString(")\n")
		return map[string]string{"go.mod": b.String()}
	case "pypi":
		for i, n := range names {
			fmt.Fprintf(&b, "%s==1.%d.0\n", n, versions[i])
		}
		return map[string]string{"requirements.txt": b.String()}
	case "maven":
		b.WriteString("<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n  <modelVersion>4.0.0</modelVersion>\n  <groupId>com.example</groupId>\n  <artifactId>app</artifactId>\n  <version>1.0</version>\n  <dependencies>\n")
		for i, n := range names {
			g, a, _ := strings.Cut(n, ":")
			fmt.Fprintf(&b, "    <dependency>\n      <groupId>%s</groupId>\n      <artifactId>%s</artifactId>\n      <version>1.%d.0</version>\n    </dependency>\n", g, a, versions[i])
		}
		b.WriteString("  </dependencies>\n</project>\n")
		return map[string]string{"pom.xml": b.String()}
	}
	deps := map[string]string{}
	for i, n := range names {
		deps[n] = fmt.Sprintf("^1.%d.0", versions[i])
	}
	pj, _ := json.MarshalIndent(map[string]any{"name": "app", "version": "1.0.0", "dependencies": deps}, "", "  ")
	out := map[string]string{"package.json": string(pj)}
	if kind == "npmlock" {
		pk := map[string]any{"": map[string]any{"name": "app", "version": "1.0.0", "dependencies": deps}}
		for i, n := range names {
			pk["node_modules/"+n] = map[string]string{"version": fmt.Sprintf("1.%d.0", versions[i]), "resolved": "https://registry.npmjs.org/" + n}
		}
		lock, _ := json.MarshalIndent(map[string]any{"name": "app", "version": "1.0.0", "lockfileVersion": 3, "requires": true, "packages": pk}, "", "  ")
		out["package-lock.json"] = string(lock)
	}
	return out
}

// fastImport makes a repository of n linear commits at dir, the files of commit c written by files.
func fastImport(dir string, n int, files func(c int, w *bufio.Writer)) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	init := exec.Command("git", "init", "-q", "-b", "main", dir)
	init.Env = env
	if out, err := init.CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for c := 0; c < n; c++ {
		msg := fmt.Sprintf("change %d", c)
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter t <t@example.com> %d +0000\ndata %d\n%s\n", c+1, start+int64(c)*3600, len(msg), msg)
		if c > 0 {
			fmt.Fprintf(w, "from :%d\n", c)
		}
		files(c, w)
		w.WriteString("\n")
	}
	if err := w.Flush(); err != nil {
		return err
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %v: %s", err, stderr.String())
	}
	return nil
}

// benchDir is where the benchmark's inputs are generated: $VULNBENCH_VEXMINE_BENCH (kept between
// runs, as bench/vexmine.sh does), else a temporary directory.
func benchDir(tb testing.TB) string {
	if d := os.Getenv("VULNBENCH_VEXMINE_BENCH"); d != "" {
		return d
	}
	return tb.TempDir()
}

// TestGenerateBench writes the benchmark's inputs for bench/vexmine.sh; it runs only when
// $VULNBENCH_VEXMINE_BENCH names the directory.
func TestGenerateBench(t *testing.T) {
	if os.Getenv("VULNBENCH_VEXMINE_BENCH") == "" {
		t.Skip("set VULNBENCH_VEXMINE_BENCH=DIR to generate the mining benchmark's inputs there")
	}
	genBench(t, benchDir(t))
}

// BenchmarkMine mines the five generated repositories against the 5,000 advisories: each
// repository's 10,000 commits are walked and ~2,500 manifest changes read and judged.
func BenchmarkMine(b *testing.B) {
	dir := benchDir(b)
	genBench(b, dir)
	db, err := advisory.Open(filepath.Join(dir, "advisories"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.ResetTimer()
	var rep *vexmine.Report
	for i := 0; i < b.N; i++ {
		rep, err = vexmine.Mine(context.Background(), filepath.Join(dir, "repos"), db, vexmine.Options{})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	commits := 0
	for _, r := range rep.Repos {
		if r.Err != "" || len(r.Problems) > 0 {
			b.Fatalf("%s: %s %q", r.Project, r.Err, r.Problems)
		}
		commits += r.Commits
	}
	if commits != benchRepos*benchCommits || len(rep.Cases) == 0 {
		b.Fatalf("%d commits walked, %d candidates", commits, len(rep.Cases))
	}
	b.ReportMetric(float64(commits), "commits")
	b.ReportMetric(float64(len(rep.Cases)), "candidates")
	b.ReportMetric(float64(len(rep.Drops)), "drops")
}
