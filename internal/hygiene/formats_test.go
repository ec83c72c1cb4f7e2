package hygiene

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// formatNames are the output formats of the one registry (internal/output/formats).
var formatNames = map[string]bool{"text": true, "md": true, "json": true, "csv": true, "html": true, "sarif": true, "jsonl": true, "openvex": true}

// formatList matches prose that lists formats: "text, md or json", "text|md|json", "text or json"
// (not a MIME type such as text/html).
var formatList = regexp.MustCompile(`\b(text|md|json|csv|html|sarif|jsonl|openvex)(\s*(,|\||\bor\b|\band\b)\s*(text|md|json|csv|html|sarif|jsonl|openvex)\b)+`)

// No format list is written by hand outside the registry: a command offers the formats that
// write its document (output.Registry.For), and no code picks a layout by a format's name. The
// test finds, in every non-test file but the registry's: string literals listing formats (help
// texts), lists of two or more format names (a []string or a call's arguments), and switches or
// comparisons on a value named format against a format's name.
func TestNoFormatListByHand(t *testing.T) {
	dir := root(t)
	fset := token.NewFileSet()
	var hits []string
	for _, rel := range goFiles(t, dir) {
		if strings.HasSuffix(rel, "_test.go") || filepath.ToSlash(filepath.Dir(rel)) == "internal/output/formats" {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		hit := func(n ast.Node, what string) {
			hits = append(hits, fset.Position(n.Pos()).String()+": "+what)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if s, ok := literal(x); ok && formatList.MatchString(s) {
					hit(x, "a list of formats in a string: "+formatList.FindString(s))
				}
			case *ast.CompositeLit:
				if countFormats(x.Elts) >= 2 {
					hit(x, "a list of format names")
				}
			case *ast.CallExpr:
				if countFormats(x.Args) >= 2 {
					hit(x, "format names as a call's arguments")
				}
			case *ast.SwitchStmt:
				if namesFormat(x.Tag) {
					for _, c := range x.Body.List {
						if countFormats(c.(*ast.CaseClause).List) > 0 {
							hit(c, "a switch on a format's name")
						}
					}
				}
			case *ast.BinaryExpr:
				if (x.Op == token.EQL || x.Op == token.NEQ) && (namesFormat(x.X) && isFormat(x.Y) || namesFormat(x.Y) && isFormat(x.X)) {
					hit(x, "a comparison with a format's name")
				}
			}
			return true
		})
	}
	for _, h := range hits {
		t.Errorf("%s: take the formats from the registry (output.Registry.For) and the layout from the document (output.Document)", h)
	}
}

func literal(x ast.Expr) (string, bool) {
	l, ok := x.(*ast.BasicLit)
	if !ok || l.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(l.Value)
	return s, err == nil
}

func isFormat(x ast.Expr) bool {
	s, ok := literal(x)
	return ok && formatNames[s]
}

func countFormats(xs []ast.Expr) int {
	n := 0
	for _, x := range xs {
		if isFormat(x) {
			n++
		}
	}
	return n
}

// namesFormat reports whether x is a value named like a format choice (format, o.format, ...).
func namesFormat(x ast.Expr) bool {
	switch v := x.(type) {
	case *ast.Ident:
		return strings.Contains(strings.ToLower(v.Name), "format")
	case *ast.SelectorExpr:
		return strings.Contains(strings.ToLower(v.Sel.Name), "format")
	}
	return false
}
