// Package sca is the plain version-matching subject on vex cases: what dependency scanners do.
// The case's CVE is looked up in the offline advisories (--advisories); if a manifest of the
// case's snapshot pins a version of an affected package inside an affected range, the answer is
// vulnerable, else code_not_present. It never looks at the code, so it measures how much version
// matching over-alerts (VEX-Bench's point).
package sca

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/deps"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Version is bumped whenever the same case, snapshot and advisories may get another verdict.
const Version = "1"

// Config is the sca subject's configuration.
type Config struct {
	Advisories string `json:"advisories"`
}

// NeedsRepository is the kind's Repository declaration: every case is judged on its snapshot.
func (c Config) NeedsRepository(cs *suite.Case) bool { return subject.CaseRepo(cs) }

// NeedsAdvisories is the kind's Advisories declaration: the case's CVE, in --advisories.
func (c Config) NeedsAdvisories(cs *suite.Case) ([]string, string) {
	return subject.CaseAdvisory(cs), c.Advisories
}

// Validate implements subject.Config.
func (c Config) Validate() error {
	if c.Advisories == "" {
		return errors.New("subject sca needs --advisories PATH: a directory of OSV records (GitHub Advisory Database, Go vulndb, any .json) or an osv.dev all.zip")
	}
	return nil
}

// SCA is the subject.
type SCA struct {
	db *advisory.DB
}

// New opens the advisories once for the run.
func New(cfg Config) (*SCA, error) {
	db, err := advisory.Open(cfg.Advisories)
	if err != nil {
		return nil, fmt.Errorf("subject sca: %w", err)
	}
	return &SCA{db: db}, nil
}

// NewWith is an sca subject over advisories already open.
func NewWith(db *advisory.DB) *SCA { return &SCA{db: db} }

// Close closes the advisories.
func (s *SCA) Close() error { return s.db.Close() }

// Describe is recorded in the run's manifest: the advisories' path, and those that could not be
// read.
func (s *SCA) Describe() map[string]any {
	return s.db.Describe(map[string]any{"advisories": s.db.Path()})
}

// Assess implements subject.Subject.
func (s *SCA) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	c := u.Case
	if c.CVE == "" {
		return verdict.Verdict{}, fmt.Errorf("case %s has no cve", c.ID)
	}
	advs, err := s.db.Related(c.CVE)
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("subject sca: case %s: %w", c.ID, err)
	}
	if len(advs) == 0 {
		if u := s.db.Unreadable(); u != "" {
			return verdict.Verdict{}, fmt.Errorf("no readable OSV record for %s in %s: %s", c.CVE, s.db.Path(), u)
		}
		return verdict.Verdict{}, fmt.Errorf("no OSV record for %s in %s (give --advisories a database that has it)", c.CVE, s.db.Path())
	}
	snap, err := env.Snapshot(ctx)
	if err != nil {
		return verdict.Verdict{}, subject.NeedsRepo("sca", c, err)
	}
	fsys, ok := snap.FS().(deps.FS)
	if !ok {
		return verdict.Verdict{}, errors.New("subject sca: the snapshot's FS cannot list directories")
	}
	facts, err := deps.Extract(ctx, fsys)
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("subject sca: case %s: %w", c.ID, err)
	}
	return judge(c, advs, facts), nil
}

