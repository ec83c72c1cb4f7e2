package codegraph

import (
	"github.com/vulnbench/vulnbench/internal/codegraph/extract"
	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// The code graph's types, defined by the packages that do each job (graph: the index and its
// queries; lang: languages; extract: parsing one file) and named here so that the agents, the
// subjects, the suites and the CLI see one API.
type (
	Index      = graph.Index
	File       = graph.File
	Skipped    = graph.Skipped
	Stats      = graph.Stats
	Func       = graph.Func
	FuncKind   = graph.FuncKind
	Call       = graph.Call
	CallKind   = graph.CallKind
	FileResult = graph.FileResult
	Near       = graph.Near
	Site       = graph.Site
	CalleesOf  = graph.CalleesOf
	Source     = graph.Source
	Related    = graph.Related
	Context    = graph.Context
	Lang       = lang.Lang
	// Grammar is a tree-sitter grammar for syntax checks: a code-graph language's (GrammarOf)
	// or one linked only to check syntax (CSharp, PHP, ...).
	Grammar = extract.Grammar
	// SyntaxError is the first syntax error a tree-sitter parser found.
	SyntaxError = extract.SyntaxError
	// FileIndexer indexes one file at a time (NewFileIndexer); Close it.
	FileIndexer = extract.FileIndexer
)

// The kinds of definition and of call site (see graph.FuncKind, graph.CallKind).
const (
	Function   = graph.Function
	Method     = graph.Method
	Macro      = graph.Macro
	Direct     = graph.Direct
	MethodCall = graph.MethodCall
	Unresolved = graph.Unresolved
	Reference  = graph.Reference
)

// The languages (see package lang).
const (
	NoLang     = lang.NoLang
	C          = lang.C
	CPP        = lang.CPP
	Java       = lang.Java
	Python     = lang.Python
	Go         = lang.Go
	JavaScript = lang.JavaScript
)

// The grammars linked only to check syntax (see extract.Grammar).
const (
	CSharp     = extract.CSharp
	PHP        = extract.PHP
	PHPOnly    = extract.PHPOnly
	Ruby       = extract.Ruby
	TypeScript = extract.TypeScript
	TSX        = extract.TSX
)

// LangOf returns the language of a file by its name (lang.Of).
func LangOf(name string, cppHeaders bool) Lang { return lang.Of(name, cppHeaders) }

// Langs lists the supported languages.
func Langs() []Lang { return lang.All() }

// ParseLang reads a language name ("c", "cpp", ...).
func ParseLang(s string) (Lang, error) { return lang.Parse(s) }

// TokenSet returns the identifier and number tokens of code, for Jaccard.
func TokenSet(code string) map[string]struct{} { return graph.TokenSet(code) }

// Jaccard is the Jaccard similarity of two token sets.
func Jaccard(a, b map[string]struct{}) float64 { return graph.Jaccard(a, b) }

// CheckSyntax parses src as l and returns the first syntax error with its line and column (a
// *SyntaxError).
func CheckSyntax(l Lang, src []byte) error { return extract.CheckSyntax(l, src) }

// CheckGrammarSyntax parses src with grammar g and returns the first syntax error (a
// *SyntaxError).
func CheckGrammarSyntax(g Grammar, src []byte) error { return extract.CheckGrammarSyntax(g, src) }

// ParsesWrapped reports whether before+src+after parses with g as one construct (a fragment
// inside its wrapper).
func ParsesWrapped(g Grammar, before string, src []byte, after string) bool {
	return extract.ParsesWrapped(g, before, src, after)
}

// GrammarOf is the tree-sitter grammar of a code-graph language.
func GrammarOf(l Lang) Grammar { return extract.GrammarOf(l) }

// NewFileIndexer returns a FileIndexer with the parse time limit and node limit of opts.
func NewFileIndexer(opts Options) (*FileIndexer, error) {
	return extract.New(nil, opts.limits())
}
