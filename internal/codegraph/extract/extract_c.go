package extract

import (
	"bytes"
	"strings"

	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
	"github.com/vulnbench/vulnbench/internal/codegraph/prep"
)

// The extractor's visitor for C and C++; the shared walk is in extract.go.

// declInfo describes what a C declarator declares.
type declInfo struct {
	name  int  // the name node, -1 when none
	fn    bool // a function (the name's declarator is a function declarator)
	fnPtr bool // a pointer to a function (a function declarator encloses a pointer to the name)
}

// cDeclarator follows a declarator chain down to the declared name.
func (x *extractor) cDeclarator(d int) declInfo {
	last := kNone
	sawFunc := false
	f := x.g.f.declarator
	for steps := 0; d >= 0 && steps < 64; steps++ {
		switch k := x.kind(d); k {
		case kIdentifier, kFieldIdentifier, kQualifiedIdentifier, kDestructorName, kOperatorName, kTemplateFunction, kTypeIdentifier:
			return declInfo{name: d, fn: last == kFunctionDeclarator, fnPtr: sawFunc && last != kFunctionDeclarator}
		case kInitDeclarator:
			d = x.child(d, f)
		case kParenthesizedDeclarator:
			d = x.firstChild(d)
		case kFunctionDeclarator, kPointerDeclarator, kArrayDeclarator, kAttributedDeclarator, kReferenceDeclarator:
			if k == kFunctionDeclarator {
				if alt := x.cMacroPrefixedName(d); alt >= 0 {
					return declInfo{name: alt, fn: true}
				}
			}
			last = k
			if k == kFunctionDeclarator {
				sawFunc = true
			}
			nx := x.child(d, f)
			if nx < 0 {
				nx = x.firstChild(d)
			}
			d = nx
		default:
			return declInfo{name: -1}
		}
	}
	return declInfo{name: -1}
}

// cMacroPrefixedName recovers the name of a function whose declarator starts with an attribute
// macro the parser cannot know. "T attr_macro name (params)" parses as function_declarator(
// identifier attr_macro, ERROR(identifier name), params), and "T __attribute__ ((x)) name (params)"
// as function_declarator(identifier __attribute__, params ((x)), call_expression(name, params)).
// It returns the name node, or -1 when the declarator is not one of these.
func (x *extractor) cMacroPrefixedName(fd int) int {
	f := &x.g.f
	decl := x.child(fd, f.declarator)
	if decl < 0 || x.kind(decl) != kIdentifier {
		return -1
	}
	end := int(x.n[fd].next)
	seenParams := false
	for j := fd + 1; j < end; j = x.skip(j) {
		switch {
		case x.n[j].field == f.parameters:
			seenParams = true
		case x.kind(j) == kError && !seenParams && j > decl:
			last := -1
			for c := j + 1; c < int(x.n[j].next); c = x.skip(c) {
				if x.kind(c) == kIdentifier {
					last = c
				}
			}
			if last >= 0 {
				return last
			}
		case x.kind(j) == kCallExpression && seenParams:
			if a := string(x.raw(decl)); a == "__attribute__" || a == "__attribute" || a == "__declspec" {
				if fn := x.child(j, f.function); fn >= 0 && x.kind(fn) == kIdentifier {
					return fn
				}
			}
		}
	}
	return -1
}

// cName returns the short name and the qualifier ("" if none) of a declarator's name node.
func (x *extractor) cName(i int) (name, qualifier string) {
	switch x.kind(i) {
	case kQualifiedIdentifier:
		full := x.compactNoSpace(x.raw(i))
		// The name is the innermost non-qualified "name" field.
		n := i
		for steps := 0; steps < 32 && x.kind(n) == kQualifiedIdentifier; steps++ {
			nx := x.child(n, x.g.f.name)
			if nx < 0 {
				break
			}
			n = nx
		}
		short := x.shortName(n)
		q := strings.TrimSuffix(full, x.compactNoSpace(x.raw(n)))
		q = strings.TrimSuffix(q, "::")
		return short, x.str([]byte(q))
	default:
		return x.shortName(i), ""
	}
}

// shortName is the name of a name node: template arguments dropped, spaces removed.
func (x *extractor) shortName(i int) string {
	if x.kind(i) == kTemplateFunction || x.kind(i) == kTemplateType {
		if nx := x.child(i, x.g.f.name); nx >= 0 {
			i = nx
		}
	}
	if x.kind(i) == kOperatorName || x.kind(i) == kDestructorName {
		return x.compactNoSpace(x.raw(i))
	}
	return x.text(i)
}

