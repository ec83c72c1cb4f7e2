// Package parsers holds the syntax checkers of AppSecBench code that need tree-sitter's
// grammars (cgo), so that internal/suite/appsec, and everything that imports it to score,
// builds without cgo.
package parsers

import (
	"context"
	"errors"
	"os/exec"
	"strings"

	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/suite/appsec"
)

// Default returns a real parser for every language of the catalog: Go (go/parser), Kubernetes
// YAML (the yaml package), Terraform (HashiCorp's HCL parser), C, C#, Java, PHP, Python, Ruby and
// TypeScript (tree-sitter grammars) always; Bash (`bash -n`) when bash is on PATH, else it stays
// unchecked, saying so; JavaScript with `node --check` when node is on PATH, else its tree-sitter
// grammar.
func Default() appsec.SyntaxCheckers {
	s := appsec.SyntaxCheckers{"go": appsec.GoSyntax{}, "kubernetes": appsec.YAMLSyntax{}, "terraform": appsec.HCLSyntax{},
		"c":          TreeSitter{Grammar: codegraph.GrammarOf(codegraph.C)},
		"java":       TreeSitter{Grammar: codegraph.GrammarOf(codegraph.Java), Members: true},
		"python":     TreeSitter{Grammar: codegraph.GrammarOf(codegraph.Python)},
		"javascript": TreeSitter{Grammar: codegraph.GrammarOf(codegraph.JavaScript)},
		"csharp":     TreeSitter{Grammar: codegraph.CSharp, Members: true},
		"ruby":       TreeSitter{Grammar: codegraph.Ruby},
		"typescript": TreeSitter{Grammar: codegraph.TypeScript, Or: codegraph.TSX, Members: true},
		"php":        PHP{},
	}
	if p, err := exec.LookPath("bash"); err == nil {
		s["bash"] = appsec.BashSyntax{Path: p}
	}
	if p, err := exec.LookPath("node"); err == nil {
		s["javascript"] = appsec.NodeSyntax{Path: p}
	}
	return s
}

// TreeSitter parses with a tree-sitter grammar (through internal/codegraph, which holds every
// cgo call), the code as a whole file. Or, when set, is another dialect of the language: code that
// Grammar rejects and Or parses is checked (TypeScript's TSX: a .tsx file); when both reject it,
// the error reported is the one found further into the code. Members: code that is class members
// alone (a method without its class, as a model may propose a fix) is checked when it parses
// inside "class Snippet { ... }" as that one class; else the error of the code as a file stands.
type TreeSitter struct {
	Grammar, Or codegraph.Grammar
	Members     bool
}

// The wrapper of class members (TreeSitter.Members, PHP).
const memberOpen, memberClose = "class Snippet {\n", "\n}\n"

// Notes implements appsec.SyntaxNotes.
func (t TreeSitter) Notes() string {
	n := "tree-sitter " + t.Grammar.String()
	if t.Or != 0 {
		n += ", or " + t.Or.String() + " when only that parses it"
	}
	if t.Members {
		n += "; class members alone inside a class"
	}
	return n
}

// CheckSyntax implements appsec.SyntaxChecker.
func (t TreeSitter) CheckSyntax(_ context.Context, code string) appsec.SyntaxResult {
	res := treeSitter(t.Grammar, code)
	if res.Status != appsec.SyntaxError {
		return res
	}
	if t.Or != 0 {
		alt := treeSitter(t.Or, code)
		if alt.Status == appsec.SyntaxChecked {
			return alt
		}
		if later(alt, res) {
			res = alt
		}
	}
	if t.Members && (codegraph.ParsesWrapped(t.Grammar, memberOpen, []byte(code), memberClose) ||
		t.Or != 0 && codegraph.ParsesWrapped(t.Or, memberOpen, []byte(code), memberClose)) {
		return appsec.SyntaxResult{Status: appsec.SyntaxChecked}
	}
	return res
}

func later(a, b appsec.SyntaxResult) bool {
	return a.Line > b.Line || a.Line == b.Line && a.Column > b.Column
}

// PHP parses PHP with tree-sitter: a file with an opening tag (<?php or <?=) as a PHP file, whose
// text outside the tags is HTML; code without one as PHP code alone (the grammar's php_only), not
// as a page of HTML text that any input would be, or as class members alone inside a class.
type PHP struct{}

// Notes implements appsec.SyntaxNotes.
func (PHP) Notes() string {
	return "tree-sitter php; code without an opening tag <?php as PHP code alone (php_only), not as HTML text, or as class members inside a class"
}

// CheckSyntax implements appsec.SyntaxChecker.
func (PHP) CheckSyntax(_ context.Context, code string) appsec.SyntaxResult {
	if strings.Contains(code, "<?php") || strings.Contains(code, "<?=") {
		return treeSitter(codegraph.PHP, code)
	}
	res := treeSitter(codegraph.PHPOnly, code)
	if res.Status == appsec.SyntaxError && codegraph.ParsesWrapped(codegraph.PHPOnly, memberOpen, []byte(code), memberClose) {
		return appsec.SyntaxResult{Status: appsec.SyntaxChecked}
	}
	return res
}

func treeSitter(g codegraph.Grammar, code string) appsec.SyntaxResult {
	err := codegraph.CheckGrammarSyntax(g, []byte(code))
	var se *codegraph.SyntaxError
	switch {
	case err == nil:
		return appsec.SyntaxResult{Status: appsec.SyntaxChecked}
	case errors.As(err, &se):
		return appsec.SyntaxResult{Status: appsec.SyntaxError, Line: se.Line, Column: se.Column, Message: se.Message}
	}
	return appsec.SyntaxResult{Status: appsec.SyntaxUnchecked, Message: err.Error()}
}
