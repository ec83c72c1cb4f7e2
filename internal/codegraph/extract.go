package codegraph

import (
	"bytes"
	"strings"
)

// scope is an enclosing namespace, class or function while the extractor scans a file.
type scope struct {
	end    uint32 // node index just past the scope's subtree
	name   string // "" for anonymous scopes
	class  bool   // a class, struct, record, interface or enum
	ns     bool   // a C++ namespace
	fn     bool   // a function (named or not): holds parameters and locals
	def    int    // index in the result's Funcs, -1 when none
	locals []string

	// Inherited at push, so that deep nesting costs nothing per node.
	callerDef int    // the innermost named definition, this one included; -1 at file scope
	fnIdx     int    // stack index of the innermost function scope with no class between; -1 if none
	inClass   bool   // directly in a class body (no function between)
	prefix    string // the qualified-name prefix for definitions inside, e.g. "geo::Shape::"
}

// maxPrefix caps qualified names: nesting deeper than that adds nothing to them.
const maxPrefix = 256

// maxClosureDepth is how many enclosing function scopes isVar looks through.
const maxClosureDepth = 64

// extractor reads one file's flat syntax tree into definitions and call sites.
type extractor struct {
	g      *grammar
	src    []byte
	n      []node
	intern map[string]string
	res    *FileResult
	scopes []scope

	globals    []string        // file-scope variables whose calls are unresolved (C function pointers, Go vars)
	imports    map[string]bool // Go: names of the file's imported packages
	namespaces map[string]bool // C++: namespace names seen in the file
	pkg        string          // Go package name

	refSeen map[refKey]bool // references already recorded, one per (caller, name)

	lineRow, lineStart uint32       // the line of the last call and its start offset
	pending            []pendingDef // definitions recovered from ERROR nodes, by start index
}

type refKey struct {
	caller int
	name   string
}

// pendingDef is a function definition the parser could only return in pieces, as children of an
// ERROR node: its header (type and declarator) and then its body's statements as siblings.
type pendingDef struct {
	start, last, end int // first and last sibling; end is the index just past the last's subtree
	name, body       int
}

const maxTextLen = 120 // qualifiers, expressions and signatures are cut to this many bytes

func (x *extractor) kind(i int) kind { return x.g.kinds[x.n[i].sym] }

// child returns the first child of i in field f, or -1.
func (x *extractor) child(i int, f uint16) int {
	if f == 0 {
		return -1
	}
	end := int(x.n[i].next)
	for j := i + 1; j < end; j = x.skip(j) {
		if x.n[j].field == f {
			return j
		}
	}
	return -1
}

// skip returns the index of the node after j's subtree (j's next sibling, if any).
func (x *extractor) skip(j int) int {
	if nx := int(x.n[j].next); nx > j {
		return nx
	}
	return j + 1
}

// firstChild returns i's first named child, or -1.
func (x *extractor) firstChild(i int) int {
	if i+1 < int(x.n[i].next) {
		return i + 1
	}
	return -1
}

// childOfKind returns i's first child of kind k, or -1.
func (x *extractor) childOfKind(i int, k kind) int {
	end := int(x.n[i].next)
	for j := i + 1; j < end; j = x.skip(j) {
		if x.kind(j) == k {
			return j
		}
	}
	return -1
}

func (x *extractor) raw(i int) []byte {
	if i < 0 {
		return nil
	}
	s, e := x.n[i].start, x.n[i].end
	if e > uint32(len(x.src)) || s > e {
		return nil
	}
	return x.src[s:e]
}

// text returns node i's source text, interned.
func (x *extractor) text(i int) string {
	if i < 0 {
		return ""
	}
	return x.str(x.raw(i))
}

func (x *extractor) str(b []byte) string {
	if s, ok := x.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	x.intern[s] = s
	return s
}

// compact returns b with runs of white space made one space, cut to maxTextLen bytes, interned.
// It reads a bounded prefix of b, so that nested constructs cost no more than flat ones.
func (x *extractor) compact(b []byte) string {
	if len(b) > 4*maxTextLen {
		b = b[:4*maxTextLen]
	}
	b = bytes.TrimSpace(b)
	simple := len(b) <= maxTextLen
	for _, c := range b {
		if c == '\n' || c == '\t' || c == '\r' || c == ' ' {
			simple = false
			break
		}
	}
	if simple {
		return x.str(b)
	}
	out := make([]byte, 0, min(len(b), maxTextLen+8))
	space := false
	for _, c := range b {
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v' {
			space = true
			continue
		}
		if space && len(out) > 0 {
			out = append(out, ' ')
		}
		space = false
		out = append(out, c)
		if len(out) >= maxTextLen {
			break
		}
	}
	return x.str(out)
}

