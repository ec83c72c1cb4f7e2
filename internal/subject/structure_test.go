package subject_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/vulnbench/vulnbench/"

// kits are the packages under internal/subject that kinds share; every other one but the
// registry is a kind's own.
var kits = []string{"internal/subject", "internal/subject/modelkit", "internal/subject/jitctx", "internal/subject/builtin"}

// goFile is one non-test Go file of the module, parsed.
type goFile struct {
	pkg  string // its directory, relative to the module root
	path string
	ast  *ast.File
}

func parseTree(t *testing.T, root string, dirs ...string) []goFile {
	t.Helper()
	var out []goFile
	fset := token.NewFileSet()
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			out = append(out, goFile{pkg: filepath.ToSlash(rel), path: p, ast: f})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// The subjects' structure: no kind imports another kind (what they share is in the kits), no
// kind asserts its config from an interface (subject.Kind does, once), every subject flag is
// declared once, and agents' tools are declared in internal/agent/tools.
func TestStructure(t *testing.T) {
	files := parseTree(t, "../..", "internal/subject", "internal/agent")
	flags := map[string][]string{}
	for _, f := range files {
		kind := strings.HasPrefix(f.pkg, "internal/subject/") && !slices.Contains(kits, f.pkg)
		for _, im := range f.ast.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			dep := strings.TrimPrefix(p, module)
			if kind && strings.HasPrefix(dep, "internal/subject/") && !slices.Contains(kits, dep) {
				t.Errorf("%s imports %s: a kind imports another kind (share it through a kit: %v)", f.path, dep, kits)
			}
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeAssertExpr:
				if name := typeName(n.Type); kind && strings.HasSuffix(name, "Config") {
					t.Errorf("%s asserts .(%s): a kind's config is typed (subject.Kind[C, S])", f.path, name)
				}
			case *ast.CompositeLit:
				switch typeName(n.Type) {
				case "subject.Flag", "Flag":
					if name := field(n, "Name"); name != "" {
						flags[name] = append(flags[name], f.path)
					}
				case "[]subject.Flag", "[]Flag": // elements written without their type
					for _, el := range n.Elts {
						if c, ok := el.(*ast.CompositeLit); ok && c.Type == nil {
							if name := field(c, "Name"); name != "" {
								flags[name] = append(flags[name], f.path)
							}
						}
					}
				case "agent.Tool":
					if f.pkg != "internal/agent/tools" {
						t.Errorf("%s declares an agent tool: agents' tools live in internal/agent/tools", f.path)
					}
				}
			}
			return true
		})
	}
	for name, at := range flags {
		if len(at) > 1 {
			t.Errorf("flag --%s is declared %d times (%v): declare it once and share it", name, len(at), at)
		}
	}
	if len(flags) < 15 {
		t.Errorf("only %d subject flags found: the test no longer sees their declarations", len(flags))
	}
}

func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return typeName(e.X) + "." + e.Sel.Name
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.ArrayType:
		return "[]" + typeName(e.Elt)
	}
	return ""
}

// field is the string literal given to a composite literal's field name.
func field(c *ast.CompositeLit, name string) string {
	for _, el := range c.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == name {
			if lit, ok := kv.Value.(*ast.BasicLit); ok {
				s, _ := strconv.Unquote(lit.Value)
				return s
			}
		}
	}
	return ""
}
