package judge

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/appsec"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// The thresholds a judge must reach on the calibration set before score uses it (unless
// forced): Spearman's rho of its scores against the reference scores at least MinRho, their
// mean absolute error (as fractions of the part) at most MaxMAE, the share of answers put in
// the reference's band at least MinBandAgreement, and at most MaxFailed of its replies
// unreadable.
const (
	MinRho           = 0.7
	MaxMAE           = 0.2
	MinBandAgreement = 0.6
	MaxFailed        = 0.1
)

// The qualities of a calibration answer, and the band of scores (0-10) each belongs to.
const (
	Good     = "good"      // 8-10
	Partial  = "partial"   // 4-7
	Wrong    = "wrong"     // 0-3
	OffTopic = "off-topic" // 0-3: about something else (padded answers among them)
)

// Band is the band of a 0-10 score: good, partial or wrong.
func Band(score float64) string {
	switch {
	case score >= 7.5:
		return Good
	case score >= 3.5:
		return Partial
	}
	return Wrong
}

// bandOf is the band a quality belongs to.
func bandOf(quality string) string {
	if quality == OffTopic {
		return Wrong
	}
	return quality
}

//go:embed calibration/*.yaml
var calibrationFS embed.FS

// CalRecord is the ground truth a calibration answer is graded against: a short record
// written for the set.
type CalRecord struct {
	ID          string `yaml:"id"`
	Language    string `yaml:"language"`
	CWE         string `yaml:"cwe"`
	CWEName     string `yaml:"cwe_name"`
	Title       string `yaml:"title"`
	Code        string `yaml:"code"`
	Secure      string `yaml:"secure"`
	Exploit     string `yaml:"exploit"`
	Fix         string `yaml:"fix"`
	Explanation string `yaml:"explanation"`
}

// CalAnswer is one graded answer of one part.
type CalAnswer struct {
	ID      string  `yaml:"id"`
	Record  string  `yaml:"record"`
	Part    string  `yaml:"part"`
	Quality string  `yaml:"quality"`
	Score   float64 `yaml:"score"` // the reference score, 0-10
	Text    string  `yaml:"text"`  // the answer of the part (the fix described, for fix)
	Code    string  `yaml:"code"`  // the secure code (fix, code_quality)
	Note    string  `yaml:"note"`  // why the score (for a reader)
}

// Set is the calibration set.
type Set struct {
	Records map[string]*CalRecord
	Answers []CalAnswer
}

type setFile struct {
	Records []*CalRecord `yaml:"records"`
	Answers []CalAnswer  `yaml:"answers"`
}

// LoadSet reads the embedded calibration set and checks it (Check).
func LoadSet() (*Set, error) { return loadSet(calibrationFS) }

func loadSet(fsys fs.FS) (*Set, error) {
	names, err := fs.Glob(fsys, "calibration/*.yaml")
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("judge: no calibration files (%v)", err)
	}
	s := &Set{Records: map[string]*CalRecord{}}
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("judge: %w", err)
		}
		var f setFile
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		dec.KnownFields(true)
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("judge: %s: %w", name, err)
		}
		for _, r := range f.Records {
			if _, dup := s.Records[r.ID]; dup {
				return nil, fmt.Errorf("judge: %s: record %s defined twice", name, r.ID)
			}
			s.Records[r.ID] = r
		}
		s.Answers = append(s.Answers, f.Answers...)
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return s, nil
}