// judge is the version match: every advisory of the CVE (withdrawn ones aside), every affected
// package of the case's ecosystem (all of them when the case names none), every dependency of
// that name with a version or a lower bound.
func judge(c *suite.Case, advs []*advisory.Advisory, facts *deps.Facts) verdict.Verdict {
	eco := ""
	if c.VEX != nil {
		eco = c.VEX.Ecosystem
	}
	var live []*advisory.Advisory
	for _, a := range advs {
		if !a.IsWithdrawn() {
			live = append(live, a)
		}
	}
	if len(live) == 0 {
		return answer("false_positive", fmt.Sprintf("every OSV record of %s is withdrawn (%s)", c.CVE, ids(advs)), nil)
	}
	var findings []verdict.Finding
	var notes []string
	seen := map[string]bool{}
	for _, a := range live {
		for _, af := range a.Affected {
			if eco != "" && af.Ecosystem != eco {
				continue
			}
			for _, d := range facts.Find(af.Package) {
				if d.Ecosystem != af.Ecosystem {
					continue
				}
				v, how := versionOf(d)
				if v == "" {
					key := d.Manifest + "\x00" + d.Name
					if !seen[key] {
						seen[key] = true
						findings = append(findings, finding(a, d, "declared without a version: cannot be excluded"))
					}
					continue
				}
				hit, err := deps.Affects(af.Ecosystem, v, af)
				if err != nil {
					notes = append(notes, fmt.Sprintf("%s:%d: %v", d.Manifest, d.Line, err))
					continue
				}
				key := d.Manifest + "\x00" + d.Name + "\x00" + v
				if hit && !seen[key] {
					seen[key] = true
					findings = append(findings, finding(a, d, fmt.Sprintf("%s %s (%s) is in an affected range of %s", d.Name, v, how, a.ID)))
				}
			}
		}
	}
	if len(findings) > 0 {
		v := answer("vulnerable", fmt.Sprintf("%d affected dependency versions of %s found", len(findings), c.CVE), findings)
		v.Explanation = joinFindings(findings, notes)
		return v
	}
	why := fmt.Sprintf("no manifest of the project pins a version of %s affected by %s (%s); %d manifests read",
		packages(live, eco), c.CVE, ids(live), len(facts.Manifests))
	if n := len(facts.Problems); n > 0 { // what could not be read cannot be excluded: say so
		why += fmt.Sprintf(", %d of them not whole (first: %v)", n, facts.Problems[0])
	}
	v := answer("code_not_present", why, nil)
	v.Explanation = joinFindings(nil, append([]string{why}, notes...))
	return v
}

func answer(category, impact string, findings []verdict.Finding) verdict.Verdict {
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, Score: verdict.Float(0), ScoreSource: verdict.FromTool,
		VEX: verdict.VEXAnswer(category, impact), Findings: findings, Explanation: impact}
	if category == suite.VEXVulnerable {
		v.Label, v.Score = suite.Vul, verdict.Float(1)
	}
	return v
}

func finding(a *advisory.Advisory, d deps.Dependency, msg string) verdict.Finding {
	return verdict.Finding{File: d.Manifest, StartLine: d.Line, EndLine: d.Line, Rule: a.ID, Message: msg}
}

// versionOf is d's pinned version, else the first version its range names (">=2.0,<3" gives
// 2.0), and how it was found; "" when neither.
func versionOf(d deps.Dependency) (string, string) {
	if d.Version != "" {
		return d.Version, "pinned"
	}
	m := regexp.MustCompile(`(?:==|>=|~=|\^|~|===)\s*v?([0-9][0-9A-Za-z.+-]*)`).FindStringSubmatch(d.Range)
	if m == nil {
		return "", ""
	}
	return strings.TrimSuffix(m[1], ".*"), "the lowest version " + d.Range + " allows"
}

func ids(as []*advisory.Advisory) string {
	var s []string
	for _, a := range as {
		s = append(s, a.ID)
	}
	return strings.Join(s, ", ")
}

func packages(as []*advisory.Advisory, eco string) string {
	var s []string
	for _, a := range as {
		for _, af := range a.Affected {
			if eco == "" || af.Ecosystem == eco {
				s = append(s, af.Ecosystem+":"+af.Package)
			}
		}
	}
	if len(s) == 0 {
		return "any package of the " + eco + " ecosystem"
	}
	return strings.Join(s, ", ")
}

func joinFindings(fs []verdict.Finding, notes []string) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s:%d: %s\n", f.File, f.StartLine, f.Message)
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
