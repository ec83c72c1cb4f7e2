package hygiene

import (
	"go/ast"
	"go/token"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// flagReadAllowList names the functions, as "FILE FUNC", that may read subject flags by name
// outside the kinds, each with its reason.
func flagReadAllowList() map[string]string {
	return map[string]string{
		"internal/manifest/manifest.go legacySettings": "manifests written before settings were recorded: their settings from the model flags every model kind shared then",
		"internal/subjecttest/subjecttest.go RunUnit":  "test support: it gives a kind the flags a user would (--model, --base-url at the fake server) when the test leaves them out",
	}
}

// subjectFlagNames are the names of the flags subject kinds declare: every subject.Flag literal
// under internal/subject (Flag{Name: ...}, and []subject.Flag{{Name: ...}} elements).
func subjectFlagNames(files []sourceFile) map[string]bool {
	names := map[string]bool{}
	nameOf := func(lit *ast.CompositeLit) {
		for _, el := range lit.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Name" {
				if v, ok := kv.Value.(*ast.BasicLit); ok && v.Kind == token.STRING {
					if s, err := strconv.Unquote(v.Value); err == nil {
						names[s] = true
					}
				}
			}
		}
	}
	for _, f := range files {
		if !strings.HasPrefix(f.rel, "internal/subject/") {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			switch exprString(lit.Type) {
			case "subject.Flag", "Flag":
				nameOf(lit)
			case "[]subject.Flag", "[]Flag":
				for _, el := range lit.Elts {
					if inner, ok := el.(*ast.CompositeLit); ok && inner.Type == nil {
						nameOf(inner)
					}
				}
			}
			return true
		})
	}
	return names
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.ArrayType:
		return "[]" + exprString(e.Elt)
	}
	return ""
}

// readsByName are the methods that read a flag by its name (subject.Values, pflag.FlagSet).
var readsByName = map[string]bool{"String": true, "Int": true, "Int64": true, "Float": true, "Bool": true, "Duration": true,
	"Lookup": true, "Changed": true, "GetString": true, "GetInt": true, "GetInt64": true, "GetFloat64": true, "GetBool": true, "GetDuration": true}

// flagMaps are the names of the maps that hold flag values by name: a manifest's Flags and
// FlagValues(), and the values the CLI and the runner hand a kind (live, stored, values, given).
// (Other maps keyed by a word that is also a flag's name, a JSON body's "model", are not flags.)
var flagMaps = map[string]bool{"Flags": true, "FlagValues": true, "flags": true, "live": true, "stored": true, "values": true,
	"vals": true, "given": true}

// flagMap says whether e is one of flagMaps: an identifier, a field or a call of that name.
func flagMap(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return flagMaps[e.Name]
	case *ast.SelectorExpr:
		return flagMaps[e.Sel.Name]
	case *ast.CallExpr:
		return flagMap(e.Fun)
	}
	return false
}

// flagReads lists, outside internal/subject, every place a subject flag is read by name: a flag
// map (flagMaps) indexed with its name as a literal, or a method of readsByName called with it.
// Each is "FILE:LINE FUNC reads --NAME".
func flagReads(fset *token.FileSet, files []sourceFile, names map[string]bool) []string {
	var out []string
	for _, f := range files {
		if strings.HasPrefix(f.rel, "internal/subject/") {
			continue
		}
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			report := func(lit *ast.BasicLit) {
				s, err := strconv.Unquote(lit.Value)
				if err != nil || !names[s] {
					return
				}
				p := fset.Position(lit.Pos())
				out = append(out, f.rel+":"+strconv.Itoa(p.Line)+" "+fn.Name.Name+" reads --"+s)
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.IndexExpr:
					if lit, ok := n.Index.(*ast.BasicLit); ok && lit.Kind == token.STRING && flagMap(n.X) {
						report(lit)
					}
				case *ast.CallExpr:
					sel, ok := n.Fun.(*ast.SelectorExpr)
					if !ok || !readsByName[sel.Sel.Name] || len(n.Args) == 0 {
						return true
					}
					if lit, ok := n.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						report(lit)
					}
				}
				return true
			})
		}
	}
	sort.Strings(out)
	return out
}

// TestNoFlagReadByName: no code outside the subject kinds reads a subject flag by its name (a
// manifest's flags["rpm"], the CLI's live["batch"]): readers take the typed settings the kind
// declares (subject.Kind's Settings, recorded in the manifest), so a flag renamed or a kind
// without it cannot be read wrong silently.
func TestNoFlagReadByName(t *testing.T) {
	fset := token.NewFileSet()
	files := parseSources(t, moduleRoot(t), fset)
	names := subjectFlagNames(files)
	if len(names) < 20 || !names["model"] || !names["rpm"] || !names["batch"] {
		t.Fatalf("found %d subject flags (%v): the flag literals under internal/subject were not read", len(names), names)
	}
	allowed := flagReadAllowList()
	seen := map[string]bool{}
	for _, r := range flagReads(fset, files, names) {
		file, rest, _ := strings.Cut(r, ":")
		_, fn, _ := strings.Cut(rest, " ")
		fn, _, _ = strings.Cut(fn, " ")
		key := file + " " + fn
		if _, ok := allowed[key]; ok {
			seen[key] = true
			continue
		}
		t.Errorf("%s by name: read the typed settings the kind declares (manifest.Settings, Run.Settings)", r)
	}
	for key := range allowed {
		if !seen[key] {
			t.Errorf("allow-list entry %q reads no flag by name any more: remove it", key)
		}
	}
}

// TestNoFlagReadByNameCanFail runs the check on a small tree it must reject.
func TestNoFlagReadByNameCanFail(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                         "module github.com/vulnbench/vulnbench\n",
		"internal/subject/k/k.go":        "package k\n\nvar fs = []subject.Flag{{Name: \"rpm\"}, {Name: \"batch\"}}\n\nfunc f(v V) int { return v.Int(\"rpm\") }\n",
		"internal/subject/s.go":          "package subject\n\nfunc F() Flag { return Flag{Name: \"model\"} }\n",
		"internal/board/b.go":            "package board\n\nfunc row(m *M, body map[string]any) string { return m.Flags[\"model\"] + m.Flags[\"other\"] + body[\"model\"] }\n",
		"internal/cli/c.go":              "package cli\n\nfunc rate(fs F) bool { return fs.Changed(\"rpm\") || fs.Changed(\"db\") }\n",
		"internal/cli/c_test.go":         "package cli\n\nfunc g(m map[string]string) string { return m[\"model\"] }\n",
		"internal/report/testdata/x.go":  "package x\n\nfunc g(m map[string]string) string { return m[\"model\"] }\n",
		"internal/subjecttest/fake/f.go": "package fake\n",
		"cmd/vulnbench/main.go":          "package main\n\nfunc main() { println(live[\"batch\"]) }\n",
	}
	writeTree(t, root, files)
	fset := token.NewFileSet()
	srcs := parseSources(t, root, fset)
	got := strings.Join(flagReads(fset, srcs, subjectFlagNames(srcs)), "|")
	want := "cmd/vulnbench/main.go:3 main reads --batch|internal/board/b.go:3 row reads --model|internal/cli/c.go:3 rate reads --rpm"
	if got != want {
		t.Errorf("flag reads = %s, want %s", got, want)
	}
}
