// Package query is the code graph as its readers see it: the Graph interface subjects ask
// (callers, callees, definitions, the Dep-Aug context) and the types of its answers. It links no
// cgo (the tree-sitter parsers stay in codegraph/extract), so subject, agent and engine build
// without a C compiler; *codegraph.Index implements Graph.
package query

import "github.com/vulnbench/vulnbench/internal/codegraph/graph"

// Graph answers questions about one snapshot's code. near ranks the answers: definitions and
// call sites closest to near.File (and, within it, to near.Line) come first.
type Graph interface {
	// Definitions returns every definition of name, nearest first.
	Definitions(name string, near Near) []Func
	// Definition returns the source text of every definition of name, nearest first.
	Definition(name string, near Near) ([]Source, error)
	// Callers returns the call sites of name (calls, and uses as a value), nearest first.
	Callers(name string, near Near) []Site
	// Callees returns, for every definition of name (nearest first), the calls it makes.
	Callees(name string, near Near) []CalleesOf
	// TopK returns the k callers and the k callees of the nearest definition of target most
	// similar to it by token Jaccard similarity.
	TopK(target string, near Near, k int) (*Context, error)
}

// The answers' types (see package graph).
type (
	Near      = graph.Near
	Func      = graph.Func
	Source    = graph.Source
	Site      = graph.Site
	CalleesOf = graph.CalleesOf
	Context   = graph.Context
	Related   = graph.Related
	CallKind  = graph.CallKind
)

// The kinds of call site (see graph.CallKind).
const (
	Direct     = graph.Direct
	MethodCall = graph.MethodCall
	Unresolved = graph.Unresolved
	Reference  = graph.Reference
)

// TokenSet returns the identifier and number tokens of code, for Jaccard.
func TokenSet(code string) map[string]struct{} { return graph.TokenSet(code) }

// Jaccard is the Jaccard similarity of two token sets.
func Jaccard(a, b map[string]struct{}) float64 { return graph.Jaccard(a, b) }