func (x *extractor) push(i int, s scope) {
	s.end = x.n[i].next
	x.pushScope(s)
}

// pushScope opens s, filling in what it inherits from the enclosing scope.
func (x *extractor) pushScope(s scope) {
	parent := scope{callerDef: -1, fnIdx: -1}
	if len(x.scopes) > 0 {
		parent = x.scopes[len(x.scopes)-1]
	}
	s.callerDef, s.fnIdx, s.inClass, s.prefix = parent.callerDef, parent.fnIdx, parent.inClass, parent.prefix
	if s.def >= 0 {
		s.callerDef = s.def
	}
	switch {
	case s.fn:
		s.fnIdx, s.inClass = len(x.scopes), false
	case s.class:
		s.fnIdx, s.inClass = -1, true
	}
	withFuncs := x.g.lang == Python || x.g.lang == JavaScript
	if s.name != "" && (s.class || s.ns || (withFuncs && s.fn)) && len(s.prefix) < maxPrefix {
		sep := "."
		if x.g.lang == CPP {
			sep = "::"
		}
		s.prefix = s.prefix + s.name + sep
	}
	x.scopes = append(x.scopes, s)
}

// caller returns the innermost named definition enclosing the current node, or -1.
func (x *extractor) caller() int {
	if len(x.scopes) == 0 {
		return -1
	}
	return x.scopes[len(x.scopes)-1].callerDef
}

// fnScope returns the innermost function scope, or nil at file or class scope.
func (x *extractor) fnScope() *scope {
	if len(x.scopes) == 0 {
		return nil
	}
	if i := x.scopes[len(x.scopes)-1].fnIdx; i >= 0 {
		return &x.scopes[i]
	}
	return nil
}

func (x *extractor) addLocal(name string) {
	if name == "" {
		return
	}
	if s := x.fnScope(); s != nil {
		s.locals = append(s.locals, name)
	}
}

// isVar reports whether name is a parameter or variable in scope (in the enclosing functions,
// up to maxClosureDepth of them, or at file scope), so that calling it goes through a pointer or
// a function value.
func (x *extractor) isVar(name string) bool {
	for i, seen := len(x.scopes)-1, 0; i >= 0 && seen < maxClosureDepth; i-- {
		if !x.scopes[i].fn {
			continue
		}
		seen++
		for _, l := range x.scopes[i].locals {
			if l == name {
				return true
			}
		}
	}
	for _, g := range x.globals {
		if g == name {
			return true
		}
	}
	return false
}

// qual returns name qualified by the enclosing namespaces and classes (and, in Python and
// JavaScript, functions).
func (x *extractor) qual(name string) string {
	if len(x.scopes) == 0 || x.scopes[len(x.scopes)-1].prefix == "" {
		return name
	}
	return x.str([]byte(x.scopes[len(x.scopes)-1].prefix + name))
}

func (x *extractor) inClass() bool {
	return len(x.scopes) > 0 && x.scopes[len(x.scopes)-1].inClass
}

// addDef records a definition spanning nodes from..to (usually the same node) and returns its
// index, or -1 for an empty name. body is the body node (-1 if none): the signature is the text
// before it.
func (x *extractor) addDef(from, to, body int, name, qual string, k FuncKind, static bool) int {
	if name == "" {
		return -1 // a name the parser inserted (MISSING) or a nameless construct
	}
	start, end := x.n[from].start, x.n[to].end
	sigEnd := end
	if body >= 0 && x.n[body].start >= start {
		sigEnd = x.n[body].start
	}
	if sigEnd > start+4*maxTextLen {
		sigEnd = start + 4*maxTextLen
	}
	if qual == "" {
		qual = name
	}
	endLine := int(x.n[to].endRow) + 1
	if end > start && end <= uint32(len(x.src)) && x.src[end-1] == '\n' {
		endLine-- // a #define ends with its line break
	}
	x.res.Funcs = append(x.res.Funcs, Func{
		Name:      name,
		QualName:  qual,
		Kind:      k,
		Static:    static,
		File:      x.res.Path,
		Lang:      x.res.Lang,
		StartLine: int(x.n[from].startRow) + 1,
		EndLine:   endLine,
		StartByte: int(start),
		EndByte:   int(end),
		Signature: x.compact(x.src[start:min(sigEnd, uint32(len(x.src)))]),
	})
	return len(x.res.Funcs) - 1
}

