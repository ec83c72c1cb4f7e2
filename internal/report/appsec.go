package report

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/stats"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// appsecRecord is one AppSecBench record of the truth: its ground truth, its two cases (their
// positions in Truth.Cases, -1 when absent or not kept) and their code.
type appsecRecord struct {
	item     grade.Item // Record, VulCode, SecureCode; the answers are the run's
	vul, ben int
}

// appsecTruth is the truth's AppSecBench records, by pair.
type appsecTruth struct {
	records []*appsecRecord
	byPair  map[string]int
	// skipped counts the appsec cases without a readable AppSecBench ground truth (no appsec
	// object, or one without the record's fields): they are scored as any case, not graded;
	// why is the first one's reason.
	skipped int
	why     error
}

// addAppSec keeps what grading needs of appsec case c, at position i of Cases.
func (t *Truth) addAppSec(c *suite.Case, i int) {
	if t.appsec == nil {
		t.appsec = &appsecTruth{byPair: map[string]int{}}
	}
	a := t.appsec
	key := c.Pair
	if key == "" {
		key = c.ID
	}
	j, ok := a.byPair[key]
	if !ok {
		rec, err := grade.RecordOf(c)
		if err != nil {
			a.skipped++
			if a.why == nil {
				a.why = err
			}
			return
		}
		a.byPair[key] = len(a.records)
		j = len(a.records)
		a.records = append(a.records, &appsecRecord{item: grade.Item{Record: rec}, vul: -1, ben: -1})
	}
	r := a.records[j]
	if c.Label == suite.Vul {
		r.vul, r.item.VulCode = i, c.Code
	} else {
		r.ben, r.item.SecureCode = i, c.Code
	}
}

// HasAppSec reports whether the truth holds AppSecBench records, so that scoring grades them.
func (t *Truth) HasAppSec() bool { return t.appsec != nil && len(t.appsec.records) > 0 }

// keepAppSec records v when case i is half of an AppSecBench record: grading reads the whole
// answer.
func (r *Run) keepAppSec(t *Truth, i int, v verdict.Verdict) {
	if !t.HasAppSec() {
		return
	}
	if r.appsecAnswers == nil {
		r.appsecAnswers = map[int]map[int]*verdict.Verdict{}
	}
	m := r.appsecAnswers[v.Repeat]
	if m == nil {
		m = map[int]*verdict.Verdict{}
		r.appsecAnswers[v.Repeat] = m
	}
	m[i] = &v
}

// GradeStore is a store that keeps grading results with their attempts (store.Store.Grades):
// a stored run's fix checks are read from it, never made while a report is built.
type GradeStore interface {
	Grades(ctx context.Context, runID, part, version string, fn func(store.Grade) error) error
}

// grader is the grader of the run's AppSecBench answers: g (nil: the automatic parts), and for a
// stored run the fix checks stored with its attempts (of grade.FixCheckVersion) in place of g's
// checker, unless g skips them. A stored run whose store keeps no grades has none.
func (r *Run) grader(ctx context.Context, st Store, t *Truth, g *grade.Grader) (*grade.Grader, error) {
	if !t.HasAppSec() || r.Stored == nil || (g != nil && g.SkipFix) {
		return g, nil
	}
	if g == nil {
		var err error
		if g, err = grade.NewGrader(); err != nil {
			return nil, err
		}
	}
	own := *g
	own.Fix = nil
	gs, ok := st.(GradeStore)
	if !ok {
		return &own, nil
	}
	stored := storedFixes{}
	err := gs.Grades(ctx, r.ID, grade.FixCheckPart, grade.FixCheckVersion, func(sg store.Grade) error {
		var fc grade.FixCheck
		if err := json.Unmarshal(sg.Result, &fc); err != nil {
			return fmt.Errorf("run %s: the fix check of case %s (repeat %d, attempt %d): %w", r.ID, sg.CaseID, sg.Repeat, sg.Attempt, err)
		}
		stored[attemptKey{sg.CaseID, sg.Repeat, sg.Attempt}] = fc
		return nil
	})
	if err != nil {
		return nil, err
	}
	own.Fix = stored
	return &own, nil
}

type attemptKey struct {
	caseID          string
	repeat, attempt int
}

// storedFixes are the fix checks stored with a run's attempts, by attempt.
type storedFixes map[attemptKey]grade.FixCheck

