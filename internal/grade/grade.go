// Package grade grades AppSecBench answers with the record's rubric (SPEC section 3): the
// automatic parts (detection, CWE with parent/child partial credit, OWASP, severity with half
// credit one band off, false-positive avoidance on the secure twin), the CVSS distance, the
// checks of a proposed fix, and the judged parts (exploit, fix, code quality, explanation)
// through a Judge; and it summarises the grades into score.AppSec, by difficulty, language and
// archetype.
package grade

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/vulnbench/vulnbench/internal/cvss"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/appsec"
	"github.com/vulnbench/vulnbench/internal/taxonomy"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// The parts of the rubric, as score.AppSec.Parts names them.
const (
	Detection   = "detection"
	CWE         = "cwe"
	OWASP       = "owasp"
	Severity    = "severity"
	Exploit     = "exploit"
	Fix         = "fix"
	CodeQuality = "code_quality"
	Explanation = "explanation"
	FPAvoidance = "false_positive_avoidance"
)

// Parts lists the parts in rubric order.
func Parts() []string {
	return []string{Detection, CWE, OWASP, Severity, Exploit, Fix, CodeQuality, Explanation, FPAvoidance}
}

// JudgedParts are the parts a Judge grades.
func JudgedParts() []string { return []string{Exploit, Fix, CodeQuality, Explanation} }

// Weight is the part's weight in r.
func Weight(r appsec.RubricSpec, part string) float64 {
	switch part {
	case Detection:
		return r.Detection
	case CWE:
		return r.CWE
	case OWASP:
		return r.OWASP
	case Severity:
		return r.Severity
	case Exploit:
		return r.Exploit
	case Fix:
		return r.Fix
	case CodeQuality:
		return r.CodeQuality
	case Explanation:
		return r.Explanation
	case FPAvoidance:
		return r.FalsePositiveAvoidance
	}
	return 0
}

// Item is one record to grade: its ground truth, its two snippets and the answers on them
// (nil: no scored verdict).
type Item struct {
	Record     *appsec.Record
	VulCode    string
	SecureCode string
	Vul        *verdict.Verdict
	Secure     *verdict.Verdict
}

// JudgeScore is a judge's grade of one part: a fraction of the part's weight in [0,1], or
// Failed when its answer could not be read (never a silent 0).
type JudgeScore struct {
	Fraction float64
	Failed   bool
	Reason   string
}

// Judge grades the judged parts of an answer against the record's ground truth.
type Judge interface {
	Judge(ctx context.Context, part string, it *Item) (JudgeScore, error)
}

// FixChecker checks the fix an item's answer proposes (Vul.AppSec.FixCode) against its record:
// the language's syntax, and the scanners that tell the vulnerable snippet from the record's own
// secure version (a scanner that flags both tells nothing of a fix, and is not asked).
type FixChecker interface {
	CheckFix(ctx context.Context, it *Item) FixCheck
}

// FixCheckPart names fix checks among an attempt's stored grades (store.Grade.Part), and
// FixCheckVersion is the version of the checks (internal/grade/fixcheck) they were made by: bump
// it when the same fix may be checked otherwise, and stored checks of the old version are made
// again.
const (
	FixCheckPart    = "fix_check"
	FixCheckVersion = "1"
)

// ProposesFix reports whether an item's answer is one whose fix is checked: an ok verdict that
// calls the vulnerable snippet vulnerable and gives an AppSec answer.
func ProposesFix(it *Item) bool {
	v := it.Vul
	return v != nil && v.Status == verdict.OK && v.Label == suite.Vul && v.AppSec != nil
}

// The outcomes of a fix check.
const (
	SyntaxOK        = "ok"
	SyntaxError     = "error"
	SyntaxUnchecked = "unchecked"

	ScannerClean   = "clean"       // a scanner that flags the vulnerable snippet and not its secure version passes the fix
	ScannerFlagged = "flagged"     // such a scanner flags the fix
	ScannerNot     = "not checked" // no scanner for the language on PATH, or none tells the vulnerable snippet from its secure version
)

// FixCheck is what the checks said of one proposed fix, as stored with its attempt.
type FixCheck struct {
	Syntax  string `json:"syntax"`           // SyntaxOK, SyntaxError, SyntaxUnchecked
	Scanner string `json:"scanner"`          // ScannerClean, ScannerFlagged, ScannerNot
	Detail  string `json:"detail,omitempty"` // the checker's message, the scanners used
	// NotStored marks a fix whose check is not stored with its attempt (the run was made before
	// checks were stored, or with --fix-checks=false): it is counted apart, as no outcome.
	NotStored bool `json:"-"`
}

// String describes a check for a reader.
func (f FixCheck) String() string {
	return fmt.Sprintf("syntax %s, scanners %s", f.Syntax, f.Scanner)
}