// addCall records a call whose callee is named at node at (the whole call when unnamed).
func (x *extractor) addCall(at int, callee, qualifier, expr string, k CallKind) {
	if k != Unresolved && callee == "" { // a name the parser inserted (MISSING)
		if k == Reference {
			return
		}
		k, qualifier, expr = Unresolved, "", x.compact(x.raw(at))
	}
	pos := x.n[at].start
	row := x.n[at].startRow
	if row != x.lineRow || pos < x.lineStart {
		// Calls come in source order: the line start is searched once a line, not once a call
		// (a minified line can hold thousands of calls).
		x.lineRow, x.lineStart = row, 0
		if pos <= uint32(len(x.src)) {
			x.lineStart = uint32(bytes.LastIndexByte(x.src[:pos], '\n') + 1)
		}
	}
	line, col := int(row)+1, int(pos-x.lineStart)+1
	x.res.Calls = append(x.res.Calls, Call{
		Callee:    callee,
		Qualifier: qualifier,
		Expr:      expr,
		Kind:      k,
		File:      x.res.Path,
		Line:      line,
		Col:       col,
		Caller:    x.caller(),
	})
}

// addRef records a reference to name at node at, once per enclosing definition.
func (x *extractor) addRef(at int, name string) {
	if name == "" || x.isVar(name) {
		return
	}
	k := refKey{x.caller(), name}
	if x.refSeen[k] {
		return
	}
	if x.refSeen == nil {
		x.refSeen = map[refKey]bool{}
	}
	x.refSeen[k] = true
	x.addCall(at, name, "", "", Reference)
}

// valueContext reports whether identifier i is used as a value: a direct child of one of the
// given kinds, or the value side of an assignment, declaration, pair or keyword argument.
func (x *extractor) valueContext(i int, parents ...kind) bool {
	p := int(x.n[i].parent)
	if p < 0 {
		return false
	}
	pk := x.kind(p)
	f := &x.g.f
	fld := x.n[i].field
	switch pk {
	case kAssignment, kAssignmentExpression:
		return fld == f.right
	case kVariableDeclarator, kKeywordArgument, kPair, kFieldDefinition:
		return fld == f.value
	case kExpressionList:
		// Go: the right side of x = f, x := f, var x = f, return f
		if gp := int(x.n[p].parent); gp >= 0 {
			switch x.kind(gp) {
			case kReturnStatement:
				return true
			case kAssignmentStatement, kShortVarDeclaration:
				return x.n[p].field == f.right
			case kVarSpec:
				return x.n[p].field == f.value
			}
		}
		return false
	}
	for _, k := range parents {
		if pk == k {
			return true
		}
	}
	return false
}

// run scans the nodes in preorder.
func (x *extractor) run() {
	visit := x.visitC
	switch x.g.lang {
	case Java:
		visit = x.visitJava
	case Python:
		visit = x.visitPython
	case Go:
		visit = x.visitGo
	case JavaScript:
		visit = x.visitJS
	}
	for i := range x.n {
		for len(x.scopes) > 0 && uint32(i) >= x.scopes[len(x.scopes)-1].end {
			x.scopes = x.scopes[:len(x.scopes)-1]
		}
		if x.n[i].flags&nodeMissing != 0 || x.kind(i) == kError {
			x.res.SyntaxErrors++
		}
		for len(x.pending) > 0 && x.pending[0].start <= i {
			p := x.pending[0]
			x.pending = x.pending[1:]
			if p.start == i {
				x.recoverDef(p)
			}
		}
		visit(i)
	}
}

// ---- C and C++ ----

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
			x.addDef(i, i, sigEnd, x.text(nm), "", Macro, false)
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
		if x.g.lang == CPP && x.child(i, f.body) >= 0 {
			x.push(i, scope{name: x.text(x.child(i, f.name)), class: true, def: -1})
		}
	case kNamespaceDefinition:
		name := x.compactNoSpace(x.raw(x.child(i, f.name)))
		if name != "" {
			if x.namespaces == nil {
				x.namespaces = map[string]bool{}
			}
			x.namespaces[name] = true
		}
		x.push(i, scope{name: name, ns: true, def: -1})
	case kLambdaExpression:
		x.push(i, scope{fn: true, def: -1})
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
			if k := x.kind(j); (k != kStorageClassSpecifier && k != kNone && k != kTypeIdentifier) || x.n[j].endRow+1 < x.n[kids[first]].startRow {
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
	def := x.addDef(p.start, p.last, p.body, name, qual, Function, false)
	x.pushScope(scope{end: uint32(p.end), name: name, fn: true, def: def})
}