// compactNoSpace returns b without white space, interned; names longer than 4*maxTextLen bytes
// are cut.
func (x *extractor) compactNoSpace(b []byte) string {
	if len(b) > 4*maxTextLen {
		b = b[:4*maxTextLen]
	}
	if bytes.IndexAny(b, " \t\r\n") < 0 {
		return x.str(b)
	}
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			out = append(out, c)
		}
	}
	return x.str(out)
}

func (x *extractor) visitC(i int) {
	f := &x.g.f
	switch x.kind(i) {
	case kFunctionDefinition:
		x.cFuncDef(i)
	case kPreprocFunctionDef:
		if nm := x.child(i, f.name); nm >= 0 {
			sigEnd := x.child(i, f.value)
			x.addDef(i, i, sigEnd, x.text(nm), "", graph.Macro, false)
		}
	case kCallExpression:
		x.cCall(i)
	case kDeclaration:
		x.cDeclaration(i)
	case kParameterDeclaration, kOptionalParameterDeclaration, kVariadicParameterDeclaration:
		if x.fnScope() != nil {
			if d := x.child(i, f.declarator); d >= 0 {
				if info := x.cDeclarator(d); info.name >= 0 {
					x.addLocal(x.text(info.name))
				}
			}
		}
	case kIdentifier:
		p := int(x.n[i].parent)
		if p < 0 {
			return
		}
		pk := x.kind(p)
		if pk == kParameterList {
			// K&R parameter lists name their parameters with bare identifiers.
			if x.fnScope() != nil {
				x.addLocal(x.text(i))
			}
			return
		}
		if x.cRefContext(i, p, pk) {
			x.addRef(i, x.text(i))
		}
	case kError:
		if x.fnScope() == nil {
			x.cRecoverDefs(i)
		}
	case kClassSpecifier, kStructSpecifier, kUnionSpecifier:
		if x.g.lang == lang.CPP && x.child(i, f.body) >= 0 {
			x.push(i, scope{name: x.text(x.child(i, f.name)), class: true, def: -1})
		}
	case kNamespaceDefinition:
		name := x.compactNoSpace(x.raw(x.child(i, f.name)))
		if name != "" {
			if x.namespaces == nil {
				x.namespaces = map[string]bool{}
			}
			x.namespaces[name] = true
			x.wide = true
		}
		x.push(i, scope{name: name, ns: true, def: -1})
	case kLambdaExpression:
		x.enterAnon(i)
	}
}

// cRefContext reports whether identifier i (child of p, of kind pk) is a value: an operand, an
// argument, an initializer. Inside functions that is any identifier not naming a declaration, a
// callee, a macro or a label; at file scope only initializers count (ops tables).
func (x *extractor) cRefContext(i, p int, pk kind) bool {
	f := &x.g.f
	fld := x.n[i].field
	if fld != 0 && (fld == f.declarator || fld == f.function || fld == f.name || fld == f.parameters) {
		return false
	}
	switch pk {
	case kParenthesizedDeclarator, kPointerDeclarator, kArrayDeclarator, kFunctionDeclarator, kInitDeclarator,
		kPreprocParams, kPreprocDefined, kAttributeSpecifier, kParameterDeclaration, kError:
		if pk != kInitDeclarator || fld != f.value {
			return false
		}
	case kArgumentList:
		if gp := int(x.n[p].parent); gp >= 0 && x.kind(gp) == kAttributeSpecifier {
			return false
		}
	}
	if x.fnScope() != nil {
		return true
	}
	return pk == kInitializerList || (pk == kInitializerPair && fld == f.value) || (pk == kInitDeclarator && fld == f.value)
}

// cRecoverDefs finds function definitions broken into pieces inside an ERROR node at file
// scope (braces unbalanced across preprocessor branches do that): a declarator that declares a
// function, followed by statements rather than a semicolon. Each runs to the next such header,
// the next whole definition, or the end of the ERROR node.
func (x *extractor) cRecoverDefs(e int) {
	end := int(x.n[e].next)
	var kids []int
	for j := e + 1; j < end; j = x.skip(j) {
		kids = append(kids, j)
	}
	var headers []int // positions in kids
	for k, j := range kids {
		switch x.kind(j) {
		case kFunctionDeclarator, kPointerDeclarator:
			if info := x.cDeclarator(j); info.name >= 0 && info.fn && k+1 < len(kids) {
				headers = append(headers, k)
			}
		case kFunctionDefinition:
			headers = append(headers, -k-1) // a boundary, not a header
		}
	}
	for h, k := range headers {
		if k < 0 {
			continue
		}
		stop := len(kids)
		if h+1 < len(headers) {
			stop = headers[h+1]
			if stop < 0 {
				stop = -stop - 1
			}
		}
		first := k // pass back over the return type and storage class
		for first > 0 {
			j := kids[first-1]
			// An ERROR of one line is an export or attribute macro in the return type (int EXPORT f).
			if k := x.kind(j); (k != kStorageClassSpecifier && k != kNone && k != kTypeIdentifier && (k != kError || x.n[j].startRow != x.n[j].endRow)) ||
				x.n[j].endRow+1 < x.n[kids[first]].startRow {
				break
			}
			first--
		}
		if h > 0 && headers[h-1] >= 0 && first <= headers[h-1] {
			first = k
		}
		body := -1
		if k+1 < stop {
			body = kids[k+1]
		}
		last := kids[stop-1]
		x.pending = append(x.pending, pendingDef{start: kids[first], last: last, end: int(x.n[last].next),
			name: x.cDeclarator(kids[k]).name, body: body})
	}
}

