package codegraph_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/vulnbench/vulnbench/internal/codegraph"
)

// copyFixture copies the fixture repository into a temporary directory and dates every file an
// hour back, as a checkout would be.
func copyFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(fixture, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(fixture, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return err
		}
		return os.Chtimes(dst, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func open(t *testing.T, repo, cache string) *codegraph.Index {
	t.Helper()
	ix, err := codegraph.Open(context.Background(), repo, codegraph.Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if ix.CacheErr != nil {
		t.Fatal(ix.CacheErr)
	}
	return ix
}

// sameIndex compares what two indexes hold, leaving out how they were obtained.
func sameIndex(t testing.TB, a, b *codegraph.Index) {
	t.Helper()
	opts := cmp.Options{
		cmpopts.IgnoreUnexported(codegraph.Index{}),
		cmpopts.IgnoreFields(codegraph.Index{}, "CacheFile", "CacheErr", "Base"),
		cmpopts.IgnoreFields(codegraph.Stats{}, "Seconds", "Loaded", "Parsed", "Reused", "PartParsed", "ParsedBytes"),
	}
	if diff := cmp.Diff(a, b, opts); diff != "" {
		t.Errorf("indexes differ (-a +b):\n%s", diff)
	}
}

func TestPersistence(t *testing.T) {
	repo, cache := copyFixture(t), t.TempDir()
	first := open(t, repo, cache)
	if first.Stats.Loaded {
		t.Fatal("a first index was loaded from an empty cache")
	}
	if _, err := os.Stat(first.CacheFile); err != nil {
		t.Fatalf("no cache file: %v", err)
	}

	// The same snapshot again: loaded, equal, and the answers are the same.
	second := open(t, repo, cache)
	if !second.Stats.Loaded || second.CacheFile != first.CacheFile {
		t.Fatalf("second open: loaded %v from %s", second.Stats.Loaded, second.CacheFile)
	}
	sameIndex(t, first, second)
	if diff := cmp.Diff(callerStrings(first.Callers("helper", codegraph.Near{File: "c/util.c"})),
		callerStrings(second.Callers("helper", codegraph.Near{File: "c/util.c"}))); diff != "" {
		t.Errorf("callers differ after loading:\n%s", diff)
	}

	// A file whose size, time and inode are unchanged is not read again: rewriting it in
	// place with the same size and time goes unnoticed (the stat cache is the prefilter git uses).
	util := filepath.Join(repo, "c", "util.c")
	st, err := os.Stat(util)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(util)
	f, err := os.OpenFile(util, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("/* x */"), int64(len(b))-int64(len("/* x */"))-1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.Chtimes(util, st.ModTime(), st.ModTime())
	third := open(t, repo, cache)
	if !third.Stats.Loaded || third.Hash != first.Hash {
		t.Errorf("an untouched stat read the file: loaded %v, hash changed %v", third.Stats.Loaded, third.Hash != first.Hash)
	}

	// A real change: a new snapshot, indexed afresh, with the new function in it.
	if err := os.WriteFile(util, append(b, []byte("\nint added (void) { return count_down (3); }\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	fourth := open(t, repo, cache)
	if fourth.Stats.Loaded || fourth.Hash == first.Hash {
		t.Fatalf("changed file: loaded %v, same hash %v", fourth.Stats.Loaded, fourth.Hash == first.Hash)
	}
	if got := callerStrings(fourth.Callers("count_down", codegraph.Near{})); len(got) != 2 || got[1] != "added count_down c/util.c:26 direct" {
		t.Errorf("callers of count_down after the change: %v", got)
	}

	// A corrupt cache file is rebuilt, not trusted.
	if err := os.WriteFile(fourth.CacheFile, []byte("vulnbench-codegraph\ngarbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifth := open(t, repo, cache)
	if fifth.Stats.Loaded {
		t.Error("a corrupt cache file was loaded")
	}
	sameIndex(t, fourth, fifth)
}

func TestNoCache(t *testing.T) {
	cache := t.TempDir()
	ix, err := codegraph.Open(context.Background(), fixture, codegraph.Options{CacheDir: cache, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if ix.CacheFile != "" || ix.Stats.Loaded {
		t.Errorf("NoCache: cache file %q, loaded %v", ix.CacheFile, ix.Stats.Loaded)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("NoCache wrote %d entries", len(entries))
	}
}

func TestUnwritableCache(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(cache, nil, 0o644); err != nil { // a file where a directory should be
		t.Fatal(err)
	}
	ix, err := codegraph.Open(context.Background(), fixture, codegraph.Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if ix.CacheErr == nil || len(ix.Funcs) == 0 {
		t.Errorf("want a complete index and a cache error, got %d functions, %v", len(ix.Funcs), ix.CacheErr)
	}
}

func TestTopK(t *testing.T) {
	repo := writeRepo(t, map[string][]byte{
		"t.c": []byte("int target (int a) { return alpha (a) + beta (a); }\n" +
			"int alpha (int a) { return a; }\n" +
			"int beta (int q) { return q * 2; }\n" +
			"int caller1 (int a) { return target (a); }\n" +
			"int target2 (void) { return target (1) + target (2); }\n"),
	})
	ix, err := codegraph.Open(context.Background(), repo, codegraph.Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	type scored struct {
		Name  string
		Score float64
	}
	render := func(rs []codegraph.Related) []scored {
		out := []scored{}
		for _, r := range rs {
			out = append(out, scored{r.Func.Name, r.Score})
		}
		return out
	}
	// Token sets: target {int target a return alpha beta}; alpha {int alpha a return}: 4/6;
	// beta {int beta q return 2}: 3/8; caller1 {int caller1 a return target}: 4/7;
	// target2 {int target2 void return target 1 2}: 3/10.
	ctx, err := ix.TopK("target", codegraph.Near{}, 5)
	if err != nil {
		t.Fatal(err)
	}
	approx := cmpopts.EquateApprox(0, 1e-9)
	if diff := cmp.Diff([]scored{{"caller1", 4.0 / 7}, {"target2", 3.0 / 10}}, render(ctx.Callers), approx); diff != "" {
		t.Errorf("callers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]scored{{"alpha", 4.0 / 6}, {"beta", 3.0 / 8}}, render(ctx.Callees), approx); diff != "" {
		t.Errorf("callees (-want +got):\n%s", diff)
	}
	if ctx.Target.Name != "target" || ctx.Target.Text != "int target (int a) { return alpha (a) + beta (a); }" {
		t.Errorf("target %+v", ctx.Target)
	}
	ctx, err = ix.TopK("target", codegraph.Near{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(ctx.Callers) != 1 || ctx.Callers[0].Func.Name != "caller1" || len(ctx.Callees) != 1 || ctx.Callees[0].Func.Name != "alpha" {
		t.Errorf("k=1: callers %v callees %v", render(ctx.Callers), render(ctx.Callees))
	}
	if _, err := ix.TopK("nothing", codegraph.Near{}, 5); err == nil {
		t.Error("TopK of an undefined name: no error")
	}
}
