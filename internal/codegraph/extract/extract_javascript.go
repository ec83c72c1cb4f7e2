package extract

import (
	"bytes"

	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
)

// The extractor's visitor for JavaScript; the shared walk is in extract.go.

func (x *extractor) visitJS(i int) {
	f := &x.g.f
	switch x.kind(i) {
	case kClassDeclaration, kClass:
		x.push(i, scope{name: x.text(x.child(i, f.name)), class: true, def: -1})
	case kFunctionDeclaration, kGeneratorFunctionDeclaration:
		nm := x.child(i, f.name)
		if nm < 0 {
			x.enterAnon(i)
			return
		}
		name := x.text(nm)
		x.enterFunc(i, i, x.child(i, f.body), name, x.qual(name), graph.Function, false)
	case kMethodDefinition:
		nm := x.child(i, f.name)
		if nm < 0 {
			x.enterAnon(i)
			return
		}
		name := x.compact(x.raw(nm))
		k := graph.Function
		if x.inClass() {
			k = graph.Method
		}
		x.enterFunc(i, i, x.child(i, f.body), name, x.qual(name), k, false)
	case kFunctionExpression, kFunction, kArrowFunction, kGeneratorFunction:
		from, name := x.jsFuncName(i)
		if name == "" {
			x.enterAnon(i)
		} else {
			x.enterFunc(from, i, x.child(i, f.body), name, x.qual(name), graph.Function, false)
		}
		if p := x.child(i, x.g.f.parameter); p >= 0 && x.kind(p) == kIdentifier {
			x.addLocal(x.text(p))
		}
	case kIdentifier, kShorthandPropertyIdentifier:
		if x.kind(i) == kShorthandPropertyIdentifier || x.valueContext(i, kArguments, kArray, kReturnStatement) {
			x.addRef(i, x.text(i))
		}
	case kVariableDeclarator:
		// A local variable holds a value, unless it holds a function (a definition of its own).
		if nm, v := x.child(i, f.name), x.child(i, f.value); nm >= 0 && x.kind(nm) == kIdentifier && x.fnScope() != nil {
			if v < 0 || !isJSFunction(x.kind(v)) {
				x.addLocal(x.text(nm))
			}
		}
	case kFormalParameters:
		end := int(x.n[i].next)
		for j := i + 1; j < end; j = x.skip(j) {
			switch x.kind(j) {
			case kIdentifier:
				x.addLocal(x.text(j))
			case kAssignmentPattern:
				if l := x.child(j, f.left); l >= 0 && x.kind(l) == kIdentifier {
					x.addLocal(x.text(l))
				}
			case kRestPattern:
				if c := x.childOfKind(j, kIdentifier); c >= 0 {
					x.addLocal(x.text(c))
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
		case kMemberExpression:
			if p := x.child(fn, f.property); p >= 0 && x.kind(p) != kNone {
				x.methodCall(p, x.text(p), x.child(fn, f.object))
				return
			}
			x.unresolvedCall(fn)
		case kSuper:
		default:
			if string(x.raw(fn)) == "import" {
				return
			}
			x.unresolvedCall(fn)
		}
	case kNewExpression:
		c := x.child(i, f.constructor)
		if c < 0 {
			return
		}
		switch x.kind(c) {
		case kIdentifier:
			x.addCall(c, x.text(c), "", "", graph.Direct)
		case kMemberExpression:
			if p := x.child(c, f.property); p >= 0 {
				x.addCall(p, x.text(p), x.compact(x.raw(x.child(c, f.object))), "", graph.Direct)
			}
		}
	}
}

func isJSFunction(k kind) bool {
	return k == kFunctionExpression || k == kFunction || k == kArrowFunction || k == kGeneratorFunction
}

// jsFuncName names a function expression from its own name or from what it is assigned to:
// const f = () => {}, exports.f = function () {}, { f: function () {} }, class { f = () => {} }.
// from is the node where the definition starts.
func (x *extractor) jsFuncName(i int) (from int, name string) {
	f := &x.g.f
	if nm := x.child(i, f.name); nm >= 0 {
		return i, x.text(nm)
	}
	p := int(x.n[i].parent)
	if p < 0 {
		return i, ""
	}
	switch x.kind(p) {
	case kVariableDeclarator:
		if x.n[i].field == f.value {
			if nm := x.child(p, f.name); nm >= 0 && x.kind(nm) == kIdentifier {
				return p, x.text(nm)
			}
		}
	case kAssignmentExpression:
		if x.n[i].field == f.right {
			l := x.child(p, f.left)
			switch {
			case l < 0:
			case x.kind(l) == kIdentifier:
				return p, x.text(l)
			case x.kind(l) == kMemberExpression:
				if pr := x.child(l, f.property); pr >= 0 {
					return p, x.text(pr)
				}
			}
		}
	case kPair:
		if x.n[i].field == f.value {
			if k := x.child(p, f.key); k >= 0 {
				return p, x.str(bytes.Trim(x.raw(k), "'\"`"))
			}
		}
	case kFieldDefinition:
		if x.n[i].field == f.value {
			if pr := x.child(p, f.property); pr >= 0 {
				return p, x.text(pr)
			}
		}
	}
	return i, ""
}
