package codegraph_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/codegraph"
)

// The query benchmarks run on the fixture, or on the repository named by
// VULNBENCH_CODEGRAPH_REPO (bench/codegraph.sh sets it to the glibc tree) with its cache in
// VULNBENCH_CODEGRAPH_CACHE, and the names in VULNBENCH_CODEGRAPH_NAMES (comma-separated).
func benchIndex(b *testing.B) (*codegraph.Index, []string) {
	b.Helper()
	repo, cache, names := fixture, b.TempDir(), []string{"helper", "fact", "main", "area"}
	if r := os.Getenv("VULNBENCH_CODEGRAPH_REPO"); r != "" {
		repo = r
		if c := os.Getenv("VULNBENCH_CODEGRAPH_CACHE"); c != "" {
			cache = c
		}
		if n := os.Getenv("VULNBENCH_CODEGRAPH_NAMES"); n != "" {
			names = strings.Split(n, ",")
		}
	}
	ix, err := codegraph.Open(context.Background(), repo, codegraph.Options{CacheDir: cache})
	if err != nil {
		b.Fatal(err)
	}
	return ix, names
}

func BenchmarkCallers(b *testing.B) {
	ix, names := benchIndex(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ix.Callers(names[i%len(names)], codegraph.Near{})
	}
}

func BenchmarkCallees(b *testing.B) {
	ix, names := benchIndex(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ix.Callees(names[i%len(names)], codegraph.Near{})
	}
}

func BenchmarkDefinitions(b *testing.B) {
	ix, names := benchIndex(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ix.Definitions(names[i%len(names)], codegraph.Near{})
	}
}

// BenchmarkOpenWarm is a second question on an indexed snapshot: stat the files, load the index.
func BenchmarkOpenWarm(b *testing.B) {
	ix, _ := benchIndex(b)
	cache := os.Getenv("VULNBENCH_CODEGRAPH_CACHE")
	if cache == "" {
		cache = b.TempDir()
		if _, err := codegraph.Open(context.Background(), ix.Root, codegraph.Options{CacheDir: cache}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		w, err := codegraph.Open(context.Background(), ix.Root, codegraph.Options{CacheDir: cache})
		if err != nil || !w.Stats.Loaded {
			b.Fatalf("warm open: loaded %v, %v", w != nil && w.Stats.Loaded, err)
		}
	}
}

// BenchmarkIncremental indexes a snapshot cold and from the index of a sibling snapshot
// (Options.Base), each run with an empty cache of its own, so that the ratio of the two is the
// incremental index's share of a cold one. The pair is VULNBENCH_CODEGRAPH_BASE (the sibling)
// and VULNBENCH_CODEGRAPH_REPO (bench/codegraph-incremental.sh sets both to two commits of a
// real repository), else the two commits of the incremental tests. The parse workers get spare
// Ps, as in the code commands. The incremental index must equal the cold one (cmp.Diff, checked
// once after the timed runs): it fails otherwise. It reports the contents parsed (whole or in
// part), parsed in part and reused, and the bytes the parser read.
func BenchmarkIncremental(b *testing.B) {
	base, repo := os.Getenv("VULNBENCH_CODEGRAPH_BASE"), os.Getenv("VULNBENCH_CODEGRAPH_REPO")
	if base == "" || repo == "" {
		base, repo = siblings(b)
	}
	workers, restore := codegraph.SpareProcs()
	defer restore()
	baseIx, err := codegraph.Open(context.Background(), base, codegraph.Options{CacheDir: b.TempDir(), KeepParsed: true, Workers: workers})
	if err != nil {
		b.Fatal(err)
	}
	var saved [2]int64 // the base's index and parse results, in bytes
	for k, pattern := range []string{"index-*.bin", "parsed-*.bin"} {
		names, _ := filepath.Glob(filepath.Join(filepath.Dir(baseIx.CacheFile), pattern))
		for _, n := range names {
			if st, err := os.Stat(n); err == nil {
				saved[k] += st.Size()
			}
		}
	}
	if saved[1] == 0 {
		b.Fatal("the base index has no parse results beside it")
	}
	var cold *codegraph.Index
	for _, bc := range []struct {
		name string
		base *codegraph.Index
	}{{"cold", nil}, {"incremental", baseIx}} {
		b.Run(bc.name, func(b *testing.B) {
			var ix *codegraph.Index
			defer func() {
				if bc.base == nil {
					cold = ix
				} else if cold != nil {
					sameIndex(b, cold, ix)
				}
			}()
			for b.Loop() {
				cache, err := os.MkdirTemp(b.TempDir(), "cache")
				if err != nil {
					b.Fatal(err)
				}
				if ix, err = codegraph.Open(context.Background(), repo, codegraph.Options{CacheDir: cache, Base: bc.base, Workers: workers}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(ix.Stats.Parsed), "parsed")
			b.ReportMetric(float64(ix.Stats.Reused), "reused")
			b.ReportMetric(float64(ix.Stats.PartParsed), "part-parsed")
			b.ReportMetric(float64(ix.Stats.ParsedBytes), "parsed-bytes")
			b.ReportMetric(float64(saved[0])/1e6, "index-MB")
			b.ReportMetric(float64(saved[1])/1e6, "parsed-MB")
		})
	}
}
