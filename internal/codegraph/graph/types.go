package graph

import (
	"fmt"

	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// FuncKind says what a definition is.
type FuncKind uint8

const (
	Function FuncKind = iota // a free function
	Method                   // defined in (or qualified by) a class, struct, record or receiver type
	Macro                    // a C or C++ function-like macro (#define f(x) ...): no callees
)

func (k FuncKind) String() string {
	switch k {
	case Function:
		return "function"
	case Method:
		return "method"
	case Macro:
		return "macro"
	}
	return fmt.Sprintf("funckind(%d)", uint8(k))
}

// MarshalText writes the kind's name, for JSON.
func (k FuncKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// CallKind says how sure the index is of a call's target.
type CallKind uint8

const (
	// Direct names its callee: f(), ns::f(), pkg.F(), new T(). Which of several definitions of
	// that name it reaches is left to the reader (Definitions ranks them by proximity).
	Direct CallKind = iota
	// MethodCall calls a named method on a receiver whose type is not resolved (obj.m(),
	// p->m() in C++, self.m()): dynamic dispatch may pick any override.
	MethodCall
	// Unresolved goes through a function pointer, a variable, a struct member in C, or a computed
	// expression: no callee name is guessed; Expr holds the callee expression as written.
	Unresolved
	// Reference uses a function's name as a value (ops.read = my_read, qsort(..., cmp),
	// map(f, xs)): the function may be called from wherever the value goes. GNU cflow counts these
	// as calls too. Only names the repository defines as functions are kept.
	Reference
)

func (k CallKind) String() string {
	switch k {
	case Direct:
		return "direct"
	case MethodCall:
		return "method"
	case Unresolved:
		return "unresolved"
	case Reference:
		return "reference"
	}
	return fmt.Sprintf("callkind(%d)", uint8(k))
}

// MarshalText writes the kind's name, for JSON.
func (k CallKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Func is one function definition (or function-like macro).
type Func struct {
	Name      string    `json:"name"`                // as written: foo, area, operator==, ~Shape
	QualName  string    `json:"qual_name,omitempty"` // with enclosing namespaces, classes, package: ns::Shape::area, pkg.T.M
	Kind      FuncKind  `json:"kind"`
	Static    bool      `json:"static,omitempty"` // C/C++ static: visible in its own file only
	File      string    `json:"file"`             // slash-separated, relative to the repository root
	Lang      lang.Lang `json:"lang"`
	StartLine int       `json:"start_line"` // 1-based, inclusive, from the first token of the definition
	EndLine   int       `json:"end_line"`
	StartByte int       `json:"start_byte"` // byte range of the definition in File
	EndByte   int       `json:"end_byte"`
	Signature string    `json:"signature"` // the text before the body, whitespace collapsed
}

// Call is one call site.
type Call struct {
	Callee    string   `json:"callee,omitempty"`    // the called name's last component; "" when Unresolved
	Qualifier string   `json:"qualifier,omitempty"` // what precedes the name: ns, std, fmt, self, obj
	Expr      string   `json:"expr,omitempty"`      // the callee expression, for unresolved calls
	Kind      CallKind `json:"kind"`
	File      string   `json:"file"`
	Line      int      `json:"line"` // 1-based, of the callee name
	Col       int      `json:"col"`  // 1-based byte column
	Caller    int      `json:"-"`    // index of the enclosing definition in Funcs; -1 at file scope
}

// Flags on the first row of a unit of FileResult.Regions: RegionUnsafe, the unit holds a syntax
// error or lies next to one; RegionErrors, it holds one.
const (
	RegionUnsafe = 1 << 31
	RegionErrors = 1 << 30
)

// FileResult is what indexing one file produced.
type FileResult struct {
	Path         string
	Lang         lang.Lang
	Funcs        []Func
	Calls        []Call // Caller indexes Funcs of this result
	SyntaxErrors int    // ERROR and MISSING nodes the parser recovered from (after a part parse, a lower bound, zero exactly when none)
	// Partial says a definition the parser could not close was cut where its braces close and
	// the rest of the file parsed again (see closeUnclosed).
	Partial bool
	Skip    string // why the file was not parsed ("binary file", ...); "" when it was
	// Regions are the file's top-level syntax units as pairs of 0-based rows (first, last),
	// in order and line-disjoint: runs of children of the syntax tree's root, each run ending
	// with a child that closes itself (a ';', a '}', a directive). An incremental index parses
	// again only the units of an edited file that changed (extract.IndexEdited). Nil when the
	// file cannot be reparsed so: syntax errors, a partial parse, a language whose extraction
	// depends on the whole file (Go), or file-wide context (C function-pointer variables, C++
	// namespaces). A first row with RegionUnsafe set marks a unit that holds a syntax error
	// or lies next to one: reused only between two units that do not.
	Regions []uint32
	// DroppedRefs are the file-scope references (Caller -1) the extractor left out as repeats
	// of an earlier one of the same name (it keeps the first), so that a part parse can tell
	// which is first once the file changed. Never in the index.
	DroppedRefs []Call
}
