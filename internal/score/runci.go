package score

import (
	"math/rand/v2"

	"github.com/vulnbench/vulnbench/internal/stats"
)

// UnitMean is a figure that is a mean over units (an AppSecBench record's points, whether it
// passed): per repeat, each unit's sum and count. A resample's figure is Σ w·Sum / Σ w·N over the
// units drawn (w their multiplicity), averaged over the repeats drawn.
type UnitMean struct {
	Sum, N [][]float64 // [repeat][unit], the units of UnitsOf(cases)
	// Set puts the figure's interval in ci.
	Set func(ci *CI, iv stats.Interval)
}

// vexUnit is what one unit adds to the VEX figures of one repeat: the status counts and the
// confusion matrix's cells (truth × len(VEXLabels()) + answer, one per case); lenient are the
// cells of the lenient matrix (an answer among the case's alternatives taken as its category),
// when some case has alternatives.
type vexUnit struct {
	tp, fp, fn int32
	cells      []int16
	lenient    []int16
}

// RunIntervals computes percentile bootstrap intervals of a run's figures over its repeats
// (answers[k] are repeat k's): F1, accuracy and pAcc (with pairs), VEX-Bench's status F1 and
// justification macro-F1 (with vex cases), and the means given. Each resample draws the units
// (projects, pairs or cases: UnitsOf) with replacement and, for a run of several repeats, as many
// repeats with replacement; a figure of a resample is its mean over the repeats drawn, on the
// units drawn, so that the interval holds both the cases' and the repeats' variation. The units
// are drawn from the stream Intervals draws them from, the repeats from a second one: a run of
// one repeat has the intervals Intervals gives it.
func RunIntervals(cases []Case, answers [][]Answer, opt Options, co CIOptions, means ...UnitMean) *CI {
	co = co.norm()
	if len(answers) == 0 {
		answers = [][]Answer{nil}
	}
	u := UnitsOf(cases)
	nr := len(answers)
	ts := make([][]Tally, nr)
	vx := make([][]vexUnit, nr)
	hasPairs, hasVEX := false, false
	for k, as := range answers {
		ts[k] = u.Tallies(cases, as, opt)
		hasPairs = hasPairs || sum(ts[k], ones(len(ts[k]))).Pairs > 0
		vx[k], hasVEX = vexUnits(cases, as, u), hasVEX || vexUnitsAny(cases)
	}
	reps := resamples(co.Resamples, u.N*nr)
	ci := &CI{Level: co.Level, Resamples: reps, Seed: co.Seed, By: u.By, Units: u.N}
	if nr > 1 {
		ci.Repeats = nr
	}
	if reps != co.Resamples {
		ci.Requested = co.Resamples
	}
	f1, acc, pacc := make([]float64, reps), make([]float64, reps), make([]float64, reps)
	var sf1, macro, lmacro []float64
	hasAlt := vexAltAny(cases)
	if hasVEX {
		sf1, macro = make([]float64, reps), make([]float64, reps)
	}
	if hasVEX && hasAlt {
		lmacro = make([]float64, reps)
	}
	ms := make([][]float64, len(means))
	for j := range ms {
		ms[j] = make([]float64, reps)
	}
	r := stats.NewResampler(u.N, co.Seed)
	pick := rand.New(rand.NewPCG(co.Seed, 0x6a09e667f3bcc909)) // the repeats drawn
	drawn := make([]int, nr)
	nl := len(VEXLabels())
	m := make([][]int, nl)
	for i := range m {
		m[i] = make([]int, nl)
	}
	for i := 0; i < reps; i++ {
		w := r.Next()
		if nr == 1 {
			drawn[0] = 0
		} else {
			for j := range drawn {
				drawn[j] = pick.IntN(nr)
			}
		}
		for _, k := range drawn {
			s := sum(ts[k], w)
			f1[i] += s.F1()
			acc[i] += s.Accuracy()
			pacc[i] += s.PAcc()
			if hasVEX {
				sf, mf, lf := vexResample(vx[k], w, m)
				sf1[i] += sf
				macro[i] += mf
				if lmacro != nil {
					lmacro[i] += lf
				}
			}
			for j, mean := range means {
				var num, den float64
				for unit, wu := range w {
					if wu != 0 && k < len(mean.Sum) {
						num += float64(wu) * mean.Sum[k][unit]
						den += float64(wu) * mean.N[k][unit]
					}
				}
				if den > 0 {
					ms[j][i] += num / den
				}
			}
		}
		n := float64(nr)
		f1[i], acc[i], pacc[i] = f1[i]/n, acc[i]/n, pacc[i]/n
		if hasVEX {
			sf1[i], macro[i] = sf1[i]/n, macro[i]/n
		}
		if lmacro != nil {
			lmacro[i] /= n
		}
		for j := range ms {
			ms[j][i] /= n
		}
	}
	ci.F1 = stats.Percentile(f1, co.Level)
	ci.Accuracy = stats.Percentile(acc, co.Level)
	if hasPairs {
		p := stats.Percentile(pacc, co.Level)
		ci.PAcc = &p
	}
	if hasVEX {
		s, mf := stats.Percentile(sf1, co.Level), stats.Percentile(macro, co.Level)
		ci.StatusF1, ci.MacroF1 = &s, &mf
	}
	if lmacro != nil {
		lf := stats.Percentile(lmacro, co.Level)
		ci.MacroF1Lenient = &lf
	}
	for j, mean := range means {
		mean.Set(ci, stats.Percentile(ms[j], co.Level))
	}
	return ci
}

