package sast

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/sarif"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// SARIFVersion is the version of the sarif:FILE subject (how matches become verdicts); the
// matcher's own version is recorded beside it in the manifest.
const SARIFVersion = "1"

// SARIFConfig is the sarif:FILE subject's configuration.
type SARIFConfig struct {
	File string `json:"file"`
}

// Validate implements subject.Config.
func (c SARIFConfig) Validate() error {
	if c.File == "" {
		return errors.New("subject sarif:FILE needs the path of a SARIF file, e.g. --subject sarif:codeql.sarif")
	}
	return nil
}

// SARIFFile scores a SARIF file made elsewhere: a case is vul when a finding of the file matches
// it (sarif.Matcher: file and lines, any CWE tier); its verdict carries the matching findings,
// their CWEs and the best CWE tier in the explanation.
type SARIFFile struct {
	file     string
	tools    []string
	findings int
	byBase   byBase
	matcher  *sarif.Matcher
}

// LoadSARIF reads the file once, as rd says (nil: strictly); every case is matched against its
// findings.
func LoadSARIF(c SARIFConfig, rd *lineerr.Reading) (*SARIFFile, error) {
	l, err := sarif.ReadFile(c.File, rd)
	if err != nil {
		return nil, fmt.Errorf("subject sarif:%s: %w", c.File, err)
	}
	m, err := sarif.NewMatcher()
	if err != nil {
		return nil, err
	}
	s := &SARIFFile{file: c.File, matcher: m}
	var all []verdict.Finding
	for _, r := range l.Runs {
		s.tools = append(s.tools, strings.TrimSpace(r.Tool+" "+r.Version))
		all = append(all, r.Findings...)
	}
	s.findings, s.byBase = len(all), indexByBase(all)
	return s, nil
}

// Describe is recorded in the run's manifest.
func (s *SARIFFile) Describe() map[string]any {
	return map[string]any{"file": s.file, "tools": s.tools, "findings": s.findings, "matcher": sarif.MatcherVersion}
}

// Assess implements subject.Subject.
func (s *SARIFFile) Assess(_ context.Context, u subject.Unit, _ *subject.Env) (verdict.Verdict, error) {
	span, ok := sarif.CaseSpan(u.Case)
	if !ok {
		return verdict.Verdict{}, fmt.Errorf("sarif:%s: case %s names no file (target.file or repo.path), so no finding can match it", s.file, u.Case.ID)
	}
	return s.byBase.match(s.matcher, u.Case, span), nil
}

// byBase holds findings by their file's base name. A case's file can only match findings of
// its own base name (sarif.Matcher takes the same path, or one a path suffix of the other), so
// each case is matched against those alone; a finding without a file matches nothing.
type byBase map[string][]verdict.Finding

func indexByBase(fs []verdict.Finding) byBase {
	b := byBase{}
	for _, f := range fs {
		if f.File != "" {
			b[path.Base(f.File)] = append(b[path.Base(f.File)], f)
		}
	}
	return b
}

// match is the verdict of case c, whose span is span, on the findings.
func (b byBase) match(m *sarif.Matcher, c *suite.Case, span sarif.Span) verdict.Verdict {
	cand := b[path.Base(span.File)]
	return matchVerdict(m.Match([]*suite.Case{c}, cand)[0], cand, span)
}

func describeSpan(s sarif.Span) string {
	if s.Start == 0 {
		return s.File
	}
	return fmt.Sprintf("%s:%d-%d", s.File, s.Start, s.End)
}
