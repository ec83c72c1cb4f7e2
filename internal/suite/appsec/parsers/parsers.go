// Package parsers holds the syntax checkers of AppSecBench code that need tree-sitter's
// grammars (cgo), so that internal/suite/appsec, and everything that imports it to score,
// builds without cgo.
package parsers

import (
	"context"
	"os/exec"

	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/suite/appsec"
)

// Default returns a real parser for every language one is available for: Go (go/parser),
// Kubernetes YAML (the yaml package), C, Java and Python (tree-sitter grammars) always; Bash
// (`bash -n`) when bash is on PATH; JavaScript with `node --check` when node is on PATH, else
// its tree-sitter grammar. TypeScript, C#, PHP, Ruby and Terraform stay unchecked.
func Default() appsec.SyntaxCheckers {
	s := appsec.SyntaxCheckers{"go": appsec.GoSyntax{}, "kubernetes": appsec.YAMLSyntax{},
		"c": TreeSitter{Lang: codegraph.C}, "java": TreeSitter{Lang: codegraph.Java},
		"python": TreeSitter{Lang: codegraph.Python}, "javascript": TreeSitter{Lang: codegraph.JavaScript}}
	if p, err := exec.LookPath("bash"); err == nil {
		s["bash"] = appsec.BashSyntax{Path: p}
	}
	if p, err := exec.LookPath("node"); err == nil {
		s["javascript"] = appsec.NodeSyntax{Path: p}
	}
	return s
}

// TreeSitter parses with a tree-sitter grammar (through internal/codegraph, which holds every
// cgo call).
type TreeSitter struct{ Lang codegraph.Lang }

// CheckSyntax implements appsec.SyntaxChecker.
func (t TreeSitter) CheckSyntax(_ context.Context, code string) appsec.SyntaxResult {
	if err := codegraph.CheckSyntax(t.Lang, []byte(code)); err != nil {
		return appsec.SyntaxResult{Status: appsec.SyntaxError, Message: err.Error()}
	}
	return appsec.SyntaxResult{Status: appsec.SyntaxChecked}
}
