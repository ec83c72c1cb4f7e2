package extract

import (
	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
)

// The extractor's visitor for Python; the shared walk is in extract.go.

func (x *extractor) visitPython(i int) {
	f := &x.g.f
	switch x.kind(i) {
	case kClassDefinition:
		x.push(i, scope{name: x.text(x.child(i, f.name)), class: true, def: -1})
	case kFunctionDefinition:
		nm := x.child(i, f.name)
		if nm < 0 {
			x.enterAnon(i)
			return
		}
		name := x.text(nm)
		k := graph.Function
		if x.inClass() {
			k = graph.Method
		}
		x.enterFunc(i, i, x.child(i, f.body), name, x.qual(name), k, false)
	case kLambda:
		x.enterAnon(i)
	case kParameters:
		end := int(x.n[i].next)
		for j := i + 1; j < end; j = x.skip(j) {
			x.addLocal(x.pyParamName(j))
		}
	case kAssignment:
		if l := x.child(i, f.left); l >= 0 && x.kind(l) == kIdentifier {
			x.addLocal(x.text(l))
		}
	case kIdentifier:
		if x.valueContext(i, kArgumentList, kList, kTuple, kReturnStatement, kDecorator) {
			x.addRef(i, x.text(i))
		}
	case kCall:
		fn := x.child(i, f.function)
		if fn < 0 {
			return
		}
		switch x.kind(fn) {
		case kIdentifier:
			x.identCall(fn)
		case kAttribute:
			if a := x.child(fn, f.attribute); a >= 0 {
				x.methodCall(a, x.text(a), x.child(fn, f.object))
				return
			}
			x.unresolvedCall(fn)
		default:
			x.unresolvedCall(fn)
		}
	}
}

func (x *extractor) pyParamName(j int) string {
	switch x.kind(j) {
	case kIdentifier:
		return x.text(j)
	case kDefaultParameter, kTypedDefaultParameter:
		if nm := x.child(j, x.g.f.name); nm >= 0 && x.kind(nm) == kIdentifier {
			return x.text(nm)
		}
	case kTypedParameter, kListSplatPattern, kDictionarySplatPattern:
		if c := x.childOfKind(j, kIdentifier); c >= 0 {
			return x.text(c)
		}
		if c := x.firstChild(j); c >= 0 && (x.kind(c) == kListSplatPattern || x.kind(c) == kDictionarySplatPattern) {
			return x.pyParamName(c)
		}
	}
	return ""
}