// Grader grades items. Judge and Fix may be nil: the judged parts are then not graded, and no
// fix is checked.
type Grader struct {
	Rubric    appsec.RubricSpec
	Hierarchy *taxonomy.Hierarchy
	Judge     Judge
	// Fix checks proposed fixes. Stored runs read the checks stored with their attempts
	// (internal/report gives their grader a FixChecker over them); a live checker here serves
	// predictions files, which have no store.
	Fix FixChecker
	// SkipFix leaves fixes unchecked, stored or not (score --fix-checks=false), and says so.
	SkipFix bool
	// JudgeInfo names the judge in the summary.
	JudgeInfo *score.JudgeInfo
	// Concurrency is how many items GradeAll grades at once; 0: DefaultConcurrency.
	Concurrency int
}

// NewGrader is a grader of rubric v1 with MITRE's ChildOf hierarchy, and no judge.
func NewGrader() (*Grader, error) {
	h, err := taxonomy.LoadHierarchy()
	if err != nil {
		return nil, fmt.Errorf("grade: %w", err)
	}
	return &Grader{Rubric: appsec.DefaultRubric(), Hierarchy: h}, nil
}

// RecordGrade is the grade of one record.
type RecordGrade struct {
	ID, Language, Difficulty, Archetype string
	// Points of each part graded (absent: not graded).
	Points map[string]float64
	// JudgeFailed lists the judged parts whose judge answer could not be read.
	JudgeFailed []string
	Total       float64 // points out of 100, every part counted (not graded: 0)
	GradedMax   float64 // the weights of the parts graded
	CVSS        *CVSSDistance
	Fix         *FixCheck
}

// Normalised is Total scaled to 100 over GradedMax.
func (g *RecordGrade) Normalised() float64 {
	if g.GradedMax == 0 {
		return 0
	}
	return g.Total * 100 / g.GradedMax
}

// RecordOf decodes the ground truth an appsec case carries (its appsec object).
func RecordOf(c *suite.Case) (*appsec.Record, error) {
	b, err := json.Marshal(c.AppSec)
	if err != nil {
		return nil, fmt.Errorf("case %s: appsec: %w", c.ID, err)
	}
	var r appsec.Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("case %s: appsec ground truth: %w", c.ID, err)
	}
	if r.BenchmarkID == "" || r.ExpectedCWE == "" {
		return nil, fmt.Errorf("case %s: appsec ground truth has no benchmark_id or expected_cwe", c.ID)
	}
	return &r, nil
}

// answerOf is what the automatic parts read of a verdict: ok verdicts only (a failed answer
// detects nothing).
func answerOf(v *verdict.Verdict) Answer {
	if v == nil || v.Status != verdict.OK {
		return Answer{}
	}
	a := Answer{Detected: v.Label == suite.Vul}
	if len(v.CWE) > 0 {
		a.CWE = v.CWE[0]
	}
	if v.AppSec != nil {
		a.OWASP = strings.ToUpper(strings.TrimSpace(v.AppSec.OWASP))
		a.Severity = severityName(v.AppSec.Severity)
	}
	return a
}

// severityName is s as a band name (Critical, High, ...), whatever its case; "" when none.
func severityName(s string) string {
	s = strings.TrimSpace(s)
	for _, b := range cvss.Severities() {
		if strings.EqualFold(s, b) {
			return b
		}
	}
	return ""
}

// Grade grades one item: nil when the vulnerable case has no ok or failed verdict (an error
// or missing verdict is not graded; a failed one earns what a wrong answer earns).
func (g *Grader) Grade(ctx context.Context, it *Item) (*RecordGrade, error) {
	if it.Vul == nil || (it.Vul.Status != verdict.OK && it.Vul.Status != verdict.Failed) {
		return nil, nil
	}
	rec := it.Record
	var secure *Answer
	if it.Secure != nil && (it.Secure.Status == verdict.OK || it.Secure.Status == verdict.Failed) {
		a := answerOf(it.Secure)
		secure = &a
	}
	auto := Automatic(g.Rubric, g.Hierarchy, rec, answerOf(it.Vul), secure)
	out := &RecordGrade{ID: rec.BenchmarkID, Language: rec.Language, Difficulty: string(rec.Difficulty),
		Archetype: rec.Metadata.Archetype, Points: map[string]float64{}}
	for part, p := range map[string]*float64{Detection: auto.Detection, CWE: auto.CWE, OWASP: auto.OWASP,
		Severity: auto.Severity, FPAvoidance: auto.FalsePositiveAvoidance} {
		if p != nil {
			out.Points[part] = *p
		}
	}
	detected := it.Vul.Status == verdict.OK && it.Vul.Label == suite.Vul
	if detected {
		out.CVSS = Distance(rec.ExpectedCVSS, it.Vul.AppSec)
	}
	if g.Fix != nil && !g.SkipFix && ProposesFix(it) {
		fc := g.Fix.CheckFix(ctx, it)
		out.Fix = &fc
	}
	if g.Judge != nil {
		for _, part := range JudgedParts() {
			w := Weight(g.Rubric, part)
			if !detected {
				// A snippet called safe has no exploit, fix or explanation of its weakness.
				out.Points[part] = 0
				continue
			}
			js, err := g.Judge.Judge(ctx, part, it)
			if err != nil {
				return nil, fmt.Errorf("grade %s, %s: %w", rec.BenchmarkID, part, err)
			}
			if js.Failed {
				out.JudgeFailed = append(out.JudgeFailed, part)
				continue
			}
			out.Points[part] = w * min(1, max(0, js.Fraction))
		}
	}
	for part, p := range out.Points {
		out.Total += p
		out.GradedMax += Weight(g.Rubric, part)
	}
	return out, nil
}

