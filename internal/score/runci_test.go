package score

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vulnbench/vulnbench/internal/stats"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// vexTask is n vex cases of random categories with answers right about a third of the time,
// else any category, failed, an error or missing.
func vexTask(rng *rand.Rand, n int) ([]Case, []Answer) {
	var cs []Case
	var as []Answer
	for i := 0; i < n; i++ {
		t := suite.VEXCategories[rng.IntN(len(suite.VEXCategories))]
		cs = append(cs, Case{ID: string(rune('a' + i)), Vul: t == suite.VEXVulnerable, VEX: VEXCategory(t)})
		a := suite.VEXCategories[rng.IntN(len(suite.VEXCategories))]
		if rng.IntN(3) == 0 {
			a = t
		}
		l := suite.Ben
		if a == suite.VEXVulnerable {
			l = suite.Vul
		}
		v := verdict.Verdict{Status: verdict.OK, Label: l, VEX: &verdict.VEX{Category: a}}
		switch rng.IntN(8) {
		case 0:
			v = verdict.Verdict{Status: verdict.Failed}
		case 1:
			v = verdict.Verdict{Status: verdict.Error}
		case 2:
			v = verdict.Verdict{}
		}
		if v.Status == "" {
			as = append(as, Answer{})
		} else {
			as = append(as, AnswerOf(v))
		}
	}
	return cs, as
}

// A resample drawing every unit once is the score itself: the bootstrap counts as Compute does.
func TestVEXResampleOfEveryUnitIsTheScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	nl := len(VEXLabels())
	m := make([][]int, nl)
	for i := range m {
		m[i] = make([]int, nl)
	}
	for trial := 0; trial < 300; trial++ {
		cs, as := vexTask(rng, 1+rng.IntN(80))
		if trial%2 == 1 { // alternatives on some cases: the lenient figure too
			for i := range cs {
				if rng.IntN(3) == 0 {
					cs[i].VEXAlt = VEXAlternatives([]string{suite.VEXCategories[rng.IntN(len(suite.VEXCategories))]})
				}
			}
		}
		u := UnitsOf(cs)
		sf, mf, lf := vexResample(vexUnits(cs, as, u), ones(u.N), m)
		x := Compute(cs, as, Options{}).VEX
		if math.Abs(sf-x.StatusF1) > 1e-12 || math.Abs(mf-x.JustificationMacroF1) > 1e-12 {
			t.Fatalf("trial %d: resample of every unit: status F1 %v, macro-F1 %v; Compute: %v, %v", trial, sf, mf, x.StatusF1, x.JustificationMacroF1)
		}
		if (x.JustificationMacroF1Lenient != nil) != vexAltAny(cs) || x.JustificationMacroF1Lenient != nil && math.Abs(lf-*x.JustificationMacroF1Lenient) > 1e-12 {
			t.Fatalf("trial %d: resample of every unit: lenient macro-F1 %v; Compute: %v", trial, lf, x.JustificationMacroF1Lenient)
		}
	}
}

// Intervals over repeats: identical repeats give the one repeat's intervals; a run right on
// every case in one repeat and wrong in the other spans both, as the mean over drawn repeats
// does; the figures are seeded.
func TestRunIntervalsOverRepeats(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cs, as := vexTask(rng, 40)
	co := CIOptions{Resamples: 400, Seed: 9}
	one := RunIntervals(cs, [][]Answer{as}, Options{}, co)
	same := RunIntervals(cs, [][]Answer{as, as, as}, Options{}, co)
	if one.F1 != same.F1 || *one.StatusF1 != *same.StatusF1 || *one.MacroF1 != *same.MacroF1 || same.Repeats != 3 || one.Repeats != 0 {
		t.Errorf("identical repeats: %+v, one repeat %+v", same, one)
	}
	if *one.StatusF1 != *Intervals(cs, as, Options{}, co).StatusF1 || RunIntervals(cs, [][]Answer{as}, Options{}, co).F1 != one.F1 {
		t.Error("the intervals of one repeat are not Intervals', or not seeded")
	}
	right, wrong := make([]Answer, len(cs)), make([]Answer, len(cs))
	for i, c := range cs {
		cat := suite.VEXCategories[c.VEX-1]
		other := suite.VEXVulnerable
		if cat == suite.VEXVulnerable {
			other = "code_not_present"
		}
		right[i] = AnswerOf(verdict.Verdict{Status: verdict.OK, Label: c.Label(), VEX: &verdict.VEX{Category: cat}})
		wrong[i] = AnswerOf(verdict.Verdict{Status: verdict.OK, Label: c.Label().Opposite(), VEX: &verdict.VEX{Category: other}})
	}
	both := RunIntervals(cs, [][]Answer{right, wrong}, Options{}, co)
	if *both.MacroF1 != (stats.Interval{0, 1}) || both.F1 != (stats.Interval{0, 1}) {
		t.Errorf("a right and a wrong repeat: macro-F1 %v, F1 %v; want [0, 1] (the resamples that drew one repeat twice)", *both.MacroF1, both.F1)
	}
	for _, iv := range []stats.Interval{*one.StatusF1, *one.MacroF1, one.F1} {
		if !(iv[0] <= iv[1]) || iv[0] < 0 || iv[1] > 1 {
			t.Errorf("interval %v", iv)
		}
	}
}

