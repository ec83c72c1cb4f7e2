package label_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/label"
)

// byHand is three raters on five cases, whose figures are worked out by hand below.
//
//	case  r1 r2 r3   n_A n_B n_C   P_i
//	c1    A  A  A     3   0   0    (9-3)/6 = 1
//	c2    A  A  B     2   1   0    (5-3)/6 = 1/3
//	c3    B  B  B     0   3   0    1
//	c4    A  B  C     1   1   1    (3-3)/6 = 0
//	c5    C  C  A     1   0   2    1/3
//
// Fleiss: P-bar = (1 + 1/3 + 1 + 0 + 1/3)/5 = 8/15; p_A = 7/15, p_B = 5/15, p_C = 3/15; P-bar_e =
// (49 + 25 + 9)/225 = 83/225; kappa = (120/225 - 83/225)/(142/225) = 37/142.
// Cohen r1/r2: p_o = 4/5; marginals r1 A3 B1 C1, r2 A2 B2 C1: p_e = (6 + 2 + 1)/25 = 9/25;
// kappa = (20/25 - 9/25)/(16/25) = 11/16. r1/r3 and r2/r3: p_o = 2/5, p_e = 9/25: 1/16.
// Category A: kappa_A = 1 - sum n_iA (3 - n_iA) / (5*3*2 * 7/15 * 8/15) = 1 - 6/(1680/225) =
// 11/56; specific agreement sum n_iA (n_iA - 1) / sum n_iA * 2 = 8/14.
var byHand = label.Table{Raters: []string{"r1", "r2", "r3"}, Cases: []string{"c1", "c2", "c3", "c4", "c5"},
	Values: [][]string{{"A", "A", "A"}, {"A", "A", "B"}, {"B", "B", "B"}, {"A", "B", "C"}, {"C", "C", "A"}}}

var near = cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })

func TestAgreementByHand(t *testing.T) {
	f := label.Fleiss(byHand)
	if f.Value == nil || f.CI == nil {
		t.Fatalf("Fleiss: %+v", f)
	}
	got := []float64{*f.Value, f.Observed, f.Expected, float64(f.Cases)}
	if diff := cmp.Diff([]float64{37.0 / 142, 8.0 / 15, 83.0 / 225, 5}, got, near); diff != "" {
		t.Errorf("Fleiss (-want +got):\n%s", diff)
	}
	if f.CI[0] > *f.Value || f.CI[1] < *f.Value || f.CI[0] < -1 || f.CI[1] > 1 {
		t.Errorf("Fleiss' interval %v does not hold its kappa %v", *f.CI, *f.Value)
	}
	var cohen []float64
	for _, p := range [][2]int{{0, 1}, {0, 2}, {1, 2}} {
		k := label.Cohen(byHand, p[0], p[1])
		if k.Value == nil {
			t.Fatalf("Cohen %v undefined", p)
		}
		cohen = append(cohen, *k.Value)
	}
	if diff := cmp.Diff([]float64{11.0 / 16, 1.0 / 16, 1.0 / 16}, cohen, near); diff != "" {
		t.Errorf("Cohen (-want +got):\n%s", diff)
	}
	pc := label.PerCategory(byHand, []string{"A", "B", "C"})
	if pc[0].Category != "A" || pc[0].Kappa == nil || pc[0].Ratings != 7 {
		t.Fatalf("per category: %+v", pc)
	}
	if diff := cmp.Diff([]float64{11.0 / 56, 8.0 / 14}, []float64{*pc[0].Kappa, pc[0].Specific}, near); diff != "" {
		t.Errorf("category A (-want +got):\n%s", diff)
	}
	// The raters' confusion over ordered pairs of two raters of a case: c1 gives A-A 6 times,
	// c2 A-A 2, A-B 2, B-A 2; c3 B-B 6; c4 each of A-B, B-A, A-C, C-A, B-C, C-B once; c5 C-C 2,
	// C-A 2, A-C 2. A-A 8, A-B 3, A-C 3, B-B 6, B-C 1, C-C 2.
	conf := label.RaterConfusion(byHand, []string{"A", "B", "C"})
	want := [][]int{{8, 3, 3}, {3, 6, 1}, {3, 1, 2}}
	if diff := cmp.Diff(want, conf.Matrix); diff != "" {
		t.Errorf("confusion (-want +got):\n%s", diff)
	}
}

// Every rating in one category leaves no chance agreement to beat: kappa is undefined, not 1
// or 0; a case one rater rated takes no part; raters who share no case have no Cohen's kappa.
func TestAgreementEdges(t *testing.T) {
	same := label.Table{Raters: []string{"a", "b"}, Values: [][]string{{"x", "x"}, {"x", "x"}, {"y", ""}}}
	if k := label.Fleiss(same); k.Value != nil || k.Cases != 2 {
		t.Errorf("one category: %+v, want undefined over 2 cases", k)
	}
	apart := label.Table{Raters: []string{"a", "b"}, Values: [][]string{{"x", ""}, {"", "y"}}}
	if k := label.Cohen(apart, 0, 1); k.Cases != 0 || k.Value != nil {
		t.Errorf("no shared case: %+v", k)
	}
}

func TestWilson(t *testing.T) {
	// 45 of 50 right (PrimeVul's scale): p = 0.9, z = 1.96: the interval computed by hand from
	// (p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n).
	got := label.Wilson(45, 50)
	z := 1.959963984540054
	p, n := 0.9, 50.0
	den := 1 + z*z/n
	mid, half := (p+z*z/(2*n))/den, z/den*math.Sqrt(p*(1-p)/n+z*z/(4*n*n))
	if diff := cmp.Diff([2]float64{mid - half, mid + half}, got, near); diff != "" || got[0] < 0.78 || got[1] > 0.96 {
		t.Errorf("Wilson(45, 50) = %v (-want +got):\n%s", got, diff)
	}
	if got := label.Wilson(0, 0); got != [2]float64{0, 1} {
		t.Errorf("Wilson(0, 0) = %v", got)
	}
}
