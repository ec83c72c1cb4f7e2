package tools_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/agent/tools"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// hugeSnapshot holds huge.c, lines+1 lines ("int xN;" then "SECRET_AT_END"), well past the
// snapshot's 1 MiB per-file read limit, under a handle whose budget is budget bytes.
func hugeSnapshot(t *testing.T, lines int, budget int64) *snapshot.Snapshot {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&b, "int x%d;\n", i)
	}
	b.WriteString("SECRET_AT_END\n")
	commit := gittest.Repo(t, filepath.Join(dir, "repo"), map[string]string{"huge.c": b.String(), "small.c": "int main;\n"})
	cache, err := snapshot.NewCache(filepath.Join(dir, "cache"), snapshot.Options{Limits: snapshot.Limits{MaxTotalBytes: budget}})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := cache.Get(context.Background(), filepath.Join(dir, "repo"), commit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	return snap
}

// Files past the per-file limit are read whole (streamed): line counts and searches cover the
// whole file (issue 25, finding 3).
func TestBigFilesAreReadWhole(t *testing.T) {
	const lines = 300_000 // 3,788,909 bytes: 3.6 MiB
	snap := hugeSnapshot(t, lines, 0)
	rf, se := tools.ReadFile(snap), tools.Search(snap)
	got := run(t, rf, `{"path": "huge.c", "start_line": 200000, "end_line": 200002}`)
	if want := "huge.c lines 200000-200002 of 300001:\n200000\tint x200000;\n200001\tint x200001;\n200002\tint x200002;"; got != want {
		t.Errorf("read_file past the first MiB:\ngot  %q\nwant %q", got, want)
	}
	got = run(t, rf, `{"path": "huge.c", "start_line": 400000}`)
	if want := "huge.c has 300001 lines; there is nothing from line 400000."; got != want {
		t.Errorf("read_file past the end:\ngot  %q\nwant %q", got, want)
	}
	got = run(t, se, `{"pattern": "SECRET_AT_END"}`)
	if want := "huge.c:300001: SECRET_AT_END"; got != want {
		t.Errorf("search for the last line:\ngot  %q\nwant %q", got, want)
	}
	got = run(t, rf, `{"path": "huge.c"}`)
	if !strings.HasPrefix(got, "huge.c lines 1-300001 of 300001:\n1\tint x1;\n") || len(got) > 64<<10 || !strings.Contains(got, "[cut: ") {
		t.Errorf("read_file of the whole file: %d bytes, starts %q, ends %q; want a bounded observation saying where it was cut", len(got), got[:min(60, len(got))], got[max(0, len(got)-120):])
	}
}

// When the unit's read budget runs out mid-file, the observation says how much was read rather
// than stating a false line count or "no line matches".
func TestBigFilesOverBudgetSaySo(t *testing.T) {
	snap := hugeSnapshot(t, 300_000, 2<<20)
	got := run(t, tools.Search(snap), `{"pattern": "SECRET_AT_END"}`)
	if strings.HasPrefix(got, "No line matches") && !strings.Contains(got, "searched the first") {
		t.Errorf("search over budget: %q; want a note of how much of huge.c was searched", got)
	}
	if !strings.Contains(got, "huge.c: searched the first 2.0 MiB of 3.6 MiB") {
		t.Errorf("search over budget: %q; want \"huge.c: searched the first 2.0 MiB of 3.6 MiB\"", got)
	}
	snap = hugeSnapshot(t, 300_000, 2<<20)
	got = run(t, tools.ReadFile(snap), `{"path": "huge.c", "start_line": 250000, "end_line": 250001}`)
	if !strings.Contains(got, "read the first 2.0 MiB of 3.6 MiB") || strings.Contains(got, "there is nothing from line") {
		t.Errorf("read_file over budget: %q; want a note of how much was read, no false line count", got)
	}
}

// find_dependency reads a lockfile past the snapshot's 1 MiB per-file limit whole (issue 35
// item 8): a 3 MB package-lock.json was "unreadable: over the 1048576-byte read limit" and the
// tool answered "no manifest names lodash".
func TestFindDependencyInABigLockfile(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("{\n  \"lockfileVersion\": 3,\n  \"packages\": {\n    \"\": {\n      \"name\": \"app\"\n    }")
	for i := 0; i < 12000; i++ {
		fmt.Fprintf(&b, ",\n    \"node_modules/pkg-%d\": {\n      \"version\": \"1.0.%d\",\n      \"integrity\": \"sha512-%s==\"\n    }", i, i, strings.Repeat("QUJDREVGR0hJSktM", 8))
	}
	b.WriteString(",\n    \"node_modules/lodash\": {\n      \"version\": \"4.17.20\"\n    }\n  }\n}\n")
	if b.Len() < 2<<20 {
		t.Fatalf("lockfile of %d bytes; want over 2 MiB", b.Len())
	}
	commit := gittest.Repo(t, filepath.Join(dir, "repo"), map[string]string{"package-lock.json": b.String(), "package.json": `{"dependencies": {"lodash": "4.17.20"}}`})
	cache, err := snapshot.NewCache(filepath.Join(dir, "cache"), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := cache.Get(context.Background(), filepath.Join(dir, "repo"), commit)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	got := run(t, tools.FindDependency(snap), `{"package": "lodash"}`)
	if !strings.Contains(got, "npm lodash 4.17.20 at package-lock.json:48007 (direct)") || strings.Contains(got, "read limit") { // 6 header lines, 4 per package
		t.Errorf("find_dependency in a %.1f MiB lockfile:\n%s", float64(b.Len())/(1<<20), got)
	}
}
