package extract

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	ts "github.com/tree-sitter/go-tree-sitter"
	tscsharp "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	tsphp "github.com/tree-sitter/tree-sitter-php/bindings/go"
	tsruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"

	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// Grammar is a tree-sitter grammar that CheckGrammarSyntax parses with. Besides the code graph's
// languages (GrammarOf), vulnbench links grammars that only check syntax: nothing indexes them.
type Grammar uint8

// The syntax-only grammars. PHP is a file with its <?php tags (text outside them is HTML);
// PHPOnly is PHP code without tags. TypeScript and TSX are the two dialects of one grammar
// module: TSX reads JSX and gives up TypeScript's <Type>expr casts.
const (
	noGrammar Grammar = iota
	CSharp
	PHP
	PHPOnly
	Ruby
	TypeScript
	TSX
	numSyntaxGrammars
	// the code graph's languages follow, GrammarOf(l) = firstLangGrammar + l
	firstLangGrammar = numSyntaxGrammars
)

// GrammarOf is the grammar of a code-graph language.
func GrammarOf(l lang.Lang) Grammar { return firstLangGrammar + Grammar(l) }

func (g Grammar) String() string {
	switch g {
	case CSharp:
		return "csharp"
	case PHP:
		return "php"
	case PHPOnly:
		return "php_only"
	case Ruby:
		return "ruby"
	case TypeScript:
		return "typescript"
	case TSX:
		return "tsx"
	}
	if g >= firstLangGrammar {
		return lang.Lang(g - firstLangGrammar).String()
	}
	return fmt.Sprintf("grammar(%d)", uint8(g))
}

func grammarPointer(g Grammar) unsafe.Pointer {
	switch g {
	case CSharp:
		return tscsharp.Language()
	case PHP:
		return tsphp.LanguagePHP()
	case PHPOnly:
		return tsphp.LanguagePHPOnly()
	case Ruby:
		return tsruby.Language()
	case TypeScript:
		return tsts.LanguageTypescript()
	case TSX:
		return tsts.LanguageTSX()
	}
	if g >= firstLangGrammar {
		return languagePointer(lang.Lang(g - firstLangGrammar))
	}
	return nil
}

// SyntaxError is the first syntax error a parser found: 1-based line and column (in bytes) and
// what the parser says.
type SyntaxError struct {
	Line, Column int
	Message      string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Message)
}

// CheckSyntax parses src as language l with its tree-sitter grammar and returns the first
// syntax error (a *SyntaxError), or nil when there is none.
func CheckSyntax(l lang.Lang, src []byte) error { return CheckGrammarSyntax(GrammarOf(l), src) }

// CheckGrammarSyntax parses src with grammar g and returns the first syntax error, an ERROR or
// MISSING node in document order, as a *SyntaxError; or nil when there is none. It is the one
// tree-sitter syntax check of vulnbench, so that every cgo call stays in this package.
func CheckGrammarSyntax(g Grammar, src []byte) error {
	ptr := grammarPointer(g)
	if ptr == nil {
		return fmt.Errorf("no grammar %s", g)
	}
	p := ts.NewParser()
	defer p.Close()
	if err := p.SetLanguage(ts.NewLanguage(ptr)); err != nil {
		return fmt.Errorf("%s grammar: %w", g, err)
	}
	n, ok := firstError(p, src)
	if !ok {
		return nil
	}
	if n.err && n.end.Row > n.start.Row {
		// An ERROR node over several lines starts where the parser last stood on solid ground,
		// often far before the mistake (a whole class in Java): refineError narrows it to a line.
		n = refineError(p, src, n)
	}
	return &SyntaxError{Line: int(n.start.Row) + 1, Column: int(n.start.Column) + 1, Message: n.what}
}

// errorNode is the first ERROR or MISSING node of a tree: where it starts and ends, and what the
// parser says about it.
type errorNode struct {
	start, end ts.Point
	err        bool // an ERROR node, not a MISSING one
	what       string
}

// firstError parses src and returns its first ERROR or MISSING node in document order; ok is false
// when the tree has none.
func firstError(p *ts.Parser, src []byte) (errorNode, bool) {
	tree := p.Parse(src, nil)
	if tree == nil {
		return errorNode{what: "the parser gave no tree"}, true
	}
	defer tree.Close()
	root := tree.RootNode()
	if !root.HasError() {
		return errorNode{}, false
	}
	// Depth-first to the first error; an explicit stack keeps deep nesting off the Go stack.
	stack := []*ts.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.IsError() || n.IsMissing() {
			if s := runOnString(n); s != nil {
				return errorNode{start: s.StartPosition(), end: s.EndPosition(), err: true,
					what: fmt.Sprintf("syntax error after the string that opens at %q (unterminated?)", quoteStart(src[s.StartByte():s.EndByte()]))}, true
			}
			return errorNode{start: n.StartPosition(), end: n.EndPosition(), err: n.IsError(), what: describeError(n, src)}, true
		}
		if !n.HasError() {
			continue
		}
		for i := int(n.ChildCount()) - 1; i >= 0; i-- {
			if c := n.Child(uint(i)); c != nil {
				stack = append(stack, c)
			}
		}
	}
	return errorNode{start: root.StartPosition(), end: root.EndPosition(), err: true, what: "syntax error"}, true
}

// refineBytes bounds the bytes refineError parses again while it blanks the lines of an ERROR
// node one at a time (each a whole parse of the source): a few hundred lines of a snippet, fewer
// of a large file.
const refineBytes = 4 << 20

