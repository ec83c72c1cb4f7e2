package hygiene

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/vulnbench/vulnbench/"

// maxFuncLines is the longest a function may be, counted from its "func" line to its closing
// brace, unless it is a data table.
const maxFuncLines = 120

// maxCLIShare is the most of the module's non-test lines that internal/cli may hold: the CLI
// parses flags and renders, and the work lives in library packages (4.80 % when this was set).
const maxCLIShare = 0.05

// tableAllowList names the long functions, as "FILE FUNC", that are data tables isDataTable cannot
// see as one (a table built from several literals, say), each with its reason. Keep it to tables:
// it is empty while every long table is a single literal (extract's kindNames is one and needs no
// entry).
func tableAllowList() map[string]string {
	return map[string]string{}
}

// moduleRoot is the directory holding go.mod, found from the test's working directory upward.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// sourceFile is one non-test Go file under internal/ or cmd/, parsed.
type sourceFile struct {
	rel   string // slash-separated, relative to the module root
	lines int
	ast   *ast.File
}

// parseSources parses every non-test Go file under internal/ and cmd/, skipping testdata and
// hidden directories.
func parseSources(t *testing.T, root string, fset *token.FileSet) []sourceFile {
	t.Helper()
	var out []sourceFile
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			out = append(out, sourceFile{rel: filepath.ToSlash(rel), lines: strings.Count(string(src), "\n"), ast: f})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) == 0 {
		t.Fatal("no Go files found under internal/ and cmd/")
	}
	return out
}

// topFolder is the top-level folder under internal/ that a slash path relative to the module root
// lies in ("internal/suite" for internal/suite/osv/build.go), or "cmd" for anything under cmd/.
func topFolder(rel string) string {
	parts := strings.Split(rel, "/")
	if parts[0] == "cmd" || len(parts) < 2 {
		return parts[0]
	}
	return parts[0] + "/" + parts[1]
}

// folderGraph is the import graph between top-level folders: from → to → the import lines
// ("FILE:LINE imports PATH") that make the arrow.
type folderGraph map[string]map[string][]string

func buildFolderGraph(fset *token.FileSet, files []sourceFile) folderGraph {
	g := folderGraph{}
	for _, f := range files {
		from := topFolder(f.rel)
		for _, im := range f.ast.Imports {
			ip, err := strconv.Unquote(im.Path.Value)
			if err != nil || !strings.HasPrefix(ip, modulePath) {
				continue
			}
			to := topFolder(strings.TrimPrefix(ip, modulePath))
			if to == from {
				continue
			}
			if g[from] == nil {
				g[from] = map[string][]string{}
			}
			g[from][to] = append(g[from][to], fmt.Sprintf("%s:%d imports %s", f.rel, fset.Position(im.Pos()).Line, ip))
		}
	}
	return g
}

