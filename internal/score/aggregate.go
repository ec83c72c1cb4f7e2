package score

import "math"

// Aggregate turns several repeats' Results into the mean and sample standard deviation (n-1) of each
// figure; the standard deviation of one repeat is 0. A section (pairwise, VD-S, one CWE) is aggregated
// over the repeats that have it, and present when any has it. VD-S is degenerate when any repeat's is;
// its threshold is aggregated only when every repeat that has VD-S has a finite one, else it is nil.
func Aggregate(rs []Result) Aggregated {
	a := Aggregated{Repeats: len(rs)}
	if len(rs) == 0 {
		return a
	}
	a.N = over(rs, func(r Result) float64 { return float64(r.N) })
	a.Status = StatusOf[Stat]{
		OK:      over(rs, func(r Result) float64 { return float64(r.Status.OK) }),
		Failed:  over(rs, func(r Result) float64 { return float64(r.Status.Failed) }),
		Stopped: over(rs, func(r Result) float64 { return float64(r.Status.Stopped) }),
		Error:   over(rs, func(r Result) float64 { return float64(r.Status.Error) }),
		Missing: over(rs, func(r Result) float64 { return float64(r.Status.Missing) }),
	}
	bs := make([]Binary, len(rs))
	ps := present(rs, func(r Result) *Pairwise { return r.Pairwise })
	vs := present(rs, func(r Result) *VDS { return r.VDS })
	cwes := map[string][]CWEScore{}
	for i, r := range rs {
		bs[i] = r.Binary
		for w, c := range r.ByCWE {
			cwes[w] = append(cwes[w], c)
		}
	}
	a.Binary = BinaryOf[Stat, Stat]{
		TP:        over(bs, func(b Binary) float64 { return float64(b.TP) }),
		FP:        over(bs, func(b Binary) float64 { return float64(b.FP) }),
		TN:        over(bs, func(b Binary) float64 { return float64(b.TN) }),
		FN:        over(bs, func(b Binary) float64 { return float64(b.FN) }),
		FailedVul: over(bs, func(b Binary) float64 { return float64(b.FailedVul) }),
		FailedBen: over(bs, func(b Binary) float64 { return float64(b.FailedBen) }),
		Accuracy:  over(bs, func(b Binary) float64 { return b.Accuracy }),
		Precision: over(bs, func(b Binary) float64 { return b.Precision }),
		Recall:    over(bs, func(b Binary) float64 { return b.Recall }),
		F1:        over(bs, func(b Binary) float64 { return b.F1 }),
		FPR:       over(bs, func(b Binary) float64 { return b.FPR }),
		FNR:       over(bs, func(b Binary) float64 { return b.FNR }),
		TNR:       over(bs, func(b Binary) float64 { return b.TNR }),
	}
	if len(ps) > 0 {
		a.Pairwise = &PairwiseOf[Stat, Stat]{
			Pairs:      over(ps, func(p Pairwise) float64 { return float64(p.Pairs) }),
			Incomplete: over(ps, func(p Pairwise) float64 { return float64(p.Incomplete) }),
			PC:         over(ps, func(p Pairwise) float64 { return p.PC }),
			PV:         over(ps, func(p Pairwise) float64 { return p.PV }),
			PB:         over(ps, func(p Pairwise) float64 { return p.PB }),
			PR:         over(ps, func(p Pairwise) float64 { return p.PR }),
			PAcc:       over(ps, func(p Pairwise) float64 { return p.PAcc }),
		}
	}
	if len(vs) > 0 {
		v := &VDSOf[Stat, Stat]{
			FPRTolerance: over(vs, func(v VDS) float64 { return v.FPRTolerance }),
			FNR:          over(vs, func(v VDS) float64 { return v.FNR }),
			N:            over(vs, func(v VDS) float64 { return float64(v.N) }),
		}
		finite := true
		for i, x := range vs {
			v.Degenerate = v.Degenerate || x.Degenerate
			finite = finite && x.Threshold != nil
			if i == 0 {
				v.Source = x.Source
			} else if x.Source != v.Source {
				v.Source = SourceMixed
			}
		}
		if v.Source == SourceMixed {
			v.Sources = sources(rs)
		}
		if finite {
			t := over(vs, func(v VDS) float64 { return *v.Threshold })
			v.Threshold = &t
		}
		a.VDS = v
	}
	a.JIT = aggregateJIT(rs)
	a.Injection = aggregateInjection(rs)
	a.VEX = aggregateVEX(present(rs, func(r Result) *VEX { return r.VEX }))
	a.AppSec = aggregateAppSec(present(rs, func(r Result) *AppSec { return r.AppSec }))
	if len(cwes) > 0 {
		a.ByCWE = make(map[string]CWEOf[Stat, Stat], len(cwes))
		for w, cs := range cwes {
			a.ByCWE[w] = CWEOf[Stat, Stat]{
				N:      over(cs, func(c CWEScore) float64 { return float64(c.N) }),
				TP:     over(cs, func(c CWEScore) float64 { return float64(c.TP) }),
				FN:     over(cs, func(c CWEScore) float64 { return float64(c.FN) }),
				FP:     over(cs, func(c CWEScore) float64 { return float64(c.FP) }),
				TN:     over(cs, func(c CWEScore) float64 { return float64(c.TN) }),
				Recall: over(cs, func(c CWEScore) float64 { return c.Recall }),
				F1:     over(cs, func(c CWEScore) float64 { return c.F1 }),
				Pairs:  over(cs, func(c CWEScore) float64 { return float64(c.Pairs) }),
				PAcc:   over(cs, func(c CWEScore) float64 { return c.PAcc }),
			}
		}
	}
	return a
}

// sources is the Stat of the count of each score source over the repeats that have VD-S: every
// ok verdict has a source, so a repeat of one source counts all its ok verdicts there, and 0
// for the sources it lacks.
func sources(rs []Result) map[string]Stat {
	var vs []Result
	names := map[string]bool{}
	for _, r := range rs {
		if r.VDS == nil {
			continue
		}
		vs = append(vs, r)
		for s := range r.VDS.Sources {
			names[s] = true
		}
		if r.VDS.Source != "" && r.VDS.Source != SourceMixed {
			names[r.VDS.Source] = true
		}
	}
	m := make(map[string]Stat, len(names))
	for s := range names {
		m[s] = over(vs, func(r Result) float64 {
			if r.VDS.Source == s {
				return float64(r.Status.OK)
			}
			return float64(r.VDS.Sources[s])
		})
	}
	return m
}

// present is the sections get returns of the xs that have one (get returns nil for the others).
func present[S, T any](xs []S, get func(S) *T) []T {
	var ts []T
	for _, x := range xs {
		if t := get(x); t != nil {
			ts = append(ts, *t)
		}
	}
	return ts
}

// over returns the Stat of f over xs.
func over[T any](xs []T, f func(T) float64) Stat {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	return stat(v)
}

// stat returns the mean and sample standard deviation of xs; the deviation is exactly 0 when all
// values are equal (one repeat included).
func stat(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	same := true
	sum := 0.0
	for _, x := range xs {
		sum += x
		same = same && x == xs[0]
	}
	if same {
		return Stat{Mean: xs[0]}
	}
	mean := sum / float64(len(xs))
	ss := 0.0
	for _, x := range xs {
		d := x - mean
		ss += d * d
	}
	return Stat{Mean: mean, Std: math.Sqrt(ss / float64(len(xs)-1))}
}
