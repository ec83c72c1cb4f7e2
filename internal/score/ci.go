package score

import (
	"fmt"

	"github.com/vulnbench/vulnbench/internal/stats"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Defaults of bootstrap intervals.
const (
	DefaultResamples = 1000
	DefaultLevel     = 0.95
	// MinClusters is the fewest distinct projects for which intervals resample projects: with
	// fewer, a cluster bootstrap is too coarse and units fall back to pairs or cases.
	MinClusters = 10
	// DrawBudget caps resamples x units: above it the number of resamples is reduced (never
	// below MinResamples) so that intervals over a million cases take about a second.
	DrawBudget   = 100_000_000
	MinResamples = 200
)

// The units that bootstrap intervals resample.
const (
	ByProject = "project" // every case of a drawn project (cases without one: by pair, else alone)
	ByPair    = "pair"    // both cases of a drawn pair together; unpaired cases alone
	ByCase    = "case"
)

// CIOptions are the choices of bootstrap intervals.
type CIOptions struct {
	Resamples int     // 0 means DefaultResamples
	Seed      uint64  // fixes every resample
	Level     float64 // 0 means DefaultLevel
}

func (o CIOptions) norm() CIOptions {
	if o.Resamples <= 0 {
		o.Resamples = DefaultResamples
	}
	if o.Level <= 0 || o.Level >= 1 {
		o.Level = DefaultLevel
	}
	return o
}

// CI holds percentile bootstrap confidence intervals of a score (RunIntervals). PAcc is nil
// without pairs, StatusF1 and MacroF1 without vex cases, MeanScore and PassRate without
// AppSecBench records graded. Resamples is the number actually drawn (see DrawBudget); By names
// the unit resampled and Units how many there were; Repeats, for a run of several, is how many
// repeats each resample drew (with replacement).
type CI struct {
	Level     float64         `json:"level"`
	Resamples int             `json:"resamples"`
	Requested int             `json:"requested,omitempty"` // set when Resamples was reduced
	Seed      uint64          `json:"seed"`
	By        string          `json:"by"`
	Units     int             `json:"units"`
	Repeats   int             `json:"repeats,omitempty"`
	F1        stats.Interval  `json:"f1"`
	PAcc      *stats.Interval `json:"pacc,omitempty"`
	Accuracy  stats.Interval  `json:"accuracy"`
	StatusF1  *stats.Interval `json:"status_f1,omitempty"`
	MacroF1   *stats.Interval `json:"justification_macro_f1,omitempty"`
	// MacroF1Lenient is the lenient justification macro-F1's, when some case has alternatives.
	MacroF1Lenient *stats.Interval `json:"justification_macro_f1_lenient,omitempty"`
	MeanScore      *stats.Interval `json:"mean_score,omitempty"`
	PassRate       *stats.Interval `json:"pass_rate,omitempty"`
}

// Units assigns every case to a resampling unit.
type Units struct {
	Of []int32 // case index -> unit
	N  int
	By string
}

// UnitsOf chooses the resampling units of cases. When the cases name at least MinClusters
// projects, a unit is a project (a project's pairs, commits and near-copies stay together: the
// dependence that inflates naive intervals); a case without a project is a unit with its pair
// twin, or alone. Otherwise, when the cases have pairs, a unit is a pair (both cases) and an
// unpaired case is alone; else every case is a unit.
func UnitsOf(cases []Case) Units {
	projects := map[string]int32{}
	for i := range cases {
		if p := cases[i].Project(); p != "" {
			if _, ok := projects[p]; !ok {
				projects[p] = int32(len(projects))
			}
		}
	}
	u := Units{Of: make([]int32, len(cases)), By: ByCase}
	byProject := len(projects) >= MinClusters
	next := int32(0)
	if byProject {
		u.By = ByProject
		next = int32(len(projects))
	}
	pairs := map[int32]int32{}
	for i := range cases {
		c := &cases[i]
		if byProject && c.Project() != "" {
			u.Of[i] = projects[c.Project()]
			continue
		}
		if c.Pair != 0 {
			if !byProject {
				u.By = ByPair
			}
			k, ok := pairs[c.Pair]
			if !ok {
				k = next
				next++
				pairs[c.Pair] = k
			}
			u.Of[i] = k
			continue
		}
		u.Of[i] = next
		next++
	}
	u.N = int(next)
	return u
}

// Tally is what one unit adds to the figures that intervals cover.
type Tally struct {
	TP, FP, TN, FN, B int32 // B: failed ben verdicts in the denominators (UnparsedFailed)
	Pairs, PC         int32
}

func (t *Tally) addW(o Tally, w int32) {
	t.TP += w * o.TP
	t.FP += w * o.FP
	t.TN += w * o.TN
	t.FN += w * o.FN
	t.B += w * o.B
	t.Pairs += w * o.Pairs
	t.PC += w * o.PC
}

// F1 is 2TP / (2TP + FP + FN), as Compute.
func (t Tally) F1() float64 { return ratio(int(2*t.TP), int(2*t.TP+t.FP+t.FN)) }

// Accuracy is as Compute's.
func (t Tally) Accuracy() float64 { return ratio(int(t.TP+t.TN), int(t.TP+t.FP+t.TN+t.FN+t.B)) }

// PAcc is the share of scored pairs predicted correctly.
func (t Tally) PAcc() float64 { return ratio(int(t.PC), int(t.Pairs)) }

// Tallies counts each unit's contribution under Compute's rules (see Compute): summing them all
// gives Compute's binary counts and pairwise P-C.
func (u Units) Tallies(cases []Case, answers []Answer, opt Options) []Tally {
	opt = opt.Resolve(cases)
	benMode := opt.UnparsedAs == UnparsedBen
	ts := make([]Tally, u.N)
	outs := make([]outcome, len(cases))
	for i := range cases {
		c := &cases[i]
		if i < len(answers) {
			outs[i] = answers[i].out
		}
		var cf confusion
		cf.add(c.Label(), outs[i], benMode)
		t := &ts[u.Of[i]]
		t.TP += int32(cf.tp)
		t.FP += int32(cf.fp)
		t.TN += int32(cf.tn)
		t.FN += int32(cf.fn)
		if !benMode {
			t.B += int32(cf.failedBen)
		}
	}
	for _, s := range pairSlots(cases) {
		v, b, ok := s.preds(outs, benMode)
		if !ok {
			continue
		}
		t := &ts[u.Of[s.vul]]
		t.Pairs++
		if v == suite.Vul && b == suite.Ben {
			t.PC++
		}
	}
	return ts
}

// resamples is how many resamples to draw over n units: requested, or fewer above DrawBudget.
func resamples(requested, n int) int {
	if n > 0 && requested*n > DrawBudget {
		return max(MinResamples, DrawBudget/n)
	}
	return requested
}

// sum adds the tallies with multiplicities w.
func sum(ts []Tally, w []int32) Tally {
	var s Tally
	for i := range ts {
		if w[i] != 0 {
			s.addW(ts[i], w[i])
		}
	}
	return s
}

// Intervals computes percentile bootstrap intervals of one repeat's figures (RunIntervals).
func Intervals(cases []Case, answers []Answer, opt Options, co CIOptions) *CI {
	return RunIntervals(cases, [][]Answer{answers}, opt, co)
}

func ones(n int) []int32 {
	w := make([]int32, n)
	for i := range w {
		w[i] = 1
	}
	return w
}

// Delta is a difference A - B with its paired bootstrap interval.
type Delta struct {
	Value float64        `json:"value"`
	CI    stats.Interval `json:"ci"`
}

// Deltas holds paired bootstrap differences A - B; PAcc is nil without pairs.
type Deltas struct {
	Level     float64 `json:"level"`
	Resamples int     `json:"resamples"`
	Requested int     `json:"requested,omitempty"`
	Seed      uint64  `json:"seed"`
	By        string  `json:"by"`
	Units     int     `json:"units"`
	F1        Delta   `json:"f1"`
	PAcc      *Delta  `json:"pacc,omitempty"`
	Accuracy  Delta   `json:"accuracy"`
}

// PairedDeltas is the paired bootstrap of the differences in F1, pAcc and accuracy between two
// subjects' answers about the same cases: each resample draws the same units for both.
func PairedDeltas(cases []Case, a, b []Answer, opt Options, co CIOptions) (*Deltas, error) {
	if len(a) > len(cases) || len(b) > len(cases) {
		return nil, fmt.Errorf("paired deltas: more answers than cases")
	}
	co = co.norm()
	u := UnitsOf(cases)
	ta, tb := u.Tallies(cases, a, opt), u.Tallies(cases, b, opt)
	w := ones(u.N)
	sa, sb := sum(ta, w), sum(tb, w)
	reps := resamples(co.Resamples, u.N)
	d := &Deltas{Level: co.Level, Resamples: reps, Seed: co.Seed, By: u.By, Units: u.N,
		F1: Delta{Value: sa.F1() - sb.F1()}, Accuracy: Delta{Value: sa.Accuracy() - sb.Accuracy()}}
	if reps != co.Resamples {
		d.Requested = co.Resamples
	}
	f1 := make([]float64, reps)
	acc := make([]float64, reps)
	pacc := make([]float64, reps)
	r := stats.NewResampler(u.N, co.Seed)
	for i := 0; i < reps; i++ {
		w := r.Next()
		x, y := sum(ta, w), sum(tb, w)
		f1[i], acc[i], pacc[i] = x.F1()-y.F1(), x.Accuracy()-y.Accuracy(), x.PAcc()-y.PAcc()
	}
	d.F1.CI = stats.Percentile(f1, co.Level)
	d.Accuracy.CI = stats.Percentile(acc, co.Level)
	if sa.Pairs > 0 || sb.Pairs > 0 {
		d.PAcc = &Delta{Value: sa.PAcc() - sb.PAcc(), CI: stats.Percentile(pacc, co.Level)}
	}
	return d, nil
}

// Correct says, per case, whether an answer is right: judged is false for error and missing
// verdicts (left out of paired tests); a failed verdict is wrong under UnparsedFailed and a
// prediction of ben under UnparsedBen.
func Correct(label suite.Label, a Answer, opt Options) (correct, judged bool) {
	p, ok := pairPred(label, a.out, opt.UnparsedAs == UnparsedBen)
	if !ok {
		return false, false
	}
	return p == label, true
}