// runOnString is the string that an error node n follows or lies in, when that string spans
// lines up to n's: a lenient grammar (Python's) lets a string run on over lines, so an
// unterminated string takes in the code after it up to the next quote, and the code after that
// is the error. Nil when there is none.
func runOnString(n *ts.Node) *ts.Node {
	for _, s := range []*ts.Node{n.Parent(), n.PrevSibling()} {
		if s != nil && strings.Contains(s.Kind(), "string") && s.StartPosition().Row < n.StartPosition().Row &&
			s.EndPosition().Row == n.StartPosition().Row {
			return s
		}
	}
	return nil
}

// refineError finds where the mistake is inside an ERROR node n over several lines. First, by
// bisection over the lines n spans, the first line B such that lines 1..B parsed alone already
// hold an ERROR: a prefix of valid code mostly parses with MISSING nodes at its end, but a prefix
// cut inside a construct can hold an ERROR too, so B may come early. Then, from B on, the first
// line whose blanking (its bytes but the newline made spaces) leaves src without any error: a
// stray token or an unterminated string. Else line B, else n.
func refineError(p *ts.Parser, src []byte, n errorNode) errorNode {
	var lineEnds []int // byte offset just past each line's newline, and len(src) for the last
	for i, b := range src {
		if b == '\n' {
			lineEnds = append(lineEnds, i+1)
		}
	}
	if len(lineEnds) == 0 || lineEnds[len(lineEnds)-1] != len(src) {
		lineEnds = append(lineEnds, len(src))
	}
	first, last := int(n.start.Row), min(int(n.end.Row), len(lineEnds)-1)
	lineStart := func(row int) int {
		if row == 0 {
			return 0
		}
		return lineEnds[row-1]
	}
	at := func(row int, e errorNode, ok bool) errorNode {
		if ok && e.err && int(e.start.Row) == row {
			return e
		}
		line := src[lineStart(row):lineEnds[row]]
		col := len(line) - len(bytes.TrimLeft(line, " \t"))
		return errorNode{start: ts.Point{Row: uint(row), Column: uint(col)}, err: true,
			what: fmt.Sprintf("syntax error at %q", quoteStart(bytes.TrimSpace(line)))}
	}
	lo, hi := first, last
	var best errorNode
	found := false
	for lo < hi {
		mid := (lo + hi) / 2
		if e, ok := firstError(p, src[:lineEnds[mid]]); ok && e.err {
			best, found, hi = e, true, mid
		} else {
			lo = mid + 1
		}
	}
	if found {
		first = lo
	}
	if (last-first+1)*len(src) <= refineBytes {
		blanked := bytes.Clone(src)
		for row := first; row <= last; row++ {
			line := blanked[lineStart(row):lineEnds[row]]
			saved := bytes.Clone(line)
			for i, b := range line {
				if b != '\n' && b != '\r' {
					line[i] = ' '
				}
			}
			if _, bad := firstError(p, blanked); !bad {
				return at(row, errorNode{}, false)
			}
			copy(line, saved)
		}
	}
	if !found {
		return n
	}
	return at(lo, best, true)
}

// describeError says what a MISSING node lacks, or quotes the start of an ERROR node's text.
func describeError(n *ts.Node, src []byte) string {
	if n.IsMissing() {
		k := n.Kind()
		if !n.IsNamed() {
			k = strconv.Quote(k)
		}
		return "missing " + k
	}
	quoted := quoteStart(src[n.StartByte():min(n.EndByte(), uint(len(src)))])
	if quoted == "" {
		return "syntax error"
	}
	return fmt.Sprintf("syntax error at %q", quoted)
}

// quoteStart is the first line of text, cut to 40 bytes (at a character boundary) with an
// ellipsis.
func quoteStart(text []byte) string {
	if i := bytes.IndexAny(text, "\r\n"); i >= 0 {
		text = text[:i]
	}
	const maxQuote = 40
	if len(text) <= maxQuote {
		return string(text)
	}
	cut := maxQuote
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return string(text[:cut]) + "…"
}

// ParsesWrapped reports whether before+src+after parses with grammar g without an error and as
// one construct: the root's one child (comments aside) spans the whole text, so that the wrapper's
// opening is closed by its own closing and not by a stray closer of src. It is how a fragment (a
// method without its class) is checked: the caller reports src's own errors when it does not
// parse wrapped either.
func ParsesWrapped(g Grammar, before string, src []byte, after string) bool {
	ptr := grammarPointer(g)
	if ptr == nil {
		return false
	}
	p := ts.NewParser()
	defer p.Close()
	if err := p.SetLanguage(ts.NewLanguage(ptr)); err != nil {
		return false
	}
	text := make([]byte, 0, len(before)+len(src)+len(after))
	text = append(append(append(text, before...), src...), after...)
	tree := p.Parse(text, nil)
	if tree == nil {
		return false
	}
	defer tree.Close()
	root := tree.RootNode()
	if root.HasError() {
		return false
	}
	var whole *ts.Node
	for i := uint(0); i < root.NamedChildCount(); i++ {
		c := root.NamedChild(i)
		if c == nil || c.IsExtra() {
			continue
		}
		if whole != nil {
			return false
		}
		whole = c
	}
	start, end := len(text)-len(bytes.TrimLeft(text, " \t\r\n")), len(bytes.TrimRight(text, " \t\r\n"))
	return whole != nil && int(whole.StartByte()) == start && int(whole.EndByte()) == end
}