// cycles returns the strongly connected components of more than one folder, each sorted, in
// sorted order (Tarjan's algorithm over sorted nodes, so the result does not depend on map order).
func (g folderGraph) cycles() [][]string {
	var nodes []string
	seen := map[string]bool{}
	for from, m := range g {
		for to := range m {
			for _, n := range []string{from, to} {
				if !seen[n] {
					seen[n] = true
					nodes = append(nodes, n)
				}
			}
		}
	}
	sort.Strings(nodes)
	index, low, onStack := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(n string)
	visit = func(n string) {
		index[n], low[n] = len(index), len(index)
		stack = append(stack, n)
		onStack[n] = true
		var next []string
		for to := range g[n] {
			next = append(next, to)
		}
		sort.Strings(next)
		for _, to := range next {
			if _, ok := index[to]; !ok {
				visit(to)
				low[n] = min(low[n], low[to])
			} else if onStack[to] {
				low[n] = min(low[n], index[to])
			}
		}
		if low[n] != index[n] {
			return
		}
		var comp []string
		for {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[top] = false
			comp = append(comp, top)
			if top == n {
				break
			}
		}
		if len(comp) > 1 {
			sort.Strings(comp)
			out = append(out, comp)
		}
	}
	for _, n := range nodes {
		if _, ok := index[n]; !ok {
			visit(n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// arrowsWithin lists the import lines that make the arrows between the folders of one cycle.
func (g folderGraph) arrowsWithin(comp []string) []string {
	in := map[string]bool{}
	for _, n := range comp {
		in[n] = true
	}
	var out []string
	for _, from := range comp {
		for to, lines := range g[from] {
			if in[to] {
				out = append(out, lines...)
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestNoFolderCycle: no arrow climbs between folders, i.e. the graph of imports between the
// top-level folders under internal/ (a package and everything beneath it) has no cycle.
func TestNoFolderCycle(t *testing.T) {
	fset := token.NewFileSet()
	g := buildFolderGraph(fset, parseSources(t, moduleRoot(t), fset))
	for _, comp := range g.cycles() {
		t.Errorf("folders import each other: %s\n\t%s", strings.Join(comp, " <-> "), strings.Join(g.arrowsWithin(comp), "\n\t"))
	}
}

// TestCLIShare: internal/cli holds under maxCLIShare of the non-test lines of internal/ and cmd/.
func TestCLIShare(t *testing.T) {
	fset := token.NewFileSet()
	cli, total := cliLines(parseSources(t, moduleRoot(t), fset))
	share := float64(cli) / float64(total)
	t.Logf("internal/cli: %d of %d non-test lines (%.2f%%)", cli, total, 100*share)
	if share > maxCLIShare {
		t.Errorf("internal/cli has %d of %d non-test lines (%.2f%%), over %.0f%%: move computation into library packages", cli, total, 100*share, 100*maxCLIShare)
	}
}

// cliLines counts the lines under internal/cli and in all.
func cliLines(files []sourceFile) (cli, total int) {
	for _, f := range files {
		total += f.lines
		if strings.HasPrefix(f.rel, "internal/cli/") {
			cli += f.lines
		}
	}
	return cli, total
}

// isDataTable reports whether a function's body is a single statement that returns a composite
// literal, or assigns one (a map or slice literal) and returns.
func isDataTable(fn *ast.FuncDecl) bool {
	stmts := fn.Body.List
	switch len(stmts) {
	case 1:
		ret, ok := stmts[0].(*ast.ReturnStmt)
		return ok && len(ret.Results) == 1 && isCompositeLit(ret.Results[0])
	case 2:
		as, ok := stmts[0].(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 || !isCompositeLit(as.Rhs[0]) {
			return false
		}
		ret, ok := stmts[1].(*ast.ReturnStmt)
		return ok && len(ret.Results) <= 1
	}
	return false
}

func isCompositeLit(e ast.Expr) bool {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	_, ok := e.(*ast.CompositeLit)
	return ok
}

// longFunction is a function over maxFuncLines that is no data table.
type longFunction struct {
	key   string // "FILE FUNC"
	lines int
}

func longFunctions(fset *token.FileSet, files []sourceFile) []longFunction {
	var out []longFunction
	for _, f := range files {
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n <= maxFuncLines || isDataTable(fn) {
				continue
			}
			out = append(out, longFunction{key: f.rel + " " + fn.Name.Name, lines: n})
		}
	}
	return out
}

// TestNoLongFunction: no function is over maxFuncLines lines unless it is a data table.
func TestNoLongFunction(t *testing.T) {
	fset := token.NewFileSet()
	allowed := tableAllowList()
	found := map[string]bool{}
	for _, lf := range longFunctions(fset, parseSources(t, moduleRoot(t), fset)) {
		found[lf.key] = true
		if _, ok := allowed[lf.key]; ok {
			continue
		}
		t.Errorf("%s is %d lines, over %d: split it", lf.key, lf.lines, maxFuncLines)
	}
	for key := range allowed {
		if !found[key] {
			t.Errorf("allow-list entry %q is no longer a long function: remove it", key)
		}
	}
}

// writeTree writes files (slash-separated paths under root, and their contents).
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStructureChecksCanFail runs the three checks on a small tree they must reject.
func TestStructureChecksCanFail(t *testing.T) {
	root := t.TempDir()
	long := "package b\n\nfunc Long() int {\n\tx := 0\n" + strings.Repeat("\tx++\n", maxFuncLines) + "\treturn x\n}\n\n" +
		"func Table() map[string]int {\n\treturn map[string]int{\n" + strings.Repeat("\t\t\"k\": 1,\n", maxFuncLines) + "\t}\n}\n"
	files := map[string]string{
		"go.mod":                    "module github.com/vulnbench/vulnbench\n",
		"internal/a/a.go":           "package a\n\nimport _ \"github.com/vulnbench/vulnbench/internal/b/deep\"\n",
		"internal/b/deep/d.go":      "package deep\n",
		"internal/b/b.go":           "package b\n\nimport _ \"github.com/vulnbench/vulnbench/internal/a\"\n",
		"internal/b/long.go":        long,
		"internal/b/b_test.go":      "package b\n\nimport _ \"github.com/vulnbench/vulnbench/internal/c\"\n",
		"internal/c/c.go":           "package c\n",
		"internal/cli/cli.go":       "package cli\n" + strings.Repeat("\n", 20),
		"internal/a/testdata/x.go":  "package x\n\nimport _ \"github.com/vulnbench/vulnbench/internal/c\"\n",
		"cmd/vulnbench/main.go":     "package main\n",
		"internal/c/.hidden/bad.go": "not go",
	}
	writeTree(t, root, files)
	fset := token.NewFileSet()
	srcs := parseSources(t, root, fset)
	g := buildFolderGraph(fset, srcs)
	comps := g.cycles()
	if len(comps) != 1 || strings.Join(comps[0], ",") != "internal/a,internal/b" {
		t.Fatalf("cycles = %v, want [[internal/a internal/b]]", comps)
	}
	wantArrows := "internal/a/a.go:3 imports github.com/vulnbench/vulnbench/internal/b/deep|internal/b/b.go:3 imports github.com/vulnbench/vulnbench/internal/a"
	if got := strings.Join(g.arrowsWithin(comps[0]), "|"); got != wantArrows {
		t.Errorf("arrows = %s, want %s", got, wantArrows)
	}
	lfs := longFunctions(fset, srcs)
	if len(lfs) != 1 || lfs[0].key != "internal/b/long.go Long" || lfs[0].lines != maxFuncLines+4 {
		t.Errorf("long functions = %v, want [{internal/b/long.go Long %d}]", lfs, maxFuncLines+4)
	}
	if cli, total := cliLines(srcs); float64(cli)/float64(total) <= maxCLIShare {
		t.Errorf("cli share %d/%d should be over the limit in this tree", cli, total)
	}
}
