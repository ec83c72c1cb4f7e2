package hygiene

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// root is the module's directory: two levels above this package.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", dir, err)
	}
	return dir
}

// goFiles are the module's Go files (testdata and hidden directories left out), relative to
// root.
func goFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != dir && (name == "testdata" || strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// goCmd runs the go command in dir and returns its combined output.
func goCmd(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly"}, env...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Every Go file is as gofmt writes it.
func TestGofmt(t *testing.T) {
	dir := root(t)
	for _, f := range goFiles(t, dir) {
		src, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		out, err := format.Source(src)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if !bytes.Equal(src, out) {
			t.Errorf("%s: not gofmt'ed (run gofmt -w %s)", f, f)
		}
	}
}

// go vet finds nothing.
func TestVet(t *testing.T) {
	if testing.Short() {
		t.Skip("go vet ./... compiles the whole module")
	}
	if out, err := goCmd(t, root(t), nil, "vet", "./..."); err != nil {
		t.Errorf("go vet ./...: %v\n%s", err, out)
	}
}

// go mod tidy would change nothing in go.mod and go.sum (-diff writes nothing: it prints what
// it would change).
func TestModTidy(t *testing.T) {
	if out, err := goCmd(t, root(t), []string{"GOFLAGS="}, "mod", "tidy", "-diff"); err != nil {
		t.Errorf("go mod tidy would change go.mod or go.sum (run go mod tidy):\n%s%v", out, err)
	}
}

// denied are modules no package may link, and why.
func denied() map[string]string {
	return map[string]string{
		"github.com/stretchr/testify":       "tests compare with go-cmp",
		"github.com/pkg/errors":             "errors and fmt.Errorf's %w wrap errors",
		"github.com/sirupsen/logrus":        "library code does not log",
		"go.uber.org/zap":                   "library code does not log",
		"github.com/mattn/go-sqlite3":       "cgo: the store uses modernc.org/sqlite",
		"gopkg.in/yaml.v2":                  "one YAML library: go.yaml.in/yaml/v3",
		"gopkg.in/yaml.v3":                  "one YAML library: go.yaml.in/yaml/v3",
		"github.com/golang/protobuf":        "deprecated: google.golang.org/protobuf",
		"github.com/spf13/viper":            "configuration is flags and typed configs",
		"github.com/google/uuid":            "run ids are our own",
		"github.com/davecgh/go-spew":        "tests compare with go-cmp",
		"github.com/onsi/ginkgo":            "tests are plain go test",
		"github.com/onsi/gomega":            "tests are plain go test",
		"github.com/smartystreets/goconvey": "tests are plain go test",
	}
}

// No package of the module (tests included) imports a denied module. Only our own imports
// count: a dependency's dependencies are its business.
func TestDenyList(t *testing.T) {
	out, err := goCmd(t, root(t), nil, "list", "-f", `{{join .Imports "\n"}}
{{join .TestImports "\n"}}
{{join .XTestImports "\n"}}`, "./...")
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for _, imp := range strings.Fields(out) {
		for m, why := range denied() {
			if (imp == m || strings.HasPrefix(imp, m+"/")) && !seen[imp] {
				seen[imp] = true
				t.Errorf("%s is imported: %s", imp, why)
			}
		}
	}
}

// Scoring and presenting build without cgo: tree-sitter's cgo stays in internal/codegraph,
// behind codegraph/query.Graph, and the tree-sitter syntax checkers and the fix checks (which
// link them and the scanners) are in suite/appsec/parsers and grade/fixcheck, which the CLI
// injects. (internal/subject's TestBuildsWithoutCgo holds subject and engine to the same.)
func TestNoCgo(t *testing.T) {
	pkgs := []string{"./internal/score/...", "./internal/report/...", "./internal/output/...", "./internal/web/..."}
	if out, err := goCmd(t, root(t), []string{"CGO_ENABLED=0"}, append([]string{"build"}, pkgs...)...); err != nil {
		t.Errorf("CGO_ENABLED=0 go build %s: %v\n%s", strings.Join(pkgs, " "), err, out)
	}
}

// TestNoPackageState: no package-level var but
//   - errors (errors.New, fmt.Errorf),
//   - compiled regular expressions and templates (regexp.MustCompile, template.Must),
//   - tables: composite literals with at least one element,
//   - embedded data (//go:embed),
//   - interface checks (var _ I = ...);
//
// anything else (a counter, a cache, a mutex, a flag, an empty map to fill) is state that a
// function should own. Test files are left out (flags, test hooks), and so are the few vars of
// stateExceptions, each with its reason.
func TestNoPackageState(t *testing.T) {
	except := stateExceptions()
	dir := root(t)
	fset := token.NewFileSet()
	for _, f := range goFiles(t, dir) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(dir, f), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				if _, ok := except[filepath.ToSlash(f)+":"+vs.Names[0].Name]; ok {
					continue
				}
				if why := stateful(g, vs); why != "" {
					p := fset.Position(vs.Pos())
					t.Errorf("%s:%d: package-level var %s: %s", f, p.Line, vs.Names[0].Name, why)
				}
			}
		}
	}
}

// stateExceptions are the package-level vars that are state on purpose (FILE:NAME), and why.
func stateExceptions() map[string]string {
	pg := "a test binary's one Postgres cluster, started on first use and shared by its tests"
	return map[string]string{
		"internal/store/pgtest/pgtest.go:mu": pg, "internal/store/pgtest/pgtest.go:running": pg,
		"internal/store/pgtest/pgtest.go:startErr": pg, "internal/store/pgtest/pgtest.go:seq": pg,
	}
}

// stateful says why a package-level var is state, or "" when it is allowed.
func stateful(g *ast.GenDecl, vs *ast.ValueSpec) string {
	if len(vs.Names) == 1 && vs.Names[0].Name == "_" {
		return ""
	}
	for _, doc := range []*ast.CommentGroup{vs.Doc, g.Doc} {
		if doc != nil && strings.Contains(doc.Text()+rawComments(doc), "go:embed") {
			return ""
		}
	}
	if len(vs.Values) == 0 {
		return "declared without a value: state to be set later"
	}
	for _, v := range vs.Values {
		if why := statefulValue(v); why != "" {
			return why
		}
	}
	return ""
}

func rawComments(g *ast.CommentGroup) string {
	var b strings.Builder
	for _, c := range g.List {
		b.WriteString(c.Text)
	}
	return b.String()
}

// allowedCalls are the calls whose results are constants in all but name.
func allowedCalls() map[string]bool {
	return map[string]bool{
		"errors.New": true, "fmt.Errorf": true,
		"regexp.MustCompile": true, "regexp.MustCompilePOSIX": true,
		"template.Must": true,
	}
}

func statefulValue(v ast.Expr) string {
	switch x := v.(type) {
	case *ast.CompositeLit:
		if len(x.Elts) == 0 {
			return "an empty composite literal is something to fill: state"
		}
		return ""
	case *ast.CallExpr:
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && allowedCalls()[id.Name+"."+sel.Sel.Name] {
				return ""
			}
		}
		return "set by a call that is not errors.New, fmt.Errorf, regexp.MustCompile or template.Must"
	case *ast.SelectorExpr: // another package's sentinel error under this package's name
		if strings.HasPrefix(x.Sel.Name, "Err") {
			return ""
		}
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			return statefulValue(x.X)
		}
	case *ast.BasicLit:
		return "a basic value: make it a const, or a function's own variable"
	}
	return "not an error, table, compiled regexp or embedded data (" + fmt.Sprintf("%T", v) + ")"
}
