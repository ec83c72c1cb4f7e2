package query_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/gittest"
)

// The index the code graph builds is what subjects are handed, and it answers through the
// interface as it does directly.
func TestIndexAnswersAsAGraph(t *testing.T) {
	dir := t.TempDir()
	gittest.WriteFiles(t, dir, map[string]string{"main.c": "static int g(int x) { return x; }\nint f(int y) { return g(y) + g(1); }\n"})
	ix, err := codegraph.Open(context.Background(), dir, codegraph.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var g query.Graph = ix
	var got []string
	for _, s := range g.Callers("g", query.Near{File: "main.c"}) {
		got = append(got, s.Caller)
	}
	if d := cmp.Diff([]string{"f", "f"}, got); d != "" {
		t.Errorf("callers of g (-want +got):\n%s", d)
	}
	defs, err := g.Definition("f", query.Near{})
	if err != nil || len(defs) != 1 || defs[0].StartLine != 2 {
		t.Errorf("definition of f: %+v, %v", defs, err)
	}
	if co := g.Callees("f", query.Near{}); len(co) != 1 || len(co[0].Calls) != 2 || co[0].Calls[0].Kind != query.Direct {
		t.Errorf("callees of f: %+v", co)
	}
}