func (x *extractor) cFuncDef(i int) {
	f := &x.g.f
	info := x.cDeclarator(x.child(i, f.declarator))
	if info.name >= 0 && attrName(string(x.raw(info.name))) {
		// "__attr ((x)) static void name (...) {": the attribute took the declarator's place and
		// the real declarator sits in an ERROR child.
		if alt := x.cDeclInError(i); alt.name >= 0 {
			info = alt
		}
	}
	body := x.child(i, f.body)
	if info.name < 0 || x.n[info.name].flags&nodeMissing != 0 {
		x.push(i, scope{fn: true, def: -1})
		return
	}
	name, q := x.cName(info.name)
	if name == "" {
		x.push(i, scope{fn: true, def: -1})
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
	k := Function
	qual := name
	if x.g.lang == CPP {
		if x.inClass() {
			k = Method
		} else if q != "" {
			last := q
			if p := strings.LastIndex(q, "::"); p >= 0 {
				last = q[p+2:]
			}
			if !x.namespaces[last] && last != "std" {
				k = Method
			}
		}
		if q != "" {
			qual = x.qual(q + "::" + name)
		} else {
			qual = x.qual(name)
		}
	}
	def := x.addDef(i, i, body, name, qual, k, static)
	x.push(i, scope{name: name, fn: true, def: def})
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
		name := x.text(fn)
		if x.isVar(name) {
			x.addCall(fn, "", "", name, Unresolved)
		} else {
			x.addCall(fn, name, "", "", Direct)
		}
	case kQualifiedIdentifier, kTemplateFunction:
		name, q := x.cName(fn)
		switch name {
		case "static_cast", "dynamic_cast", "reinterpret_cast", "const_cast":
			return // casts, not calls
		}
		if name == "" {
			x.addCall(fn, "", "", x.compact(x.raw(fn)), Unresolved)
			return
		}
		x.addCall(fn, name, q, "", Direct)
	case kFieldExpression:
		if x.g.lang == CPP {
			if fld := x.child(fn, f.field); fld >= 0 {
				x.addCall(fld, x.shortName(fld), x.compact(x.raw(x.child(fn, f.argument))), "", MethodCall)
				return
			}
		}
		x.addCall(fn, "", "", x.compact(x.raw(fn)), Unresolved)
	default:
		x.addCall(fn, "", "", x.compact(x.raw(fn)), Unresolved)
	}
}

// ---- Java ----

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
		def := x.addDef(i, i, body, name, x.qual(name), Method, false)
		x.push(i, scope{name: name, fn: true, def: def})
	case kLambdaExpression:
		x.push(i, scope{fn: true, def: -1})
	case kMethodInvocation:
		nm := x.child(i, f.name)
		if nm < 0 {
			return
		}
		if obj := x.child(i, f.object); obj >= 0 {
			x.addCall(nm, x.text(nm), x.compact(x.raw(obj)), "", MethodCall)
		} else {
			x.addCall(nm, x.text(nm), "", "", Direct)
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
			x.addCall(t, x.text(t), "", "", Direct)
		}
		if x.childOfKind(i, kClassBody) >= 0 {
			x.push(i, scope{class: true, def: -1})
		}
	}
}

// ---- Python ----

