package appsec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SyntaxStatus is the outcome of a syntax check.
type SyntaxStatus string

// The outcomes: the code parsed, nothing could check it, or it has a syntax error.
const (
	SyntaxChecked   SyntaxStatus = "checked"
	SyntaxUnchecked SyntaxStatus = "unchecked"
	SyntaxError     SyntaxStatus = "error"
)

// SyntaxResult is one check's outcome; Message says why for unchecked and error.
type SyntaxResult struct {
	Status  SyntaxStatus
	Message string
}

// SyntaxChecker parses code of one language with a real parser. A checker that cannot run (a
// missing binary, a failed temporary file) returns SyntaxUnchecked, never SyntaxChecked.
type SyntaxChecker interface {
	CheckSyntax(ctx context.Context, code string) SyntaxResult
}

// SyntaxCheckers maps a record language to its checker. A language without one is reported
// unchecked.
type SyntaxCheckers map[string]SyntaxChecker

// Check runs the language's checker, or reports unchecked.
func (s SyntaxCheckers) Check(ctx context.Context, language, code string) SyntaxResult {
	c, ok := s[language]
	if !ok {
		return SyntaxResult{Status: SyntaxUnchecked, Message: "no syntax checker for " + language}
	}
	return c.CheckSyntax(ctx, code)
}

// GoSyntax parses Go with go/parser. A snippet without a package clause is parsed as if it had
// one.
type GoSyntax struct{}

// CheckSyntax implements SyntaxChecker.
func (GoSyntax) CheckSyntax(_ context.Context, code string) SyntaxResult {
	src := code
	if !hasPackageClause(code) {
		src = "package snippet\n" + code
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "snippet.go", src, parser.SkipObjectResolution); err != nil {
		return SyntaxResult{Status: SyntaxError, Message: err.Error()}
	}
	return SyntaxResult{Status: SyntaxChecked}
}

func hasPackageClause(code string) bool {
	for line := range strings.Lines(code) {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		return strings.HasPrefix(t, "package ")
	}
	return false
}

// YAMLSyntax parses every document of a YAML stream.
type YAMLSyntax struct{}

// CheckSyntax implements SyntaxChecker.
func (YAMLSyntax) CheckSyntax(_ context.Context, code string) SyntaxResult {
	dec := yaml.NewDecoder(strings.NewReader(code))
	for {
		var doc any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return SyntaxResult{Status: SyntaxChecked}
		}
		if err != nil {
			return SyntaxResult{Status: SyntaxError, Message: err.Error()}
		}
	}
}

// BashSyntax runs `bash -n` on the code.
type BashSyntax struct{ Path string }

// CheckSyntax implements SyntaxChecker.
func (b BashSyntax) CheckSyntax(ctx context.Context, code string) SyntaxResult {
	cmd := exec.CommandContext(ctx, b.Path, "-n")
	cmd.Stdin = strings.NewReader(code)
	return runChecker(cmd)
}

// NodeSyntax runs `node --check` on the code, as an ES module when it has import/export
// statements and as CommonJS otherwise.
type NodeSyntax struct{ Path string }

// CheckSyntax implements SyntaxChecker.
func (n NodeSyntax) CheckSyntax(ctx context.Context, code string) SyntaxResult {
	dir, err := os.MkdirTemp("", "appsec-node-")
	if err != nil {
		return SyntaxResult{Status: SyntaxUnchecked, Message: fmt.Sprintf("temporary directory: %v", err)}
	}
	defer os.RemoveAll(dir)
	name := "snippet.cjs"
	if isESModule(code) {
		name = "snippet.mjs"
	}
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(code), 0o600); err != nil {
		return SyntaxResult{Status: SyntaxUnchecked, Message: fmt.Sprintf("write snippet: %v", err)}
	}
	return runChecker(exec.CommandContext(ctx, n.Path, "--check", file))
}

func isESModule(code string) bool {
	for line := range strings.Lines(code) {
		if strings.HasPrefix(line, "import ") || strings.HasPrefix(line, "export ") {
			return true
		}
	}
	return false
}

// runChecker runs a checker command: exit 0 is checked, another exit status a syntax error, and a
// command that could not run leaves the code unchecked.
func runChecker(cmd *exec.Cmd) SyntaxResult {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return SyntaxResult{Status: SyntaxChecked}
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return SyntaxResult{Status: SyntaxError, Message: firstLines(stderr.String(), 3)}
	default:
		return SyntaxResult{Status: SyntaxUnchecked, Message: fmt.Sprintf("%s: %v", filepath.Base(cmd.Path), err)}
	}
}

func firstLines(s string, n int) string {
	var out []string
	for line := range strings.Lines(s) {
		if t := strings.TrimSpace(line); t != "" {
			out = append(out, t)
			if len(out) == n {
				break
			}
		}
	}
	return strings.Join(out, " | ")
}