// CheckFix implements grade.FixChecker: the stored check, or one marked NotStored.
func (s storedFixes) CheckFix(_ context.Context, it *grade.Item) grade.FixCheck {
	if fc, ok := s[attemptKey{it.Vul.CaseID, it.Vul.Repeat, it.Vul.Attempt}]; ok {
		return fc
	}
	return grade.FixCheck{NotStored: true}
}

// GradeAppSec grades the run's answers on the truth's AppSecBench records with g (nil: the
// automatic parts only), one summary per repeat, which Score puts in each repeat's result.
func (r *Run) GradeAppSec(ctx context.Context, t *Truth, g *grade.Grader) error {
	if t.appsec == nil {
		return nil
	}
	if t.appsec.skipped > 0 {
		r.Notes = append(r.Notes, Note{Warning: true, Text: fmt.Sprintf("%s: %d appsec cases have no AppSecBench ground truth and are not graded on the rubric (%v)",
			t.Source, t.appsec.skipped, t.appsec.why)})
	}
	if len(t.appsec.records) == 0 {
		return nil
	}
	if g == nil {
		var err error
		if g, err = grade.NewGrader(); err != nil {
			return err
		}
	}
	repeats := make([]int, 0, len(r.Answers))
	for k := range r.Answers {
		repeats = append(repeats, k)
	}
	if r.Stored != nil {
		for k := 0; k < r.Stored.Repeats; k++ {
			if !slices.Contains(repeats, k) {
				repeats = append(repeats, k)
			}
		}
	}
	slices.Sort(repeats)
	r.appsec = map[int]*score.AppSec{}
	r.appsecPoints = map[int]map[int]float64{}
	r.appsecPass = g.Rubric.PassThreshold
	vulOf := map[string]int{}
	for _, rec := range t.appsec.records {
		vulOf[rec.item.Record.BenchmarkID] = rec.vul
	}
	notStored := 0
	for _, k := range repeats {
		answers := r.appsecAnswers[k]
		items := make([]*grade.Item, 0, len(t.appsec.records))
		for _, rec := range t.appsec.records {
			if rec.vul < 0 {
				continue
			}
			it := rec.item
			it.Vul = answers[rec.vul]
			if rec.ben >= 0 {
				it.Secure = answers[rec.ben]
			}
			items = append(items, &it)
		}
		gs, err := g.GradeAll(ctx, items)
		if err != nil {
			return fmt.Errorf("run %s, repeat %d: %w", r.Name, k, err)
		}
		r.appsec[k] = g.Summarise(gs)
		points := map[int]float64{}
		for _, rg := range gs {
			points[vulOf[rg.ID]] = rg.Total
		}
		r.appsecPoints[k] = points
		if f := r.appsec[k].Fix; f != nil {
			notStored = max(notStored, f.NotStored)
		}
	}
	if notStored > 0 {
		r.Notes = append(r.Notes, Note{Warning: true, Text: fmt.Sprintf("run %s: %d proposed fixes have no stored fix check (the run was made before checks were stored, or with --fix-checks=false): 'vulnbench grade --run %s' checks them and stores the results",
			r.ID, notStored, r.ID)})
	}
	return nil
}

// appsecMeans are the AppSecBench figures whose intervals RunIntervals computes: the mean score
// and the pass rate, each record's points counted in the unit of its vulnerable case, per repeat
// as keys.
func (r *Run) appsecMeans(t *Truth, keys []int) []score.UnitMean {
	if len(r.appsecPoints) == 0 {
		return nil
	}
	u := score.UnitsOf(t.Cases)
	mean := score.UnitMean{Set: func(ci *score.CI, iv stats.Interval) { ci.MeanScore = &iv }}
	pass := score.UnitMean{Set: func(ci *score.CI, iv stats.Interval) { ci.PassRate = &iv }}
	for _, k := range keys {
		ms, ps, n := make([]float64, u.N), make([]float64, u.N), make([]float64, u.N)
		for i, points := range r.appsecPoints[k] {
			unit := u.Of[i]
			ms[unit] += points / 100
			n[unit]++
			if points >= r.appsecPass {
				ps[unit]++
			}
		}
		mean.Sum, mean.N = append(mean.Sum, ms), append(mean.N, n)
		pass.Sum, pass.N = append(pass.Sum, ps), append(pass.N, n)
	}
	return []score.UnitMean{mean, pass}
}