func (x *extractor) visitPython(i int) {
	f := &x.g.f
	switch x.kind(i) {
	case kClassDefinition:
		x.push(i, scope{name: x.text(x.child(i, f.name)), class: true, def: -1})
	case kFunctionDefinition:
		nm := x.child(i, f.name)
		if nm < 0 {
			x.push(i, scope{fn: true, def: -1})
			return
		}
		name := x.text(nm)
		k := Function
		if x.inClass() {
			k = Method
		}
		def := x.addDef(i, i, x.child(i, f.body), name, x.qual(name), k, false)
		x.push(i, scope{name: name, fn: true, def: def})
	case kLambda:
		x.push(i, scope{fn: true, def: -1})
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
			name := x.text(fn)
			if x.isVar(name) {
				x.addCall(fn, "", "", name, Unresolved)
			} else {
				x.addCall(fn, name, "", "", Direct)
			}
		case kAttribute:
			if a := x.child(fn, f.attribute); a >= 0 {
				x.addCall(a, x.text(a), x.compact(x.raw(x.child(fn, f.object))), "", MethodCall)
				return
			}
			x.addCall(fn, "", "", x.compact(x.raw(fn)), Unresolved)
		default:
			x.addCall(fn, "", "", x.compact(x.raw(fn)), Unresolved)
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

// ---- Go ----

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
			x.push(i, scope{fn: true, def: -1})
			return
		}
		name := x.text(nm)
		def := x.addDef(i, i, x.child(i, f.body), name, x.goQual(name), Function, false)
		x.push(i, scope{name: name, fn: true, def: def})
	case kMethodDeclaration:
		nm := x.child(i, f.name)
		if nm < 0 {
			x.push(i, scope{fn: true, def: -1})
			return
		}
		name := x.text(nm)
		qual := name
		if recv := x.goReceiverType(x.child(i, f.receiver)); recv != "" {
			qual = recv + "." + name
		}
		def := x.addDef(i, i, x.child(i, f.body), name, x.goQual(qual), Method, false)
		x.push(i, scope{name: name, fn: true, def: def})
	case kFuncLiteral:
		x.push(i, scope{fn: true, def: -1})
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
			name := x.text(fn)
			if x.isVar(name) {
				x.addCall(fn, "", "", name, Unresolved)
			} else {
				x.addCall(fn, name, "", "", Direct)
			}
		case kSelectorExpression:
			op, fld := x.child(fn, f.operand), x.child(fn, f.field)
			if fld < 0 || op < 0 {
				x.addCall(fn, "", "", x.compact(x.raw(fn)), Unresolved)
				return
			}
			opText := x.compact(x.raw(op))
			if x.kind(op) == kIdentifier && x.imports[opText] && !x.isVar(opText) {
				x.addCall(fld, x.text(fld), opText, "", Direct)
			} else {
				x.addCall(fld, x.text(fld), opText, "", MethodCall)
			}
		default:
			x.addCall(fn, "", "", x.compact(x.raw(fn)), Unresolved)
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

// ---- JavaScript ----

func (x *extractor) visitJS(i int) {
	f := &x.g.f
	switch x.kind(i) {
	case kClassDeclaration, kClass:
		x.push(i, scope{name: x.text(x.child(i, f.name)), class: true, def: -1})
	case kFunctionDeclaration, kGeneratorFunctionDeclaration:
		nm := x.child(i, f.name)
		if nm < 0 {
			x.push(i, scope{fn: true, def: -1})
			return
		}
		name := x.text(nm)
		def := x.addDef(i, i, x.child(i, f.body), name, x.qual(name), Function, false)
		x.push(i, scope{name: name, fn: true, def: def})
	case kMethodDefinition:
		nm := x.child(i, f.name)
		if nm < 0 {
			x.push(i, scope{fn: true, def: -1})
			return
		}
		name := x.compact(x.raw(nm))
		k := Function
		if x.inClass() {
			k = Method
		}
		def := x.addDef(i, i, x.child(i, f.body), name, x.qual(name), k, false)
		x.push(i, scope{name: name, fn: true, def: def})
	case kFunctionExpression, kFunction, kArrowFunction, kGeneratorFunction:
		from, name := x.jsFuncName(i)
		if name == "" {
			x.push(i, scope{fn: true, def: -1})
		} else {
			def := x.addDef(from, i, x.child(i, f.body), name, x.qual(name), Function, false)
			x.push(i, scope{name: name, fn: true, def: def})
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
			name := x.text(fn)
			if x.isVar(name) {
				x.addCall(fn, "", "", name, Unresolved)
			} else {
				x.addCall(fn, name, "", "", Direct)
			}
		case kMemberExpression:
			if p := x.child(fn, f.property); p >= 0 && x.kind(p) != kNone {
				x.addCall(p, x.text(p), x.compact(x.raw(x.child(fn, f.object))), "", MethodCall)
				return
			}
			x.addCall(fn, "", "", x.compact(x.raw(fn)), Unresolved)
		case kSuper:
		default:
			if string(x.raw(fn)) == "import" {
				return
			}
			x.addCall(fn, "", "", x.compact(x.raw(fn)), Unresolved)
		}
	case kNewExpression:
		c := x.child(i, f.constructor)
		if c < 0 {
			return
		}
		switch x.kind(c) {
		case kIdentifier:
			x.addCall(c, x.text(c), "", "", Direct)
		case kMemberExpression:
			if p := x.child(c, f.property); p >= 0 {
				x.addCall(p, x.text(p), x.compact(x.raw(x.child(c, f.object))), "", Direct)
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