// DefaultConcurrency is how many items GradeAll grades at once when Concurrency is 0: judge
// calls and scanners are slow, and the llm stack limits the rate itself.
const DefaultConcurrency = 8

// GradeAll grades every item, Concurrency at a time, and returns the grades in item order;
// items not graded are left out. The first error stops it.
func (g *Grader) GradeAll(ctx context.Context, items []*Item) ([]*RecordGrade, error) {
	n := g.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	out := make([]*RecordGrade, len(items))
	err := Each(ctx, len(items), n, func(ctx context.Context, i int) error {
		rg, err := g.Grade(ctx, items[i])
		out[i] = rg
		return err
	})
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(out, func(rg *RecordGrade) bool { return rg == nil }), nil
}

// Each calls fn for 0..n-1, at most workers at once, and returns the first error (the others'
// contexts are cancelled then).
func Each(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(ctx, i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
						cancel()
					}
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = context.Cause(ctx)
	}
	return first
}

// Summarise is the appsec section of the grades: means, pass rates (at the rubric's pass
// threshold), each part's mean share of its weight, the judge's failures, the CVSS distance,
// the fix checks, and the breakdown by difficulty, language and archetype.
func (g *Grader) Summarise(gs []*RecordGrade) *score.AppSec {
	pass := g.Rubric.PassThreshold
	a := &score.AppSec{Records: len(gs), Parts: map[string]float64{}, Judge: g.JudgeInfo}
	sums, ns := map[string]float64{}, map[string]int{}
	var maxSeen float64
	var cv cvssSum
	var fix score.FixChecks
	anyFix := false
	for _, rg := range gs {
		a.MeanScore += rg.Total / 100
		a.MeanGraded += rg.Normalised() / 100
		if rg.Total >= pass {
			a.PassRate++
		}
		if rg.Normalised() >= pass {
			a.PassRateGraded++
		}
		maxSeen = max(maxSeen, rg.GradedMax)
		for part, p := range rg.Points {
			sums[part] += p / Weight(g.Rubric, part)
			ns[part]++
		}
		for _, part := range rg.JudgeFailed {
			if a.JudgeFailed == nil {
				a.JudgeFailed = map[string]int{}
			}
			a.JudgeFailed[part]++
		}
		cv.add(rg.CVSS)
		if rg.Fix != nil {
			anyFix = true
			fix.Proposed++
			addFix(&fix, rg.Fix)
		}
	}
	if n := float64(len(gs)); n > 0 {
		a.MeanScore /= n
		a.MeanGraded /= n
		a.PassRate /= n
		a.PassRateGraded /= n
	}
	a.GradedMax = int(maxSeen)
	for part, s := range sums {
		a.Parts[part] = s / float64(ns[part])
	}
	a.CVSS = cv.score()
	if anyFix {
		a.Fix = &fix
	}
	a.FixSkipped = g.SkipFix
	a.ByDifficulty = groups(gs, pass, func(rg *RecordGrade) string { return rg.Difficulty })
	a.ByLanguage = groups(gs, pass, func(rg *RecordGrade) string { return rg.Language })
	a.ByArchetype = groups(gs, pass, func(rg *RecordGrade) string { return rg.Archetype })
	return a
}

func addFix(f *score.FixChecks, c *FixCheck) {
	if c.NotStored {
		f.NotStored++
		return
	}
	switch c.Syntax {
	case SyntaxOK:
		f.SyntaxOK++
	case SyntaxError:
		f.SyntaxError++
	default:
		f.SyntaxUnchecked++
	}
	switch c.Scanner {
	case ScannerClean:
		f.ScannerClean++
	case ScannerFlagged:
		f.ScannerFlagged++
	default:
		f.ScannerNot++
	}
}

func groups(gs []*RecordGrade, pass float64, key func(*RecordGrade) string) map[string]score.Group {
	out := map[string]score.Group{}
	for _, rg := range gs {
		k := key(rg)
		if k == "" {
			continue
		}
		g := out[k]
		g.N++
		g.MeanScore += rg.Total / 100
		g.MeanGraded += rg.Normalised() / 100
		if rg.Total >= pass {
			g.PassRate++
		}
		out[k] = g
	}
	for k, g := range out {
		n := float64(g.N)
		g.MeanScore /= n
		g.MeanGraded /= n
		g.PassRate /= n
		out[k] = g
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