// recoverDef opens the scope of a definition recovered by cRecoverDefs.
func (x *extractor) recoverDef(p pendingDef) {
	name, q := x.cName(p.name)
	if name == "" || x.n[p.name].flags&nodeMissing != 0 {
		return
	}
	qual := name
	if q != "" {
		qual = q + "::" + name
	}
	def := x.addDef(p.start, p.last, p.body, name, qual, graph.Function, false)
	x.pushScope(scope{end: uint32(p.end), name: name, fn: true, def: def})
}

func (x *extractor) cFuncDef(i int) {
	f := &x.g.f
	info := x.cDeclarator(x.child(i, f.declarator))
	if info.name >= 0 && prep.AttrName(string(x.raw(info.name))) {
		// "__attr ((x)) static void name (...) {": the attribute took the declarator's place and
		// the real declarator sits in an ERROR child.
		if alt := x.cDeclInError(i); alt.name >= 0 {
			info = alt
		}
	}
	body := x.child(i, f.body)
	if info.name < 0 || x.n[info.name].flags&nodeMissing != 0 {
		x.enterAnon(i)
		return
	}
	name, q := x.cName(info.name)
	if name == "" {
		x.enterAnon(i)
		return
	}
	static := false
	end := int(x.n[i].next)
	for j := i + 1; j < end; j = x.skip(j) {
		if x.kind(j) == kStorageClassSpecifier && string(x.raw(j)) == "static" {
			static = true
			break
		}
	}
	k := graph.Function
	qual := name
	if x.g.lang == lang.CPP {
		if x.inClass() {
			k = graph.Method
		} else if q != "" {
			last := q
			if p := strings.LastIndex(q, "::"); p >= 0 {
				last = q[p+2:]
			}
			if !x.namespaces[last] && last != "std" {
				k = graph.Method
			}
		}
		if q != "" {
			qual = x.qual(q + "::" + name)
		} else {
			qual = x.qual(name)
		}
	}
	x.enterFunc(i, i, body, name, qual, k, static)
}

// cDeclInError returns the function declarator in an ERROR child of definition i, if any.
func (x *extractor) cDeclInError(i int) declInfo {
	end := int(x.n[i].next)
	for j := i + 1; j < end; j = x.skip(j) {
		if x.kind(j) != kError {
			continue
		}
		for c := j + 1; c < int(x.n[j].next); c = x.skip(c) {
			if k := x.kind(c); k == kFunctionDeclarator || k == kPointerDeclarator {
				if d := x.cDeclarator(c); d.name >= 0 && d.fn {
					return d
				}
			}
		}
	}
	return declInfo{name: -1}
}

func (x *extractor) cDeclaration(i int) {
	f := x.g.f.declarator
	inFn := x.fnScope() != nil
	end := int(x.n[i].next)
	for j := i + 1; j < end; j = x.skip(j) {
		if x.n[j].field != f {
			continue
		}
		info := x.cDeclarator(j)
		if info.name < 0 || info.fn {
			continue
		}
		name := x.text(info.name)
		switch {
		case inFn:
			x.addLocal(name)
		case info.fnPtr:
			x.globals = append(x.globals, name)
			x.wide = true
		}
	}
}

func (x *extractor) cCall(i int) {
	f := &x.g.f
	fn := x.child(i, f.function)
	if fn < 0 {
		return
	}
	switch x.kind(fn) {
	case kIdentifier:
		x.identCall(fn)
	case kQualifiedIdentifier, kTemplateFunction:
		name, q := x.cName(fn)
		switch name {
		case "static_cast", "dynamic_cast", "reinterpret_cast", "const_cast":
			return // casts, not calls
		}
		if name == "" {
			x.unresolvedCall(fn)
			return
		}
		x.addCall(fn, name, q, "", graph.Direct)
	case kFieldExpression:
		if x.g.lang == lang.CPP {
			if fld := x.child(fn, f.field); fld >= 0 {
				x.methodCall(fld, x.shortName(fld), x.child(fn, f.argument))
				return
			}
		}
		x.unresolvedCall(fn)
	default:
		x.unresolvedCall(fn)
	}
}
