package stats

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// binomTwoSided computes the exact two-sided McNemar p-value with big rationals: 2 * sum_{i<=k}
// C(n,i) / 2^n, capped at 1, independently of McNemarExact's log-space sum.
func binomTwoSided(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	s := new(big.Int)
	for i := 0; i <= k; i++ {
		s.Add(s, new(big.Int).Binomial(int64(n), int64(i)))
	}
	r := new(big.Rat).SetFrac(new(big.Int).Mul(s, big.NewInt(2)), new(big.Int).Lsh(big.NewInt(1), uint(n)))
	f, _ := r.Float64()
	return min(1, f)
}

func TestMcNemarExact(t *testing.T) {
	tests := []struct {
		b, c int
		want float64 // hand-computed where small
	}{
		{0, 0, 1},
		{0, 1, 1},
		{0, 5, 2.0 / 32},        // 2 * (1/32)
		{1, 5, 2 * 7.0 / 64},    // 2 * (1+6)/64
		{2, 8, 2 * 56.0 / 1024}, // 2 * (1+10+45)/1024
		{5, 5, 1},
		{10, 30, -1},
		{120, 80, -1},
		{3000, 2900, -1},
	}
	for _, tt := range tests {
		got := McNemarExact(tt.b, tt.c)
		want := binomTwoSided(tt.b, tt.c)
		if tt.want >= 0 && math.Abs(want-tt.want) > 1e-15 {
			t.Fatalf("reference (%d,%d) = %v, hand %v", tt.b, tt.c, want, tt.want)
		}
		if math.Abs(got-want) > 1e-9*math.Max(want, 1e-300) && math.Abs(got-want) > 1e-300 {
			t.Errorf("McNemarExact(%d, %d) = %.17g, want %.17g", tt.b, tt.c, got, want)
		}
		if McNemarExact(tt.c, tt.b) != got {
			t.Errorf("McNemarExact is not symmetric at (%d, %d)", tt.b, tt.c)
		}
	}
}

func TestYouden(t *testing.T) {
	tests := []struct {
		tp, fn, fp, tn int
		j              float64
		ok             bool
	}{
		{8, 2, 1, 9, 0.8 - 0.1, true},
		{0, 0, 1, 1, 0, false},
		{1, 1, 0, 0, 0, false},
		{0, 4, 4, 0, -1, true},
	}
	for _, tt := range tests {
		j, ok := Youden(tt.tp, tt.fn, tt.fp, tt.tn)
		if ok != tt.ok || math.Abs(j-tt.j) > 1e-12 {
			t.Errorf("Youden(%d,%d,%d,%d) = %v, %v; want %v, %v", tt.tp, tt.fn, tt.fp, tt.tn, j, ok, tt.j, tt.ok)
		}
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5}
	got := []float64{Quantile(xs, 0), Quantile(xs, 0.25), Quantile(xs, 0.1), Quantile(xs, 1)}
	if diff := cmp.Diff([]float64{1, 2, 1.4, 5}, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
		t.Error(diff)
	}
	iv := Percentile([]float64{math.NaN(), 5, 1, 3, 2, 4}, 0.5)
	if iv != (Interval{2, 4}) {
		t.Errorf("Percentile = %v, want [2 4]", iv)
	}
}

func TestResamplerReproducible(t *testing.T) {
	a, b := NewResampler(50, 7), NewResampler(50, 7)
	for i := 0; i < 5; i++ {
		wa, wb := a.Next(), b.Next()
		if diff := cmp.Diff(wa, wb); diff != "" {
			t.Fatal(diff)
		}
		total := int32(0)
		for _, x := range wa {
			total += x
		}
		if total != 50 {
			t.Fatalf("multiplicities sum to %d, want 50", total)
		}
	}
	if cmp.Equal(NewResampler(50, 7).Next(), NewResampler(50, 8).Next()) {
		t.Error("seeds 7 and 8 drew the same resample")
	}
}

// TestBootstrapCoverage draws many samples from a known Bernoulli(0.3) population and checks
// that the 95% percentile interval of the mean covers 0.3 about 95% of the time.
func TestBootstrapCoverage(t *testing.T) {
	const (
		sims, n, reps = 300, 200, 400
		p             = 0.3
	)
	rng := rand.New(rand.NewPCG(1, 2))
	covered := 0
	xs := make([]float64, n)
	means := make([]float64, reps)
	for s := 0; s < sims; s++ {
		for i := range xs {
			xs[i] = 0
			if rng.Float64() < p {
				xs[i] = 1
			}
		}
		r := NewResampler(n, uint64(s))
		for k := 0; k < reps; k++ {
			w := r.Next()
			sum := 0.0
			for i, m := range w {
				sum += float64(m) * xs[i]
			}
			means[k] = sum / n
		}
		iv := Percentile(means, 0.95)
		if iv[0] <= p && p <= iv[1] {
			covered++
		}
	}
	rate := float64(covered) / sims
	// Binomial sd of the rate at 300 simulations is 1.3 points: 0.90..0.99 is ~ +-4 sd.
	if rate < 0.90 || rate > 0.99 {
		t.Errorf("coverage %.3f, want about 0.95", rate)
	}
}

// Wilson's interval against values computed apart, in Python from the textbook formula
// ((p + z²/2n) ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n).
func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{1, 3, 0.0614919, 0.7923404},
		{4, 16, 0.1018207, 0.4949832},
		{0, 10, 0, 0.2775328},
		{10, 10, 0.7224672, 1},
		{0, 0, 0, 1},
	} {
		got := Wilson(tc.k, tc.n, Z95)
		if math.Abs(got[0]-tc.lo) > 1e-6 || math.Abs(got[1]-tc.hi) > 1e-6 {
			t.Errorf("Wilson(%d, %d) = [%.7f, %.7f], want [%.7f, %.7f]", tc.k, tc.n, got[0], got[1], tc.lo, tc.hi)
		}
	}
}
