package sast

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// CppcheckVersion is the version of the cppcheck subject (how its errors become verdicts).
const CppcheckVersion = "1"

// CppcheckInstall is how to get the binary.
const CppcheckInstall = "apt-get install cppcheck"

// Cppcheck runs cppcheck (XML v2, which carries CWEs; Debian's 2.10 has no SARIF) on each case's
// code. A case is vul when some error of severity error or warning is reported, other than
// cppcheck's notes about itself (syntax errors, missing includes, unknown macros).
type Cppcheck struct {
	Binary  string
	version string
}

// CppcheckConfig is the cppcheck subject's configuration: none yet.
type CppcheckConfig struct{}

// Validate implements subject.Config.
func (CppcheckConfig) Validate() error { return nil }

// NewCppcheck asks the binary for its version.
func NewCppcheck(ctx context.Context) (*Cppcheck, error) {
	c := &Cppcheck{Binary: "cppcheck"}
	out, err := exec.CommandContext(ctx, c.Binary, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("cppcheck --version: %w (install it with: %s)", err, CppcheckInstall)
	}
	c.version = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "Cppcheck"))
	return c, nil
}

// Describe is recorded in the run's manifest.
func (c *Cppcheck) Describe() map[string]any {
	return map[string]any{"tool": "cppcheck", "tool_version": c.version}
}

// cppcheckSelf are ids about cppcheck's own trouble with the input, not weaknesses.
var cppcheckSelf = []string{"syntaxError", "internalAstError", "missingInclude", "missingIncludeSystem",
	"unknownMacro", "checkersReport", "toomanyconfigs", "normalCheckLevelMaxBranches", "preprocessorErrorDirective", "cppcheckError", "internalError"}

// Assess implements subject.Subject.
func (c *Cppcheck) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	if u.Case.Code == "" {
		return verdict.Verdict{}, fmt.Errorf("cppcheck: case %s has no code to scan", u.Case.ID)
	}
	dir, err := os.MkdirTemp("", "vulnbench-cppcheck-")
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("cppcheck: %w", err)
	}
	defer os.RemoveAll(dir)
	name := "case" + Extension(u.Case.Language)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(u.Case.Code), 0o600); err != nil {
		return verdict.Verdict{}, fmt.Errorf("cppcheck: %w", err)
	}
	cmd := exec.CommandContext(ctx, c.Binary, "--xml", "--xml-version=2", "--enable=warning,portability", "--quiet", name)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return verdict.Verdict{}, fmt.Errorf("cppcheck: %w", ctx.Err())
		}
		return verdict.Verdict{}, fmt.Errorf("cppcheck failed: %v: %s", err, firstLine(stdout.String()))
	}
	findings, err := ParseCppcheckXML(stderr.Bytes())
	if err != nil {
		return verdict.Verdict{}, err
	}
	env.Trace.Record(trace.Event{Kind: trace.Note, Name: "cppcheck", Content: fmt.Sprintf("cppcheck %s: %d errors", c.version, len(findings))})
	return c.verdictOf(findings), nil
}

func (c *Cppcheck) verdictOf(findings []verdict.Finding) verdict.Verdict {
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, Score: verdict.Float(0), ScoreSource: verdict.FromTool, Findings: findings}
	var notes []string
	seen := map[string]bool{}
	for _, f := range findings {
		if (f.Severity != "error" && f.Severity != "warning") || contains(cppcheckSelf, f.Rule) {
			continue
		}
		v.Label, v.Score = suite.Vul, verdict.Float(1)
		notes = append(notes, fmt.Sprintf("line %d: %s (%s)", f.StartLine, f.Rule, f.Severity))
		for _, w := range f.CWE {
			if !seen[w] {
				seen[w] = true
				v.CWE = append(v.CWE, w)
			}
		}
	}
	if len(notes) == 0 {
		v.Explanation = fmt.Sprintf("%d reports, none an error or warning about the code", len(findings))
	} else {
		v.Explanation = strings.Join(notes, "; ")
	}
	return v
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ParseCppcheckXML reads cppcheck's --xml-version=2 report: one finding per error, at its first
// location, with its CWE.
func ParseCppcheckXML(b []byte) ([]verdict.Finding, error) {
	var doc struct {
		XMLName xml.Name `xml:"results"`
		Version string   `xml:"version,attr"`
		Errors  []struct {
			ID       string `xml:"id,attr"`
			Severity string `xml:"severity,attr"`
			Msg      string `xml:"msg,attr"`
			CWE      string `xml:"cwe,attr"`
			Location []struct {
				File string `xml:"file,attr"`
				Line int    `xml:"line,attr"`
			} `xml:"location"`
		} `xml:"errors>error"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("cppcheck output is not its XML report (%v): %s", err, firstLine(string(b)))
	}
	if doc.Version != "2" {
		return nil, fmt.Errorf("cppcheck output: XML version %q, want 2 (--xml-version=2)", doc.Version)
	}
	var out []verdict.Finding
	for _, e := range doc.Errors {
		f := verdict.Finding{Rule: e.ID, Severity: e.Severity, Message: e.Msg}
		if e.CWE != "" && e.CWE != "0" {
			f.CWE = []string{"CWE-" + e.CWE}
		}
		if len(e.Location) > 0 {
			f.File, f.StartLine, f.EndLine = e.Location[0].File, e.Location[0].Line, e.Location[0].Line
		}
		out = append(out, f)
	}
	return out, nil
}
