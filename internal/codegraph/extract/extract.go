package extract

import (
	"bytes"

	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
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
	res    *graph.FileResult
	scopes []scope

	globals    []string        // file-scope variables whose calls are unresolved (C function pointers, Go vars)
	imports    map[string]bool // Go: names of the file's imported packages
	namespaces map[string]bool // C++: namespace names seen in the file
	pkg        string          // Go package name

	refSeen map[refKey]bool // references already recorded, one per (caller, name)
	wide    bool            // something file-wide ties the regions together (see FileResult.Regions)

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
	withFuncs := x.g.lang == lang.Python || x.g.lang == lang.JavaScript
	if s.name != "" && (s.class || s.ns || (withFuncs && s.fn)) && len(s.prefix) < maxPrefix {
		sep := "."
		if x.g.lang == lang.CPP {
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
// enterFunc adds function node i (its text from node from) as a definition and enters its
// scope: the scope of an anonymous function when name is "".
func (x *extractor) enterFunc(from, i, body int, name, qual string, k graph.FuncKind, static bool) {
	def := x.addDef(from, i, body, name, qual, k, static)
	x.push(i, scope{name: name, fn: true, def: def})
}

// enterAnon enters the scope of a function without a name (a literal, a lambda).
func (x *extractor) enterAnon(i int) { x.push(i, scope{fn: true, def: -1}) }

// methodCall adds the call of member m (named name) of the expression at node obj: obj.m(),
// p->m(), matched by name.
func (x *extractor) methodCall(m int, name string, obj int) {
	x.addCall(m, name, x.compact(x.raw(obj)), "", graph.MethodCall)
}

func (x *extractor) addDef(from, to, body int, name, qual string, k graph.FuncKind, static bool) int {
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
	x.res.Funcs = append(x.res.Funcs, graph.Func{
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
func (x *extractor) addCall(at int, callee, qualifier, expr string, k graph.CallKind) {
	if k != graph.Unresolved && callee == "" { // a name the parser inserted (MISSING)
		if k == graph.Reference {
			return
		}
		k, qualifier, expr = graph.Unresolved, "", x.compact(x.raw(at))
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
	x.res.Calls = append(x.res.Calls, graph.Call{
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

// identCall records a call through a bare identifier: direct, unless the name is a local
// variable or parameter (a function pointer or closure), which is reported unresolved.
func (x *extractor) identCall(fn int) {
	name := x.text(fn)
	if x.isVar(name) {
		x.addCall(fn, "", "", name, graph.Unresolved)
		return
	}
	x.addCall(fn, name, "", "", graph.Direct)
}

// unresolvedCall records a call whose callee is the expression at fn, not a name.
func (x *extractor) unresolvedCall(fn int) {
	x.addCall(fn, "", "", x.compact(x.raw(fn)), graph.Unresolved)
}

// addRef records a reference to name at node at, once per enclosing definition.
func (x *extractor) addRef(at int, name string) {
	if name == "" || x.isVar(name) {
		return
	}
	k := refKey{x.caller(), name}
	if x.refSeen[k] {
		if k.caller < 0 { // kept aside: once the file changed, the first may be elsewhere
			x.addCall(at, name, "", "", graph.Reference)
			last := len(x.res.Calls) - 1
			x.res.DroppedRefs = append(x.res.DroppedRefs, x.res.Calls[last])
			x.res.Calls = x.res.Calls[:last]
		}
		return
	}
	if x.refSeen == nil {
		x.refSeen = map[refKey]bool{}
	}
	x.refSeen[k] = true
	x.addCall(at, name, "", "", graph.Reference)
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
	case lang.Java:
		visit = x.visitJava
	case lang.Python:
		visit = x.visitPython
	case lang.Go:
		visit = x.visitGo
	case lang.JavaScript:
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