// A unit mean's interval: a constant is its own interval; values of 0 and 1 half each give an
// interval round 1/2.
func TestUnitMeanIntervals(t *testing.T) {
	var cs []Case
	for i := 0; i < 100; i++ {
		cs = append(cs, Case{ID: string(rune(i))})
	}
	u := UnitsOf(cs)
	constant, half := make([]float64, u.N), make([]float64, u.N)
	n := make([]float64, u.N)
	for i := range constant {
		constant[i], half[i], n[i] = 0.7, float64(i%2), 1
	}
	var got [2]stats.Interval
	RunIntervals(cs, nil, Options{}, CIOptions{Resamples: 500, Seed: 3},
		UnitMean{Sum: [][]float64{constant}, N: [][]float64{n}, Set: func(_ *CI, iv stats.Interval) { got[0] = iv }},
		UnitMean{Sum: [][]float64{half}, N: [][]float64{n}, Set: func(_ *CI, iv stats.Interval) { got[1] = iv }})
	if math.Abs(got[0][0]-0.7) > 1e-12 || math.Abs(got[0][1]-0.7) > 1e-12 {
		t.Errorf("a constant's interval %v", got[0])
	}
	if !(got[1][0] > 0.35 && got[1][0] < 0.5 && got[1][1] > 0.5 && got[1][1] < 0.65) {
		t.Errorf("half ones: interval %v", got[1])
	}
}

// Two runs compared over every repeat: a run against itself differs by nothing; each side's
// figure is the mean of its repeats' figures; the interval holds the difference.
func TestPairedVEXDeltas(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cs, a0 := vexTask(rng, 40)
	_, a1 := vexTask(rng, 40)
	_, b0 := vexTask(rng, 40)
	co := CIOptions{Resamples: 300, Seed: 2}
	self := PairedVEXDeltas(cs, [][]Answer{a0, a1}, [][]Answer{a0, a1}, co)
	if self.StatusF1.Value != 0 || self.MacroF1.Value != 0 || self.RepeatsA != 2 {
		t.Errorf("a run against itself: %+v", self)
	}
	d := PairedVEXDeltas(cs, [][]Answer{a0, a1}, [][]Answer{b0}, co)
	r0, r1, rb := Compute(cs, a0, Options{}).VEX, Compute(cs, a1, Options{}).VEX, Compute(cs, b0, Options{}).VEX
	if math.Abs(d.StatusF1.A-(r0.StatusF1+r1.StatusF1)/2) > 1e-12 || math.Abs(d.MacroF1.B-rb.JustificationMacroF1) > 1e-12 {
		t.Errorf("A %v, want the mean of %v and %v; B %v, want %v", d.StatusF1.A, r0.StatusF1, r1.StatusF1, d.MacroF1.B, rb.JustificationMacroF1)
	}
	for _, x := range []VEXDelta{d.StatusF1, d.MacroF1} {
		if !(x.CI[0] <= x.Value && x.Value <= x.CI[1]) {
			t.Errorf("delta %v outside its interval %v", x.Value, x.CI)
		}
	}
	if PairedVEXDeltas([]Case{{ID: "x"}}, [][]Answer{nil}, [][]Answer{nil}, co) != nil {
		t.Error("deltas without vex cases")
	}
}

// The lenient macro-F1 compared by hand: two cases, code_not_present (alternative
// code_not_reachable) and vulnerable; A answers code_not_reachable and vulnerable, B
// code_not_present and vulnerable. Strict: A gets macro-F1 1/2 (code_not_present F1 0,
// vulnerable 1), B 1; lenient: both 1. A run without alternatives has no lenient figure.
func TestPairedVEXDeltasLenient(t *testing.T) {
	cs := []Case{
		{ID: "a", VEX: VEXCategory("code_not_present"), VEXAlt: VEXAlternatives([]string{"code_not_reachable"})},
		{ID: "b", Vul: true, VEX: VEXCategory("vulnerable")},
	}
	ans := func(cats ...string) []Answer {
		var as []Answer
		for _, c := range cats {
			l := suite.Ben
			if c == suite.VEXVulnerable {
				l = suite.Vul
			}
			as = append(as, AnswerOf(verdict.Verdict{Status: verdict.OK, Label: l, VEX: &verdict.VEX{Category: c}}))
		}
		return as
	}
	a, b := ans("code_not_reachable", "vulnerable"), ans("code_not_present", "vulnerable")
	co := CIOptions{Resamples: 200, Seed: 4}
	d := PairedVEXDeltas(cs, [][]Answer{a}, [][]Answer{b}, co)
	if d.MacroF1.A != 0.5 || d.MacroF1.B != 1 || d.MacroF1Lenient == nil || d.MacroF1Lenient.A != 1 || d.MacroF1Lenient.B != 1 || d.MacroF1Lenient.Value != 0 {
		t.Errorf("strict %+v, lenient %+v; want strict A 0.5 B 1, lenient A 1 B 1", d.MacroF1, d.MacroF1Lenient)
	}
	ci := RunIntervals(cs, [][]Answer{a}, Options{}, co)
	if ci.MacroF1Lenient == nil || ci.MacroF1Lenient[0] != 1 || ci.MacroF1Lenient[1] != 1 {
		t.Errorf("lenient interval of a run right leniently on every case: %v, want [1, 1]", ci.MacroF1Lenient)
	}
	cs[0].VEXAlt = 0
	if d := PairedVEXDeltas(cs, [][]Answer{a}, [][]Answer{b}, co); d.MacroF1Lenient != nil {
		t.Errorf("a lenient delta without alternatives: %+v", d.MacroF1Lenient)
	}
	if ci := RunIntervals(cs, [][]Answer{a}, Options{}, co); ci.MacroF1Lenient != nil {
		t.Errorf("a lenient interval without alternatives: %v", ci.MacroF1Lenient)
	}
}
