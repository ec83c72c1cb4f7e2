package extract

import (
	"strings"

	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
)

// The extractor's visitor for Go; the shared walk is in extract.go.

func (x *extractor) visitGo(i int) {
	f := &x.g.f
	switch x.kind(i) {
	case kPackageClause:
		if c := x.firstChild(i); c >= 0 {
			x.pkg = x.text(c)
		}
	case kImportSpec:
		x.goImport(i)
	case kFunctionDeclaration:
		nm := x.child(i, f.name)
		if nm < 0 {
			x.enterAnon(i)
			return
		}
		name := x.text(nm)
		x.enterFunc(i, i, x.child(i, f.body), name, x.goQual(name), graph.Function, false)
	case kMethodDeclaration:
		nm := x.child(i, f.name)
		if nm < 0 {
			x.enterAnon(i)
			return
		}
		name := x.text(nm)
		qual := name
		if recv := x.goReceiverType(x.child(i, f.receiver)); recv != "" {
			qual = recv + "." + name
		}
		x.enterFunc(i, i, x.child(i, f.body), name, x.goQual(qual), graph.Method, false)
	case kFuncLiteral:
		x.enterAnon(i)
	case kIdentifier:
		if x.valueContext(i, kArgumentList, kLiteralElement, kKeyedElement, kExpressionList) {
			x.addRef(i, x.text(i))
		}
	case kParameterDeclaration, kVariadicParameterDeclaration:
		x.goNames(i, f.name)
	case kVarSpec:
		if x.fnScope() != nil {
			x.goNames(i, f.name)
		} else {
			end := int(x.n[i].next)
			for j := i + 1; j < end; j = x.skip(j) {
				if x.n[j].field == f.name && x.kind(j) == kIdentifier {
					x.globals = append(x.globals, x.text(j))
				}
			}
		}
	case kShortVarDeclaration:
		if l := x.child(i, f.left); l >= 0 {
			end := int(x.n[l].next)
			for j := l + 1; j < end; j = x.skip(j) {
				if x.kind(j) == kIdentifier {
					x.addLocal(x.text(j))
				}
			}
		}
	case kCallExpression:
		fn := x.child(i, f.function)
		if fn < 0 {
			return
		}
		switch x.kind(fn) {
		case kIdentifier:
			x.identCall(fn)
		case kSelectorExpression:
			op, fld := x.child(fn, f.operand), x.child(fn, f.field)
			if fld < 0 || op < 0 {
				x.unresolvedCall(fn)
				return
			}
			opText := x.compact(x.raw(op))
			if x.kind(op) == kIdentifier && x.imports[opText] && !x.isVar(opText) {
				x.addCall(fld, x.text(fld), opText, "", graph.Direct)
			} else {
				x.addCall(fld, x.text(fld), opText, "", graph.MethodCall)
			}
		default:
			x.unresolvedCall(fn)
		}
	}
}

func (x *extractor) goQual(name string) string {
	if x.pkg == "" {
		return name
	}
	return x.str([]byte(x.pkg + "." + name))
}

// goNames adds the identifiers in field f of node i as locals.
func (x *extractor) goNames(i int, f uint16) {
	end := int(x.n[i].next)
	for j := i + 1; j < end; j = x.skip(j) {
		if x.n[j].field == f && x.kind(j) == kIdentifier {
			x.addLocal(x.text(j))
		}
	}
}

// goReceiverType returns the type name of a method receiver list: (s *Server[T]) gives Server.
func (x *extractor) goReceiverType(list int) string {
	if list < 0 {
		return ""
	}
	p := x.childOfKind(list, kParameterDeclaration)
	if p < 0 {
		return ""
	}
	t := x.child(p, x.g.f.typ)
	for steps := 0; t >= 0 && steps < 8; steps++ {
		switch x.kind(t) {
		case kPointerType, kGenericType:
			t = x.firstChild(t)
		case kTypeIdentifier:
			return x.text(t)
		default:
			return ""
		}
	}
	return ""
}

func (x *extractor) goImport(i int) {
	if x.imports == nil {
		x.imports = map[string]bool{}
	}
	if nm := x.child(i, x.g.f.name); nm >= 0 {
		if s := x.text(nm); s != "_" && s != "." {
			x.imports[s] = true
		}
		return
	}
	p := x.child(i, x.g.f.path)
	if p < 0 {
		return
	}
	path := strings.Trim(string(x.raw(p)), "\"`")
	x.imports[x.str([]byte(goPackageName(path)))] = true
}

// goPackageName guesses the package name of an import path without a name: its last element,
// skipping a major-version suffix, without "go-" / "-go" and ".vN" decorations.
func goPackageName(path string) string {
	elems := strings.Split(path, "/")
	base := elems[len(elems)-1]
	if len(elems) > 1 && len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		base = elems[len(elems)-2]
	}
	base = strings.TrimPrefix(base, "go-")
	base = strings.TrimSuffix(base, "-go")
	if p := strings.IndexByte(base, '.'); p > 0 {
		base = base[:p]
	}
	return strings.ReplaceAll(base, "-", "_")
}
