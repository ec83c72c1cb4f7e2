package sarif

import (
	"fmt"
	"path"
	"strings"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/taxonomy"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// MatcherVersion is the version of the rules that match findings to cases; bump it whenever the
// same findings and cases may match differently. Every verdict made by matching names it.
const MatcherVersion = 1

// Tier says how well a finding's CWEs agree with a case's.
type Tier int

// The tiers, worst first. A finding without a CWE, or a case without one, is Unrelated.
const (
	NoMatch   Tier = iota // the finding is not at the case's location
	Unrelated             // at the location, CWEs unrelated (or missing)
	Related               // at the location, a CWE an ancestor or descendant of the case's in MITRE's tree
	Exact                 // at the location, a CWE the case has
)

func (t Tier) String() string {
	return [...]string{"none", "unrelated", "related", "exact"}[t]
}

// Span is where a case's weakness is: a file and an inclusive line range (0, 0: the whole file).
type Span struct {
	File       string
	Start, End int
}

// CaseSpan returns a case's span: its target's file and function lines (target.line to
// target.end_line; a single line without end_line), else its repository path. ok is false when
// the case names no file, so no finding can match it.
func CaseSpan(c *suite.Case) (s Span, ok bool) {
	if c.Target != nil {
		s = Span{File: NormalizePath(c.Target.File), Start: c.Target.Line, End: c.Target.EndLine}
	}
	if s.File == "" && c.Repo != nil {
		s.File = NormalizePath(c.Repo.Path)
	}
	if s.Start > 0 && s.End < s.Start {
		s.End = s.Start
	}
	return s, s.File != ""
}

// CaseMatch is what matching found for one case.
type CaseMatch struct {
	Case     string
	Findings []int  // indices of the findings at the case's location, in input order
	Tiers    []Tier // the tier of each of Findings
	Tier     Tier   // the best tier among them
}

// Vul reports whether the case is vul at tier min or better: Unrelated counts any finding at the
// location (the "a case is vul when any finding matches"), Related and Exact ask the CWEs
// to agree too.
func (m CaseMatch) Vul(min Tier) bool { return m.Tier >= min && m.Tier > NoMatch }

// Matcher matches findings to cases by file, lines and CWE.
type Matcher struct {
	cwe *taxonomy.Hierarchy
}

// NewMatcher loads MITRE's CWE tree (the ChildOf relation embedded by internal/taxonomy).
func NewMatcher() (*Matcher, error) {
	h, err := taxonomy.LoadHierarchy()
	if err != nil {
		return nil, fmt.Errorf("matcher: %w", err)
	}
	return &Matcher{cwe: h}, nil
}

// TierOf returns how a finding's CWEs agree with a case's, ignoring location.
func (m *Matcher) TierOf(finding, cas []string) Tier {
	best := Unrelated
	for _, f := range finding {
		for _, c := range cas {
			if f == c {
				return Exact
			}
			if m.cwe.Related(f, c) {
				best = Related
			}
		}
	}
	return best
}

// Match matches every finding to every case it concerns. A finding's file matches a case's when
// the two are equal, or when one ends with the other at a path boundary and that suffix names
// exactly one case file among the cases; its lines meet the case's span when they overlap it
// (a finding without lines meets only a span without lines). A finding without a file matches
// nothing. The result has one CaseMatch per case, in order.
func (m *Matcher) Match(cases []*suite.Case, findings []verdict.Finding) []CaseMatch {
	out := make([]CaseMatch, len(cases))
	spans := make([]Span, len(cases))
	byFile := map[string][]int{} // case file → case indices
	byBase := map[string][]string{}
	for i, c := range cases {
		out[i].Case = c.ID
		s, ok := CaseSpan(c)
		if !ok {
			continue
		}
		spans[i] = s
		if _, seen := byFile[s.File]; !seen {
			byBase[path.Base(s.File)] = append(byBase[path.Base(s.File)], s.File)
		}
		byFile[s.File] = append(byFile[s.File], i)
	}
	resolved := map[string]string{} // finding file → case file, "" when none or ambiguous
	for fi, f := range findings {
		if f.File == "" {
			continue
		}
		file, ok := resolved[f.File]
		if !ok {
			file = resolveFile(f.File, byFile, byBase)
			resolved[f.File] = file
		}
		if file == "" {
			continue
		}
		for _, ci := range byFile[file] {
			if !meets(f, spans[ci]) {
				continue
			}
			cm := &out[ci]
			t := m.TierOf(f.CWE, cases[ci].CWE)
			cm.Findings = append(cm.Findings, fi)
			cm.Tiers = append(cm.Tiers, t)
			if t > cm.Tier {
				cm.Tier = t
			}
		}
	}
	return out
}

// resolveFile finds the case file a finding's file names: the same path, else the one case file
// that is a path suffix of it or of which it is a path suffix.
func resolveFile(f string, byFile map[string][]int, byBase map[string][]string) string {
	if _, ok := byFile[f]; ok {
		return f
	}
	found := ""
	for _, c := range byBase[path.Base(f)] {
		if suffixOf(c, f) || suffixOf(f, c) {
			if found != "" {
				return "" // ambiguous: two case files fit
			}
			found = c
		}
	}
	return found
}

// suffixOf reports whether s ends with the path suffix p at a "/" boundary.
func suffixOf(p, s string) bool {
	return len(s) > len(p) && strings.HasSuffix(s, p) && s[len(s)-len(p)-1] == '/'
}

func meets(f verdict.Finding, s Span) bool {
	if s.Start == 0 {
		return true // the whole file
	}
	if f.StartLine == 0 {
		return false
	}
	end := f.EndLine
	if end < f.StartLine {
		end = f.StartLine
	}
	return f.StartLine <= s.End && end >= s.Start
}