// vexAltAny reports whether some vex case has alternatives (the lenient figures exist).
func vexAltAny(cases []Case) bool {
	for i := range cases {
		if cases[i].VEX > 0 && cases[i].VEXAlt != 0 {
			return true
		}
	}
	return false
}

func vexUnitsAny(cases []Case) bool {
	for i := range cases {
		if cases[i].VEX > 0 {
			return true
		}
	}
	return false
}

// vexUnits is each unit's contribution to the VEX figures under answers (nil without vex cases).
func vexUnits(cases []Case, answers []Answer, u Units) []vexUnit {
	if !vexUnitsAny(cases) {
		return nil
	}
	nl := len(VEXLabels())
	vs := make([]vexUnit, u.N)
	alt := vexAltAny(cases)
	for i := range cases {
		t := cases[i].VEX
		if t <= 0 {
			continue
		}
		var a Answer
		if i < len(answers) {
			a = answers[i]
		}
		o, counts := vexOf(t, a)
		if !counts {
			continue
		}
		v := &vs[u.Of[i]]
		v.cells = append(v.cells, int16(int(t-1)*nl+int(o.p-1)))
		if alt {
			v.lenient = append(v.lenient, int16(int(t-1)*nl+int(lenientAnswer(cases[i], t, o.p)-1)))
		}
		switch o.status {
		case statusTP:
			v.tp++
		case statusFP:
			v.fp++
		case statusFN:
			v.fn++
		}
	}
	return vs
}

// vexResample is the status F1 and justification macro-F1 of the units drawn with
// multiplicities w, m the matrix to count them in (cleared first).
func vexResample(vs []vexUnit, w []int32, m [][]int) (statusF1, macroF1, lenientF1 float64) {
	fill := func(cells func(v *vexUnit) []int16) float64 {
		for i := range m {
			clear(m[i])
		}
		nl := len(m)
		for unit, wu := range w {
			if wu == 0 {
				continue
			}
			for _, c := range cells(&vs[unit]) {
				m[int(c)/nl][int(c)%nl] += int(wu)
			}
		}
		_, macro, _ := justification(m, VEXLabels(), nil)
		return macro
	}
	var tp, fp, fn int
	lenient := false
	for unit, wu := range w {
		v := &vs[unit]
		tp += int(wu * v.tp)
		fp += int(wu * v.fp)
		fn += int(wu * v.fn)
		lenient = lenient || v.lenient != nil
	}
	macroF1 = fill(func(v *vexUnit) []int16 { return v.cells })
	if lenient {
		lenientF1 = fill(func(v *vexUnit) []int16 { return v.lenient })
	}
	return ratio(2*tp, 2*tp+fp+fn), macroF1, lenientF1
}