// Check reports every problem of the set: each answer names a known record and part, has a
// quality, a score in 0..10 inside its quality's band and text for its part; ids are unique;
// every judged part has answers of every quality; at least 60 answers over at least 4
// languages.
func (s *Set) Check() error {
	var problems []string
	seen := map[string]bool{}
	cover := map[string]map[string]int{}
	langs := map[string]bool{}
	for _, a := range s.Answers {
		where := "answer " + a.ID
		switch {
		case a.ID == "" || seen[a.ID]:
			problems = append(problems, where+": missing or repeated id")
		case s.Records[a.Record] == nil:
			problems = append(problems, where+": unknown record "+a.Record)
		case !slices.Contains(grade.JudgedParts(), a.Part):
			problems = append(problems, where+": unknown part "+a.Part)
		case !slices.Contains([]string{Good, Partial, Wrong, OffTopic}, a.Quality):
			problems = append(problems, where+": unknown quality "+a.Quality)
		case a.Score < 0 || a.Score > 10 || Band(a.Score) != bandOf(a.Quality):
			problems = append(problems, fmt.Sprintf("%s: score %v is outside the %s band", where, a.Score, a.Quality))
		case a.Part == grade.CodeQuality && strings.TrimSpace(a.Code) == "",
			a.Part != grade.CodeQuality && strings.TrimSpace(a.Text) == "":
			problems = append(problems, where+": no answer text for its part")
		}
		seen[a.ID] = true
		if cover[a.Part] == nil {
			cover[a.Part] = map[string]int{}
		}
		cover[a.Part][a.Quality]++
		if r := s.Records[a.Record]; r != nil {
			langs[r.Language] = true
		}
	}
	for _, p := range grade.JudgedParts() {
		for _, q := range []string{Good, Partial, Wrong, OffTopic} {
			if cover[p][q] == 0 {
				problems = append(problems, fmt.Sprintf("part %s has no %s answer", p, q))
			}
		}
	}
	if len(s.Answers) < 60 {
		problems = append(problems, fmt.Sprintf("%d answers; the set needs at least 60", len(s.Answers)))
	}
	if len(langs) < 4 {
		problems = append(problems, fmt.Sprintf("%d languages; the set needs at least 4", len(langs)))
	}
	for id, r := range s.Records {
		if r.Code == "" || r.Exploit == "" || r.Fix == "" || r.Explanation == "" || r.Secure == "" {
			problems = append(problems, "record "+id+": code, secure, exploit, fix and explanation are all needed")
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("judge: calibration set: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Item is the grade.Item a calibration answer is judged as.
func (s *Set) Item(a CalAnswer) *grade.Item {
	r := s.Records[a.Record]
	rec := &appsec.Record{BenchmarkID: r.ID, Title: r.Title, Language: r.Language, ExpectedCWE: r.CWE, ExpectedCWEName: r.CWEName,
		ExploitScenario: r.Exploit, FixDescription: r.Fix, Explanation: r.Explanation, ExpectedDetection: true}
	v := &verdict.Verdict{Status: verdict.OK, Label: suite.Vul, CWE: []string{r.CWE}, AppSec: &verdict.AppSec{}}
	switch a.Part {
	case grade.Exploit:
		v.AppSec.Exploit = a.Text
	case grade.Fix:
		v.AppSec.Fix, v.AppSec.FixCode = a.Text, a.Code
	case grade.CodeQuality:
		v.AppSec.FixCode = a.Code
	case grade.Explanation:
		v.Explanation = a.Text
	}
	return &grade.Item{Record: rec, VulCode: r.Code, SecureCode: r.Secure, Vul: v}
}

// Agreement is how a judge agrees with the calibration set's reference scores.
type Agreement struct {
	N, Failed     int
	Compared      int     // answers the judge scored (N - Failed): the MAE and rho are over them
	Rho           float64 // Spearman's rho over the answers the judge scored
	MAE           float64 // mean |judge - reference| as fractions of the part
	BandAgreement float64 // share of all answers (failed ones count as disagreeing) in the reference's band
	ByPart        map[string]PartAgreement
}

// PartAgreement is the agreement on one part's answers.
type PartAgreement struct {
	N             int
	Compared      int // answers scored; MAE is over them
	MAE           float64
	BandAgreement float64
}

// Problem says why the agreement is below the thresholds, "" when it is not.
func (a Agreement) Problem() string {
	var p []string
	if a.N == 0 {
		return "no calibration answer was judged"
	}
	if f := float64(a.Failed) / float64(a.N); f > MaxFailed {
		p = append(p, fmt.Sprintf("%.0f%% of its replies unreadable (at most %.0f%%)", 100*f, 100*MaxFailed))
	}
	if a.Compared == 0 {
		return strings.Join(append(p, "nothing to compare (no reply scored): Spearman rho, MAE and band agreement all unmeasured"), ", ")
	}
	if math.IsNaN(a.Rho) || a.Rho < MinRho {
		p = append(p, fmt.Sprintf("Spearman rho %.2f < %.2f", a.Rho, MinRho))
	}
	if a.MAE > MaxMAE {
		p = append(p, fmt.Sprintf("MAE %.2f > %.2f", a.MAE, MaxMAE))
	}
	if a.BandAgreement < MinBandAgreement {
		p = append(p, fmt.Sprintf("band agreement %.2f < %.2f", a.BandAgreement, MinBandAgreement))
	}
	return strings.Join(p, ", ")
}

// Calibrate has j grade every answer of the set and measures the agreement.
func Calibrate(ctx context.Context, j grade.Judge, s *Set) (Agreement, error) {
	var ref, got []float64
	a := Agreement{N: len(s.Answers), ByPart: map[string]PartAgreement{}}
	agree := 0
	type acc struct {
		n, scored, agree int
		abs              float64
	}
	parts := map[string]*acc{}
	scores := make([]grade.JudgeScore, len(s.Answers))
	if err := grade.Each(ctx, len(s.Answers), grade.DefaultConcurrency, func(ctx context.Context, i int) error {
		js, err := j.Judge(ctx, s.Answers[i].Part, s.Item(s.Answers[i]))
		if err != nil {
			return fmt.Errorf("calibrate, answer %s: %w", s.Answers[i].ID, err)
		}
		scores[i] = js
		return nil
	}); err != nil {
		return Agreement{}, err
	}
	for i, ans := range s.Answers {
		js := scores[i]
		pa := parts[ans.Part]
		if pa == nil {
			pa = &acc{}
			parts[ans.Part] = pa
		}
		pa.n++
		if js.Failed {
			a.Failed++
			continue
		}
		pa.scored++
		score := 10 * js.Fraction
		ref, got = append(ref, ans.Score), append(got, score)
		d := math.Abs(score-ans.Score) / 10
		a.MAE += d
		pa.abs += d
		if Band(score) == bandOf(ans.Quality) {
			agree++
			pa.agree++
		}
	}
	a.Compared = len(got)
	if a.Compared > 0 {
		a.MAE /= float64(a.Compared)
	}
	a.Rho = Spearman(ref, got)
	if a.N > 0 {
		a.BandAgreement = float64(agree) / float64(a.N)
	}
	for p, pa := range parts {
		pg := PartAgreement{N: pa.n, Compared: pa.scored, BandAgreement: float64(pa.agree) / float64(pa.n)}
		if pa.scored > 0 {
			pg.MAE = pa.abs / float64(pa.scored)
		}
		a.ByPart[p] = pg
	}
	return a, nil
}

// Spearman is Spearman's rank correlation of x and y (ties get their mean rank): the Pearson
// correlation of the ranks. NaN when either has no spread or fewer than two values.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return math.NaN()
	}
	return pearson(ranks(x), ranks(y))
}

func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mean
		}
		i = j + 1
	}
	return r
}

