package extract

import (
	"fmt"

	ts "github.com/tree-sitter/go-tree-sitter"

	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// CheckSyntax parses src as language l with its tree-sitter grammar and returns the first
// syntax error (an ERROR or MISSING node) with its line and column, or nil when there is none.
// It is the one syntax check for languages vulnbench has grammars for, so that every cgo call
// stays in this package.
func CheckSyntax(l lang.Lang, src []byte) error {
	ptr := languagePointer(l)
	if ptr == nil {
		return fmt.Errorf("no grammar for %s", l)
	}
	p := ts.NewParser()
	defer p.Close()
	if err := p.SetLanguage(ts.NewLanguage(ptr)); err != nil {
		return fmt.Errorf("%s grammar: %w", l, err)
	}
	tree := p.Parse(src, nil)
	if tree == nil {
		return fmt.Errorf("%s: the parser gave no tree", l)
	}
	defer tree.Close()
	root := tree.RootNode()
	if !root.HasError() {
		return nil
	}
	// Depth-first to the first error; an explicit stack keeps deep nesting off the Go stack.
	stack := []*ts.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.IsError() || n.IsMissing() {
			pos := n.StartPosition()
			what := "unexpected " + n.Kind()
			if n.IsMissing() {
				what = "missing " + n.Kind()
			} else if n.IsError() {
				what = "syntax error"
			}
			return fmt.Errorf("line %d, column %d: %s", pos.Row+1, pos.Column+1, what)
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
	return fmt.Errorf("%s: syntax error", l)
}
