package extract

import (
	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
)

// The extractor's visitor for Java; the shared walk is in extract.go.

func (x *extractor) visitJava(i int) {
	f := &x.g.f
	switch x.kind(i) {
	case kClassDeclaration, kInterfaceDeclaration, kEnumDeclaration, kRecordDeclaration, kAnnotationTypeDeclaration:
		x.push(i, scope{name: x.text(x.child(i, f.name)), class: true, def: -1})
	case kMethodDeclaration, kConstructorDeclaration, kCompactConstructorDeclaration:
		body := x.child(i, f.body)
		nm := x.child(i, f.name)
		if body < 0 || nm < 0 {
			return // abstract or interface method: a declaration, not a definition
		}
		name := x.text(nm)
		x.enterFunc(i, i, body, name, x.qual(name), graph.Method, false)
	case kLambdaExpression:
		x.enterAnon(i)
	case kMethodInvocation:
		nm := x.child(i, f.name)
		if nm < 0 {
			return
		}
		if obj := x.child(i, f.object); obj >= 0 {
			x.methodCall(nm, x.text(nm), obj)
		} else {
			x.addCall(nm, x.text(nm), "", "", graph.Direct)
		}
	case kMethodReference:
		// Shapes::fact, this::run: a reference to the method named last.
		last := -1
		for j := i + 1; j < int(x.n[i].next); j = x.skip(j) {
			if x.kind(j) == kIdentifier {
				last = j
			}
		}
		if last > i+1 || (last >= 0 && x.childOfKind(i, kThis) >= 0) || (last >= 0 && x.childOfKind(i, kSuper) >= 0) {
			x.addRef(last, x.text(last))
		}
	case kObjectCreationExpression:
		t := x.child(i, f.typ)
		for steps := 0; t >= 0 && steps < 16; steps++ {
			switch x.kind(t) {
			case kGenericType:
				t = x.firstChild(t)
				continue
			case kScopedTypeIdentifier:
				// the last type_identifier child
				last := -1
				end := int(x.n[t].next)
				for j := t + 1; j < end; j = x.skip(j) {
					if x.kind(j) == kTypeIdentifier {
						last = j
					}
				}
				t = last
				continue
			}
			break
		}
		if t >= 0 && x.kind(t) == kTypeIdentifier {
			x.addCall(t, x.text(t), "", "", graph.Direct)
		}
		if x.childOfKind(i, kClassBody) >= 0 {
			x.push(i, scope{class: true, def: -1})
		}
	}
}
