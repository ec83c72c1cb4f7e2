// Package fixcheck checks the fixes an AppSecBench answer proposes, with the languages' parsers
// and the scanners of internal/subject/sast (every scan in the sandbox): the grade.FixChecker
// of predictions files, and Fill, which checks the fixes of a stored run's attempts once, in
// parallel, and stores each check with its attempt for score, report, board and the viewer to
// read. It is apart from internal/grade so that scoring links neither the scanners nor
// tree-sitter (cgo).
package fixcheck

import (
	"context"
	"os"
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

	goCache string    // the Go build cache the Go scanners share ("": each scan its own)
	warm    sync.Once // the cache prepared before the first Go scan
}

type scanKey struct{ scanner, code string }

// NamedScanner is a scanner with the languages it reads.
type NamedScanner struct {
	Name      string
	Languages []string
	Scanner   Scanner
}

// New uses the default syntax checkers and every scanner of internal/subject/sast found
// on PATH; a missing scanner is left out (its languages' fixes are "not checked"). The scanners
// of Go share one build cache (a temporary directory, removed by Close), prepared once before
// the first scan: each scan then type-checks against the standard library compiled once, not
// again per check.
func New() *Checks {
	c := &Checks{Syntax: parsers.Default()}
	for _, s := range sast.Scanners() {
		t, err := sast.NewTool(sast.ToolConfig{Tool: s.Name})
		if err != nil {
			continue
		}
		if slices.Contains(s.Languages, "go") {
			if c.goCache == "" {
				if dir, err := os.MkdirTemp("", "vulnbench-fixcheck-gocache-"); err == nil {
					c.goCache = dir
				}
			}
			t.GoCache = c.goCache
		}
		c.Scanners = append(c.Scanners, NamedScanner{Name: s.Name, Languages: s.Languages, Scanner: t})
	}
	return c
}

// Close removes the shared Go build cache.
func (c *Checks) Close() error {
	if c.goCache == "" {
		return nil
	}
	return os.RemoveAll(c.goCache)
}

// Version implements the version of the checks (grade.FixCheckVersion).
func (c *Checks) Version() string { return grade.FixCheckVersion }

// CheckFix implements grade.FixChecker.
func (c *Checks) CheckFix(ctx context.Context, it *grade.Item) grade.FixCheck {
	fix := ""
	if it.Vul != nil && it.Vul.AppSec != nil {
		fix = it.Vul.AppSec.FixCode
	}
	return c.Check(ctx, it.Record.Language, it.VulCode, it.SecureCode, fix)
}

// Check checks fix, proposed for the vulnerable snippet whose record's secure version is
// secure, in language.
func (c *Checks) Check(ctx context.Context, language, vulnerable, secure, fix string) grade.FixCheck {
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

// warmGo is what prepares the Go build cache: a file importing the standard library's packages
// that AppSecBench's Go snippets, and the fixes proposed for them, use.
const warmGo = `package warm

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var _ = []any{context.Background, md5.New, rand.Reader, sha256.New, tls.Config{}, sql.Open, json.Marshal, errors.New,
	fmt.Sprint, template.New, io.Copy, log.Print, slog.Info, http.Get, url.Parse, os.Open, exec.Command, filepath.Join,
	regexp.MustCompile, strconv.Itoa, strings.Cut, time.Now}
`

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
	if language == "go" && c.goCache != "" {
		// The first Go scan compiles what the others need; the rest wait for it rather than
		// each compiling the standard library at once.
		c.warm.Do(func() { c.scan(ctx, s, language, warmGo) })
	}
	got = c.scan(ctx, s, language, code)
	c.mu.Lock()
	if c.seen == nil {
		c.seen = map[scanKey]bool{}
	}
	c.seen[k] = got
	c.mu.Unlock()
	return got
}

// scan asks s whether code is vulnerable.
func (c *Checks) scan(ctx context.Context, s NamedScanner, language, code string) bool {
	cs := &suite.Case{ID: "fix-check", Kind: suite.KindAppSec, Language: language, Code: code}
	v, err := s.Scanner.Assess(ctx, subject.Unit{Case: cs}, &subject.Env{Trace: trace.NewBuffer()})
	return err == nil && v.Status == verdict.OK && v.Label == suite.Vul
}

// Default is New made on the first check: a suite without fixes to check asks no scanner for
// its version. Close it to remove the shared build cache.
func Default() *Lazy { return &Lazy{} }

// Lazy is Checks made on the first check.
type Lazy struct {
	once sync.Once
	c    *Checks
}

// CheckFix implements grade.FixChecker.
func (l *Lazy) CheckFix(ctx context.Context, it *grade.Item) grade.FixCheck {
	l.once.Do(func() { l.c = New() })
	return l.c.CheckFix(ctx, it)
}

// Close closes the checks if any were made.
func (l *Lazy) Close() error {
	made := true
	l.once.Do(func() { made = false })
	if !made || l.c == nil {
		return nil
	}
	return l.c.Close()
}