func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// RefusedError is a judge below the calibration thresholds, refused.
type RefusedError struct {
	Model   string
	Problem string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("judge %s disagrees with the calibration set: %s; nothing was scored (see vulnbench judge calibrate --judge-model %s; --force-judge uses it anyway)",
		e.Model, e.Problem, e.Model)
}

// Gated is a judge that measures itself on the calibration set before its first grade, once,
// and then refuses to grade (a *RefusedError) when it is below the thresholds, unless Force.
// A suite with nothing to judge costs no calibration.
type Gated struct {
	Of    *Judge
	Set   *Set
	Force bool

	once sync.Once
	a    Agreement
	err  error
	ran  bool
}

// Judge implements grade.Judge.
func (g *Gated) Judge(ctx context.Context, part string, it *grade.Item) (grade.JudgeScore, error) {
	g.once.Do(func() {
		g.a, g.err = Calibrate(ctx, g.Of, g.Set)
		g.ran = g.err == nil
		if g.err == nil && g.a.Problem() != "" && !g.Force {
			g.err = &RefusedError{Model: g.Of.Spec(), Problem: g.a.Problem()}
		}
	})
	if g.err != nil {
		return grade.JudgeScore{}, g.err
	}
	return g.Of.Judge(ctx, part, it)
}

// Agreement is the calibration's result; false when it has not run (nothing was judged).
func (g *Gated) Agreement() (Agreement, bool) { return g.a, g.ran }

// NewGate is jd gated by the shipped calibration set (Force: used below the thresholds).
func NewGate(jd *Judge, force bool) (*Gated, error) {
	set, err := LoadSet()
	if err != nil {
		return nil, err
	}
	return &Gated{Of: jd, Set: set, Force: force}, nil
}

// Info is what a score says of the gated judge once it graded: its model, agreement, calls and
// cost, Forced when it is below the thresholds. False when nothing was judged (no calibration
// ran).
func (g *Gated) Info() (*score.JudgeInfo, Agreement, bool) {
	a, ok := g.Agreement()
	if !ok {
		return nil, a, false
	}
	info := g.Of.Info(a)
	info.Forced = a.Problem() != ""
	return info, a, true
}
