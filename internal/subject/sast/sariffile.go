package sast

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

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
	findings []verdict.Finding
	byBase   map[string][]int // finding file's base name → finding indices
	matcher  *sarif.Matcher
}

// LoadSARIF reads the file once; every case is matched against its findings.
func LoadSARIF(c SARIFConfig) (*SARIFFile, error) {
	l, err := sarif.ReadFile(c.File)
	if err != nil {
		return nil, fmt.Errorf("subject sarif:%s: %w", c.File, err)
	}
	m, err := sarif.NewMatcher()
	if err != nil {
		return nil, err
	}
	s := &SARIFFile{file: c.File, matcher: m, byBase: map[string][]int{}}
	for _, r := range l.Runs {
		s.tools = append(s.tools, strings.TrimSpace(r.Tool+" "+r.Version))
		for _, f := range r.Findings {
			if f.File != "" {
				s.byBase[path.Base(f.File)] = append(s.byBase[path.Base(f.File)], len(s.findings))
			}
			s.findings = append(s.findings, f)
		}
	}
	return s, nil
}

// Describe is recorded in the run's manifest.
func (s *SARIFFile) Describe() map[string]any {
	return map[string]any{"file": s.file, "tools": s.tools, "findings": len(s.findings), "matcher": sarif.MatcherVersion}
}

// Assess implements subject.Subject.
func (s *SARIFFile) Assess(_ context.Context, u subject.Unit, _ *subject.Env) (verdict.Verdict, error) {
	span, ok := sarif.CaseSpan(u.Case)
	if !ok {
		return verdict.Verdict{}, fmt.Errorf("sarif:%s: case %s names no file (target.file or repo.path), so no finding can match it", s.file, u.Case.ID)
	}
	idx := s.byBase[path.Base(span.File)]
	cand := make([]verdict.Finding, len(idx))
	for i, j := range idx {
		cand[i] = s.findings[j]
	}
	cm := s.matcher.Match([]*suite.Case{u.Case}, cand)[0]
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, Score: verdict.Float(0), ScoreSource: verdict.FromTool}
	if !cm.Vul(sarif.Unrelated) {
		v.Explanation = fmt.Sprintf("no finding at %s (matcher %d)", describeSpan(span), sarif.MatcherVersion)
		return v, nil
	}
	v.Label, v.Score = suite.Vul, verdict.Float(1)
	seen := map[string]bool{}
	for _, i := range cm.Findings {
		f := cand[i]
		v.Findings = append(v.Findings, f)
		for _, c := range f.CWE {
			if !seen[c] {
				seen[c] = true
				v.CWE = append(v.CWE, c)
			}
		}
	}
	v.Explanation = fmt.Sprintf("%d findings at %s; best CWE tier %s (matcher %d)", len(cm.Findings), describeSpan(span), cm.Tier, sarif.MatcherVersion)
	return v, nil
}

func describeSpan(s sarif.Span) string {
	if s.Start == 0 {
		return s.File
	}
	return fmt.Sprintf("%s:%d-%d", s.File, s.Start, s.End)
}
