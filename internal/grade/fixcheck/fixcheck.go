// Package fixcheck checks the fixes an AppSecBench answer proposes, with the languages' parsers
// and the scanners of internal/subject/sast: the grade.FixChecker the CLI gives the grader. It
// is apart from internal/grade so that scoring links neither the scanners nor tree-sitter (cgo).
package fixcheck

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/sast"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/appsec"
	"github.com/vulnbench/vulnbench/internal/suite/appsec/parsers"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Scanner is what a fix check asks of a scanner: a verdict on one snippet.
type Scanner interface {
	Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error)
}

// Checks checks proposed fixes: their syntax with the language's parser (appsec's syntax
// checkers), and, with each scanner that reads the language, flags the vulnerable snippet and
// does not flag the record's own secure version (one that flags both tells nothing of a fix),
// that the fix is not flagged too.
type Checks struct {
	Syntax   appsec.SyntaxCheckers
	Scanners []NamedScanner

	mu   sync.Mutex
	seen map[scanKey]bool // a vulnerable snippet is scanned once per scanner
}

type scanKey struct{ scanner, code string }

// NamedScanner is a scanner with the languages it reads.
type NamedScanner struct {
	Name      string
	Languages []string
	Scanner   Scanner
}

// New uses the default syntax checkers and every scanner of internal/subject/sast found
// on PATH; a missing scanner is left out (its languages' fixes are "not checked").
func New() *Checks {
	c := &Checks{Syntax: parsers.Default()}
	for _, s := range sast.Scanners() {
		t, err := sast.NewTool(sast.ToolConfig{Tool: s.Name})
		if err != nil {
			continue
		}
		c.Scanners = append(c.Scanners, NamedScanner{Name: s.Name, Languages: s.Languages, Scanner: t})
	}
	return c
}

// CheckFix implements grade.FixChecker.
func (c *Checks) CheckFix(ctx context.Context, language, vulnerable, secure, fix string) grade.FixCheck {
	if strings.TrimSpace(fix) == "" {
		return grade.FixCheck{Syntax: grade.SyntaxUnchecked, Scanner: grade.ScannerNot, Detail: "no secure code proposed"}
	}
	out := grade.FixCheck{Scanner: grade.ScannerNot}
	sr := c.Syntax.Check(ctx, language, fix)
	switch sr.Status {
	case appsec.SyntaxChecked:
		out.Syntax = grade.SyntaxOK
	case appsec.SyntaxError:
		out.Syntax, out.Detail = grade.SyntaxError, sr.Located()
	default:
		out.Syntax, out.Detail = grade.SyntaxUnchecked, sr.Message
	}
	var used []string
	for _, s := range c.Scanners {
		if !slices.Contains(s.Languages, language) {
			continue
		}
		if !c.flags(ctx, s, language, vulnerable) || c.flags(ctx, s, language, secure) {
			continue
		}
		used = append(used, s.Name)
		if c.flags(ctx, s, language, fix) {
			out.Scanner = grade.ScannerFlagged
		} else if out.Scanner != grade.ScannerFlagged {
			out.Scanner = grade.ScannerClean
		}
	}
	if len(used) > 0 {
		out.Detail = strings.TrimSpace(out.Detail + " scanners: " + strings.Join(used, ", "))
	}
	return out
}

// flags reports whether s calls code vulnerable; a scanner that fails says nothing. Answers
// are remembered: every repeat and run checks fixes of the same vulnerable snippets.
func (c *Checks) flags(ctx context.Context, s NamedScanner, language, code string) bool {
	k := scanKey{s.Name, code}
	c.mu.Lock()
	got, ok := c.seen[k]
	c.mu.Unlock()
	if ok {
		return got
	}
	cs := &suite.Case{ID: "fix-check", Kind: suite.KindAppSec, Language: language, Code: code}
	v, err := s.Scanner.Assess(ctx, subject.Unit{Case: cs}, &subject.Env{Trace: trace.NewBuffer()})
	got = err == nil && v.Status == verdict.OK && v.Label == suite.Vul
	c.mu.Lock()
	if c.seen == nil {
		c.seen = map[scanKey]bool{}
	}
	c.seen[k] = got
	c.mu.Unlock()
	return got
}

// Default is New made on the first check: a suite without fixes to check asks no
// scanner for its version.
func Default() grade.FixChecker { return &lazyChecks{} }

type lazyChecks struct {
	once sync.Once
	c    *Checks
}

func (l *lazyChecks) CheckFix(ctx context.Context, language, vulnerable, secure, fix string) grade.FixCheck {
	l.once.Do(func() { l.c = New() })
	return l.c.CheckFix(ctx, language, vulnerable, secure, fix)
}