// VEXDelta is a difference A - B of a VEX figure, each a mean over its run's repeats, with the
// paired bootstrap interval of the difference.
type VEXDelta struct {
	A     float64        `json:"a"`
	B     float64        `json:"b"`
	Value float64        `json:"value"`
	CI    stats.Interval `json:"ci"`
}

// VEXDeltas are the differences of two runs' VEX-Bench figures over all their repeats, paired by
// case: each resample draws the units once for both runs, and for each run as many of its
// repeats with replacement as it has.
type VEXDeltas struct {
	Level     float64  `json:"level"`
	Resamples int      `json:"resamples"`
	Seed      uint64   `json:"seed"`
	Units     int      `json:"units"`
	RepeatsA  int      `json:"repeats_a"`
	RepeatsB  int      `json:"repeats_b"`
	StatusF1  VEXDelta `json:"status_f1"`
	MacroF1   VEXDelta `json:"justification_macro_f1"`
	// MacroF1Lenient is the lenient justification macro-F1 (an answer among a case's
	// alternatives counts), when some case has alternatives.
	MacroF1Lenient *VEXDelta `json:"justification_macro_f1_lenient,omitempty"`
}

// PairedVEXDeltas compares two runs' answers (a[k] and b[k] their repeats) on the same vex
// cases; nil when no case has a VEX category.
func PairedVEXDeltas(cases []Case, a, b [][]Answer, co CIOptions) *VEXDeltas {
	if !vexUnitsAny(cases) || len(a) == 0 || len(b) == 0 {
		return nil
	}
	co = co.norm()
	u := UnitsOf(cases)
	va, vb := make([][]vexUnit, len(a)), make([][]vexUnit, len(b))
	for k := range a {
		va[k] = vexUnits(cases, a[k], u)
	}
	for k := range b {
		vb[k] = vexUnits(cases, b[k], u)
	}
	nl := len(VEXLabels())
	m := make([][]int, nl)
	for i := range m {
		m[i] = make([]int, nl)
	}
	mean := func(vs [][]vexUnit, w []int32, pick func(int) int) (sf, mf, lf float64) {
		for j := range vs {
			s, f, l := vexResample(vs[pick(j)], w, m)
			sf, mf, lf = sf+s, mf+f, lf+l
		}
		n := float64(len(vs))
		return sf / n, mf / n, lf / n
	}
	all := ones(u.N)
	same := func(j int) int { return j }
	sa, ma, la := mean(va, all, same)
	sb, mb, lb := mean(vb, all, same)
	reps := resamples(co.Resamples, u.N*(len(a)+len(b)))
	d := &VEXDeltas{Level: co.Level, Resamples: reps, Seed: co.Seed, Units: u.N, RepeatsA: len(a), RepeatsB: len(b),
		StatusF1: VEXDelta{A: sa, B: sb, Value: sa - sb}, MacroF1: VEXDelta{A: ma, B: mb, Value: ma - mb}}
	alt := vexAltAny(cases)
	ds, dm, dl := make([]float64, reps), make([]float64, reps), make([]float64, reps)
	r := stats.NewResampler(u.N, co.Seed)
	pick := rand.New(rand.NewPCG(co.Seed, 0x6a09e667f3bcc909))
	for i := 0; i < reps; i++ {
		w := r.Next()
		xa, ya, za := mean(va, w, func(j int) int { return drawRepeat(pick, len(va), j) })
		xb, yb, zb := mean(vb, w, func(j int) int { return drawRepeat(pick, len(vb), j) })
		ds[i], dm[i], dl[i] = xa-xb, ya-yb, za-zb
	}
	d.StatusF1.CI, d.MacroF1.CI = stats.Percentile(ds, co.Level), stats.Percentile(dm, co.Level)
	if alt {
		d.MacroF1Lenient = &VEXDelta{A: la, B: lb, Value: la - lb, CI: stats.Percentile(dl, co.Level)}
	}
	return d
}

// drawRepeat is the j-th repeat drawn of n: repeat 0 for a run of one repeat, else a random one.
func drawRepeat(pick *rand.Rand, n, _ int) int {
	if n == 1 {
		return 0
	}
	return pick.IntN(n)
}
