package appsec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
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

// SyntaxResult is one check's outcome. For an error, Message is the parser's own message and
// Line and Column (1-based, in the code as given: a checker that wraps code maps them back) where
// it found the error, 0 when the parser names no place; for unchecked, Message says why.
type SyntaxResult struct {
	Status       SyntaxStatus
	Message      string
	Line, Column int
}

// Located is the message with its place: "line L, column C: message".
func (r SyntaxResult) Located() string {
	switch {
	case r.Line > 0 && r.Column > 0:
		return fmt.Sprintf("line %d, column %d: %s", r.Line, r.Column, r.Message)
	case r.Line > 0:
		return fmt.Sprintf("line %d: %s", r.Line, r.Message)
	}
	return r.Message
}

// syntaxErrorAt is an error result at line and column.
func syntaxErrorAt(line, column int, message string) SyntaxResult {
	return SyntaxResult{Status: SyntaxError, Line: line, Column: column, Message: message}
}

// SyntaxChecker parses code of one language with a real parser. A checker that cannot run (a
// missing binary, a failed temporary file) returns SyntaxUnchecked, never SyntaxChecked.
type SyntaxChecker interface {
	CheckSyntax(ctx context.Context, code string) SyntaxResult
}

// SyntaxNotes is implemented by a checker that says how it parses: which parser, and how it
// wraps a fragment. The syntax tables print it beside the language's counts.
type SyntaxNotes interface {
	Notes() string
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

// Notes is the language's checker's notes ("" when it has none or there is no checker).
func (s SyntaxCheckers) Notes(language string) string {
	if n, ok := s[language].(SyntaxNotes); ok {
		return n.Notes()
	}
	return ""
}

// GoSyntax parses Go with go/parser. A snippet without a package clause is parsed as if it had
// one.
type GoSyntax struct{}

// Notes implements SyntaxNotes.
func (GoSyntax) Notes() string { return "go/parser; a snippet without a package clause gets one" }

// CheckSyntax implements SyntaxChecker.
func (GoSyntax) CheckSyntax(_ context.Context, code string) SyntaxResult {
	src, shift := code, 0
	if !hasPackageClause(code) {
		src, shift = "package snippet\n"+code, 1
	}
	_, err := parser.ParseFile(token.NewFileSet(), "snippet.go", src, parser.SkipObjectResolution)
	if err == nil {
		return SyntaxResult{Status: SyntaxChecked}
	}
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return syntaxErrorAt(max(list[0].Pos.Line-shift, 1), list[0].Pos.Column, list[0].Msg)
	}
	return SyntaxResult{Status: SyntaxError, Message: err.Error()}
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

// Notes implements SyntaxNotes.
func (YAMLSyntax) Notes() string { return "yaml.v3, every document of the stream" }

// CheckSyntax implements SyntaxChecker. The error's line is the first line L such that lines 1..L
// do not parse: yaml.v3 reports a parser error at the line before its context's (a 0-based line
// printed as 1-based) and a scanner error at its own, so its message cannot say which. Truncating
// YAML at a line boundary leaves it valid unless a flow collection or quoted scalar spans that
// boundary, so for such a snippet the line found is where that construct starts.
func (YAMLSyntax) CheckSyntax(_ context.Context, code string) SyntaxResult {
	err := parseYAML(code)
	if err == nil {
		return SyntaxResult{Status: SyntaxChecked}
	}
	msg := yamlLinePrefix.ReplaceAllString(err.Error(), "")
	lines := strings.SplitAfter(code, "\n")
	for l := 1; l <= len(lines); l++ {
		if parseYAML(strings.Join(lines[:l], "")) != nil {
			return syntaxErrorAt(l, 0, msg)
		}
	}
	return syntaxErrorAt(0, 0, msg)
}

// yamlLinePrefix is the place yaml.v3 puts in front of its messages ("yaml: line 3: "), which
// CheckSyntax replaces by its own.
var yamlLinePrefix = regexp.MustCompile(`^yaml: (line \d+: )?`)

func parseYAML(code string) error {
	dec := yaml.NewDecoder(strings.NewReader(code))
	for {
		var doc any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// HCLSyntax parses Terraform with HashiCorp's HCL parser (native syntax), the code being the body
// of a .tf file: blocks and attributes at the top level, so a resource block alone is a whole file.
type HCLSyntax struct{}

// Notes implements SyntaxNotes.
func (HCLSyntax) Notes() string {
	return "hashicorp/hcl/v2 native syntax, the code as a whole .tf file"
}

// CheckSyntax implements SyntaxChecker.
func (HCLSyntax) CheckSyntax(_ context.Context, code string) SyntaxResult {
	_, diags := hclsyntax.ParseConfig([]byte(code), "snippet.tf", hcl.InitialPos)
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += ": " + d.Detail
		}
		if d.Subject == nil {
			return syntaxErrorAt(0, 0, msg)
		}
		return syntaxErrorAt(d.Subject.Start.Line, d.Subject.Start.Column, msg)
	}
	return SyntaxResult{Status: SyntaxChecked}
}

// BashSyntax runs `bash -n` on the code.
type BashSyntax struct{ Path string }

// Notes implements SyntaxNotes.
func (BashSyntax) Notes() string { return "bash -n" }

// CheckSyntax implements SyntaxChecker.
func (b BashSyntax) CheckSyntax(ctx context.Context, code string) SyntaxResult {
	cmd := exec.CommandContext(ctx, b.Path, "-n")
	cmd.Stdin = strings.NewReader(code)
	res, stderr := runChecker(cmd)
	if res.Status == SyntaxError {
		// bash: line 3: syntax error near unexpected token `then'
		if m := bashError.FindStringSubmatch(stderr); m != nil {
			line, _ := strconv.Atoi(m[1])
			return syntaxErrorAt(line, 0, m[2])
		}
	}
	return res
}

var bashError = regexp.MustCompile(`(?m)^[^:\n]*: line (\d+): (.*)$`)

// NodeSyntax runs `node --check` on the code, as an ES module when it has import/export
// statements and as CommonJS otherwise.
type NodeSyntax struct{ Path string }

// Notes implements SyntaxNotes.
func (NodeSyntax) Notes() string {
	return "node --check, as an ES module when a line starts with import or export"
}

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
	res, stderr := runChecker(exec.CommandContext(ctx, n.Path, "--check", file))
	if res.Status == SyntaxError {
		// /tmp/appsec-node-1/snippet.cjs:3, the line, a caret, and "SyntaxError: ..."
		line := 0
		if m := nodePlace.FindStringSubmatch(stderr); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		msg := res.Message
		if m := nodeError.FindStringSubmatch(stderr); m != nil {
			msg = m[1]
		}
		return syntaxErrorAt(line, 0, msg)
	}
	return res
}

var (
	nodePlace = regexp.MustCompile(`snippet\.[cm]js:(\d+)`)
	nodeError = regexp.MustCompile(`(?m)^(SyntaxError: .*)$`)
)

func isESModule(code string) bool {
	for line := range strings.Lines(code) {
		if strings.HasPrefix(line, "import ") || strings.HasPrefix(line, "export ") {
			return true
		}
	}
	return false
}

// runChecker runs a checker command: exit 0 is checked, another exit status a syntax error (the
// first lines of stderr its message), and a command that could not run leaves the code
// unchecked. It returns the whole stderr too, for the checker to find the place in.
func runChecker(cmd *exec.Cmd) (SyntaxResult, string) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return SyntaxResult{Status: SyntaxChecked}, ""
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return SyntaxResult{Status: SyntaxError, Message: firstLines(stderr.String(), 3)}, stderr.String()
	default:
		return SyntaxResult{Status: SyntaxUnchecked, Message: fmt.Sprintf("%s: %v", filepath.Base(cmd.Path), err)}, ""
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
