// Package stats holds the statistics that tell two subjects apart: McNemar's exact test on
// paired correctness, bootstrap resampling with percentile intervals, and the Youden index.
// Everything is deterministic given a seed.
package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// McNemarExact is the two-sided p-value of McNemar's exact test: under the null hypothesis the b
// discordant cases one subject alone got right and the c the other alone got right are b+c fair
// coin flips, so p = min(1, 2 * P(X <= min(b, c))) for X ~ Binomial(b+c, 1/2). With b = c = 0 it is 1.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	// Sum in log space: C(n, i) / 2^n underflows for large n.
	logHalfN := float64(n) * math.Log(0.5)
	lgN, _ := math.Lgamma(float64(n + 1))
	terms := make([]float64, 0, k+1)
	maxT := math.Inf(-1)
	for i := 0; i <= k; i++ {
		a, _ := math.Lgamma(float64(i + 1))
		d, _ := math.Lgamma(float64(n - i + 1))
		t := lgN - a - d + logHalfN
		terms = append(terms, t)
		maxT = max(maxT, t)
	}
	s := 0.0
	for _, t := range terms {
		s += math.Exp(t - maxT)
	}
	p := 2 * math.Exp(maxT+math.Log(s))
	return min(1, p)
}

// Youden is the Youden index J = TPR - FPR of a confusion matrix, in [-1, 1]; ok is false when
// there is no positive or no negative case (J is undefined).
func Youden(tp, fn, fp, tn int) (j float64, ok bool) {
	if tp+fn == 0 || fp+tn == 0 {
		return 0, false
	}
	return float64(tp)/float64(tp+fn) - float64(fp)/float64(fp+tn), true
}

// Interval is a confidence interval [lo, hi].
type Interval [2]float64

// Resampler draws bootstrap resamples of n units: each resample gives every unit a multiplicity
// (how many times it was drawn), the n multiplicities summing to n. A seed fixes every resample.
type Resampler struct {
	rng *rand.Rand
	n   int
	w   []int32
}

// NewResampler resamples n units with a generator seeded by seed.
func NewResampler(n int, seed uint64) *Resampler {
	return &Resampler{rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), n: n, w: make([]int32, n)}
}

// Next draws a resample and returns the multiplicity of each unit; the slice is reused by the
// next call.
func (r *Resampler) Next() []int32 {
	clear(r.w)
	for i := 0; i < r.n; i++ {
		r.w[r.rng.IntN(r.n)]++
	}
	return r.w
}

// Percentile is the percentile bootstrap interval at confidence level (e.g. 0.95) of samples:
// the (1-level)/2 and (1+level)/2 quantiles, linearly interpolated. NaN samples are ignored;
// with none left the interval is [NaN, NaN]. samples is sorted in place.
func Percentile(samples []float64, level float64) Interval {
	xs := samples[:0]
	for _, x := range samples {
		if !math.IsNaN(x) {
			xs = append(xs, x)
		}
	}
	if len(xs) == 0 {
		return Interval{math.NaN(), math.NaN()}
	}
	slices.Sort(xs)
	return Interval{Quantile(xs, (1-level)/2), Quantile(xs, (1+level)/2)}
}

// Quantile is the q-quantile of sorted xs (type 7 of Hyndman and Fan, as R and NumPy default).
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	h := q * float64(len(sorted)-1)
	lo := int(math.Floor(h))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	if lo < 0 {
		return sorted[0]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// Wilson is the Wilson score interval of a proportion of k successes in n trials at the normal
// quantile z (1.959964 for 95 %): better than the normal approximation for small n or a share
// near 0 or 1, and never outside [0, 1]. With n = 0 it is [0, 1].
func Wilson(k, n int, z float64) Interval {
	if n <= 0 {
		return Interval{0, 1}
	}
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return Interval{max(0, mid-half), min(1, mid+half)}
}

// Z95 is the normal quantile of a two-sided 95 % interval.
const Z95 = 1.959963984540054
