package snapgraph_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/snapshot/snapgraph"
)

// repo builds a repository whose C files call each other, with links to a file and a
// directory outside it, and returns it with two commits.
func repo(t *testing.T) (dir, first, second string) {
	t.Helper()
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	dir = filepath.Join(base, "repo")
	for _, d := range []string{outside, filepath.Join(dir, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.c"), "int outside_fn (void) { return 1; }\n")
	write(filepath.Join(dir, "src", "a.c"), "int helper (int x) { return x; }\nint entry (void) { return helper (1); }\n")
	for target, name := range map[string]string{outside: "lib", filepath.Join(outside, "secret.c"): "abs.c", "../../outside/secret.c": "src/up.c"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	gittest.Run(t, dir, "init", "-q")
	gittest.Run(t, dir, "add", "-A")
	gittest.Run(t, dir, "commit", "-qm", "one")
	first = gittest.Run(t, dir, "rev-parse", "HEAD")
	write(filepath.Join(dir, "src", "b.c"), "int later (void) { return entry (); }\n")
	gittest.Run(t, dir, "add", "-A")
	gittest.Run(t, dir, "commit", "-qm", "two")
	return dir, first, gittest.Run(t, dir, "rev-parse", "HEAD")
}

func snapshots(t *testing.T) (*snapshot.Cache, string, string, string) {
	t.Helper()
	dir, first, second := repo(t)
	cacheDir := t.TempDir()
	t.Cleanup(func() { snapshot.RemoveAll(cacheDir) })
	c, err := snapshot.NewCache(cacheDir, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c, dir, first, second
}

func open(t *testing.T, c *snapshot.Cache, dir, commit string) *snapshot.Snapshot {
	t.Helper()
	s, err := c.Get(context.Background(), dir, commit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestGraphsShared: units asking at once for a snapshot's graph share one build; it holds the
// snapshot's definitions and calls and nothing reached through the links out.
func TestGraphsShared(t *testing.T) {
	c, dir, first, _ := snapshots(t)
	g := snapgraph.New(codegraph.Options{CacheDir: t.TempDir()}, 0)
	const n = 6
	ixs := make([]*codegraph.Index, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.Get(context.Background(), dir, first)
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			ixs[i], errs[i] = g.Get(context.Background(), s)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Get %d: %v", i, errs[i])
		}
		if ixs[i] != ixs[0] {
			t.Errorf("Get %d returned another index than Get 0: built twice", i)
		}
	}
	ix := ixs[0]
	if ix.Stats.Loaded {
		t.Error("the first graph was loaded from a cache that was empty")
	}
	var files, skipped []string
	for _, f := range ix.Files {
		files = append(files, f.Path)
	}
	for _, s := range ix.Skipped {
		skipped = append(skipped, s.Path+": "+s.Reason)
	}
	if d := cmp.Diff([]string{"src/a.c"}, files); d != "" {
		t.Errorf("indexed (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"abs.c: symbolic link", "src/up.c: symbolic link"}, skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
	if got := ix.Definitions("outside_fn", codegraph.Near{}); len(got) != 0 {
		t.Errorf("indexed a definition from outside the snapshot: %+v", got)
	}
	if got := ix.Callers("helper", codegraph.Near{}); len(got) != 1 || got[0].CallerQual != "entry" {
		t.Errorf("callers of helper: %+v", got)
	}
}

// TestGraphsKeep: past keep graphs the least recently used one is dropped from memory and
// loaded again from codegraph's disk cache when asked for.
func TestGraphsKeep(t *testing.T) {
	c, dir, first, second := snapshots(t)
	g := snapgraph.New(codegraph.Options{CacheDir: t.TempDir()}, 1)
	s1, s2 := open(t, c, dir, first), open(t, c, dir, second)
	a, err := g.Get(context.Background(), s1)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := g.Get(context.Background(), s1); err != nil || again != a {
		t.Fatalf("second Get of one snapshot: %p, %v; want the same index %p", again, err, a)
	}
	b, err := g.Get(context.Background(), s2)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Definitions("later", codegraph.Near{}); len(got) != 1 {
		t.Errorf("later in the second commit: %+v", got)
	}
	if got := a.Definitions("later", codegraph.Near{}); len(got) != 0 {
		t.Errorf("later in the first commit: %+v", got)
	}
	a2, err := g.Get(context.Background(), s1)
	if err != nil {
		t.Fatal(err)
	}
	if a2 == a || !a2.Stats.Loaded || a2.Hash != a.Hash {
		t.Errorf("after eviction: same pointer %v, loaded %v, same hash %v; want a fresh index loaded from disk with the same hash", a2 == a, a2.Stats.Loaded, a2.Hash == a.Hash)
	}
}

// TestGraphsSiblings: the graph of a second snapshot of a repository is built from the first's,
// parsing only the file that changed, and equals a cold index of that snapshot.
func TestGraphsSiblings(t *testing.T) {
	c, dir, first, second := snapshots(t)
	g := snapgraph.New(codegraph.Options{CacheDir: t.TempDir()}, 0)
	a, err := g.Get(context.Background(), open(t, c, dir, first))
	if err != nil {
		t.Fatal(err)
	}
	s2 := open(t, c, dir, second)
	b, err := g.Get(context.Background(), s2)
	if err != nil {
		t.Fatal(err)
	}
	if a.Stats.Parsed != 1 || b.Stats.Parsed != 1 || b.Stats.Reused != 1 {
		t.Errorf("parsed %d then %d (reused %d); want src/a.c, then src/b.c only", a.Stats.Parsed, b.Stats.Parsed, b.Stats.Reused)
	}
	cold, err := codegraph.Open(context.Background(), s2.Root(), codegraph.Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(cold.Funcs, b.Funcs); d != "" {
		t.Errorf("definitions (-cold +incremental):\n%s", d)
	}
	if d := cmp.Diff(cold.Calls, b.Calls); d != "" {
		t.Errorf("calls (-cold +incremental):\n%s", d)
	}
}

// TestGraphsSiblingsAtOnce: asked for at the same time, the second snapshot's graph waits for
// the first's and reuses it, so each distinct file is parsed once in all.
func TestGraphsSiblingsAtOnce(t *testing.T) {
	c, dir, first, second := snapshots(t)
	g := snapgraph.New(codegraph.Options{CacheDir: t.TempDir()}, 0)
	snaps := []*snapshot.Snapshot{open(t, c, dir, first), open(t, c, dir, second)}
	ixs := make([]*codegraph.Index, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range snaps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ixs[i], errs[i] = g.Get(context.Background(), snaps[i])
		}()
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
	}
	if n := ixs[0].Stats.Parsed + ixs[1].Stats.Parsed; n != 2 {
		t.Errorf("parsed %d and %d file contents; want 2 in all (src/a.c and src/b.c once each)", ixs[0].Stats.Parsed, ixs[1].Stats.Parsed)
	}
}
