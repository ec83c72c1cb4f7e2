package hygiene

import (
	"flag"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the structure drawn in docs/architecture.md")

// floors puts each folder of g on a floor: 0 for a folder that imports no other, else one
// above the highest folder it imports. Every arrow then goes down; a cycle has no floor (the
// folders on it are left out: TestNoFolderCycle names them).
func (g folderGraph) floors() map[string]int {
	floor := map[string]int{}
	nodes := map[string]bool{}
	for from, m := range g {
		nodes[from] = true
		for to := range m {
			nodes[to] = true
		}
	}
	var visit func(n string, path map[string]bool) (int, bool)
	visit = func(n string, path map[string]bool) (int, bool) {
		if f, ok := floor[n]; ok {
			return f, true
		}
		if path[n] {
			return 0, false
		}
		path[n] = true
		defer delete(path, n)
		f := 0
		for to := range g[n] {
			t, ok := visit(to, path)
			if !ok {
				return 0, false
			}
			f = max(f, t+1)
		}
		floor[n] = f
		return f, true
	}
	for n := range nodes {
		visit(n, map[string]bool{})
	}
	return floor
}

// drawing is the floors, top first, one line each: "floor N: folder folder ...".
func drawing(floor map[string]int) string {
	byFloor := map[int][]string{}
	top := 0
	for n, f := range floor {
		byFloor[f] = append(byFloor[f], strings.TrimPrefix(n, "internal/"))
		top = max(top, f)
	}
	var b strings.Builder
	for f := top; f >= 0; f-- {
		names := byFloor[f]
		sort.Strings(names)
		fmt.Fprintf(&b, "%2d  %s\n", f, strings.Join(names, "  "))
	}
	return b.String()
}

const (
	drawnBegin = "<!-- floors: drawn from the imports by internal/hygiene (go test ./internal/hygiene -run TestStructureDrawn -update) -->\n```\n"
	drawnEnd   = "```\n<!-- /floors -->"
)

// TestStructureDrawn: docs/architecture.md draws the folders under internal/ on the floors their
// imports put them on (each imports only folders below it), and the drawing is the code's.
func TestStructureDrawn(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	files := parseSources(t, root, fset)
	g := buildFolderGraph(fset, files)
	floor := g.floors()
	for _, f := range files { // a folder no arrow reaches nor leaves (test support) is on the ground floor
		if n := topFolder(f.rel); g[n] == nil {
			if _, ok := floor[n]; !ok {
				floor[n] = 0
			}
		}
	}
	want := drawing(floor)
	doc := filepath.Join(root, "docs", "architecture.md")
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, drawnBegin)
	j := strings.Index(text, drawnEnd)
	if i < 0 || j < i {
		t.Fatalf("docs/architecture.md has no drawing of the floors between %q and %q", drawnBegin, drawnEnd)
	}
	got := text[i+len(drawnBegin) : j]
	if *update {
		text = text[:i+len(drawnBegin)] + want + text[j:]
		if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("docs/architecture.md draws another structure than the imports make (-imports +drawn; go test ./internal/hygiene -run TestStructureDrawn -update):\n%s", d)
	}
}

// TestFloorsCanFail: a small graph's floors, and a cycle that has none.
func TestFloorsCanFail(t *testing.T) {
	g := folderGraph{"internal/a": {"internal/b": nil, "internal/c": nil}, "internal/b": {"internal/c": nil},
		"internal/x": {"internal/y": nil}, "internal/y": {"internal/x": nil}}
	if got, want := drawing(g.floors()), " 2  a\n 1  b\n 0  c\n"; got != want {
		t.Errorf("drawing:\n%s\nwant:\n%s", got, want)
	}
}
