package label

import (
	"math"
	"slices"

	"github.com/vulnbench/vulnbench/internal/stats"
)

// Table is who gave which value to which case: Values[i][r] is rater r's value of case i, ""
// when they gave none.
type Table struct {
	Raters []string
	Cases  []string
	Values [][]string
}

// Kappa is an agreement coefficient with its 95 % bootstrap interval (cases resampled); Value
// is nil where it is undefined (every rating in one category: no chance agreement to beat).
type Kappa struct {
	Value    *float64    `json:"kappa"`
	CI       *[2]float64 `json:"ci,omitempty"`
	Cases    int         `json:"cases"`    // cases it is computed over
	Observed float64     `json:"observed"` // observed agreement (Fleiss' P-bar, Cohen's p_o)
	Expected float64     `json:"expected"` // chance agreement (P-bar_e, p_e)
}

// Resamples and Seed are the bootstrap's for every interval here (fixed: a report is
// reproducible).
const (
	Resamples = 2000
	Seed      = 34
)

// categories are the values the table holds, in first-seen order.
func (t Table) categories() []string {
	var out []string
	for _, row := range t.Values {
		for _, v := range row {
			if v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// counts is, per case, how many raters gave each category (index as cats) and how many rated.
func (t Table) counts(cats []string) (n [][]float64, ni []float64) {
	n = make([][]float64, len(t.Values))
	ni = make([]float64, len(t.Values))
	for i, row := range t.Values {
		n[i] = make([]float64, len(cats))
		for _, v := range row {
			if v == "" {
				continue
			}
			n[i][slices.Index(cats, v)]++
			ni[i]++
		}
	}
	return n, ni
}

// Fleiss is Fleiss' kappa over every rater, on the cases at least two rated (SPEC: P_i =
// (sum_j n_ij^2 - n_i) / (n_i (n_i - 1)), P-bar their mean, p_j = sum_i n_ij / sum_i n_i, P-bar_e
// = sum_j p_j^2, kappa = (P-bar - P-bar_e) / (1 - P-bar_e)). A case rated by n_i raters counts
// with its own n_i: with the same number of raters on every case this is Fleiss' formula as
// written, and it takes in calibration cases (every rater) and overlapping ones (K raters) alike.
func Fleiss(t Table) Kappa {
	cats := t.categories()
	n, ni := t.counts(cats)
	var keep []int
	for i := range ni {
		if ni[i] >= 2 {
			keep = append(keep, i)
		}
	}
	return kappaOf(len(keep), func(w []int32) (float64, float64, float64) { return fleissW(n, ni, keep, w) })
}

// fleissW is Fleiss' kappa of the kept cases, each counted w times.
func fleissW(n [][]float64, ni []float64, keep []int, w []int32) (kappa, pbar, pe float64) {
	if len(keep) == 0 {
		return math.NaN(), 0, 0
	}
	nc := len(n[keep[0]])
	pj := make([]float64, nc)
	var sw, sn float64
	for k, i := range keep {
		wi := float64(w[k])
		if wi == 0 {
			continue
		}
		var sq float64
		for j, x := range n[i] {
			sq += x * x
			pj[j] += wi * x
		}
		pbar += wi * (sq - ni[i]) / (ni[i] * (ni[i] - 1))
		sw += wi
		sn += wi * ni[i]
	}
	if sw == 0 {
		return math.NaN(), 0, 0
	}
	pbar /= sw
	for j := range pj {
		p := pj[j] / sn
		pe += p * p
	}
	if pe >= 1 {
		return math.NaN(), pbar, pe
	}
	return (pbar - pe) / (1 - pe), pbar, pe
}

// Cohen is Cohen's kappa of raters a and b on the cases both rated: (p_o - p_e) / (1 - p_e).
func Cohen(t Table, a, b int) Kappa {
	var keep []int
	for i, row := range t.Values {
		if row[a] != "" && row[b] != "" {
			keep = append(keep, i)
		}
	}
	return kappaOf(len(keep), func(w []int32) (float64, float64, float64) {
		var agree, total float64
		ma, mb := map[string]float64{}, map[string]float64{}
		for k, i := range keep {
			wi := float64(w[k])
			va, vb := t.Values[i][a], t.Values[i][b]
			total += wi
			if va == vb {
				agree += wi
			}
			ma[va] += wi
			mb[vb] += wi
		}
		if total == 0 {
			return math.NaN(), 0, 0
		}
		po := agree / total
		var pe float64
		for v, x := range ma {
			pe += (x / total) * (mb[v] / total)
		}
		if pe >= 1 {
			return math.NaN(), po, pe
		}
		return (po - pe) / (1 - pe), po, pe
	})
}

// kappaOf is a Kappa over n cases: f gives the coefficient, observed and chance agreement of
// the cases counted with weights w, once with every weight 1 and then on each resample.
func kappaOf(n int, f func(w []int32) (kappa, observed, expected float64)) Kappa {
	k := Kappa{Cases: n}
	if n == 0 {
		return k
	}
	one := make([]int32, n)
	for i := range one {
		one[i] = 1
	}
	var v float64
	v, k.Observed, k.Expected = f(one)
	k.Value = defined(v)
	k.CI = bootstrap(n, func(w []int32) float64 { v, _, _ := f(w); return v })
	return k
}

// CategoryAgreement is one category's agreement: Fleiss' kappa of that category against the
// rest (kappa_j = 1 - sum_i n_ij (n_i - n_ij) / (sum_i n_i (n_i - 1) p_j (1 - p_j))) and the
// specific agreement (of the pairs of ratings that include it, the share that agree on it).
type CategoryAgreement struct {
	Category string   `json:"category"`
	Ratings  int      `json:"ratings"`
	Kappa    *float64 `json:"kappa"`
	Specific float64  `json:"specific_agreement"`
}

// PerCategory is every category's agreement, on the cases at least two rated, in cats' order
// (the values not in cats after them).
func PerCategory(t Table, cats []string) []CategoryAgreement {
	all := slices.Clone(cats)
	for _, c := range t.categories() {
		if !slices.Contains(all, c) {
			all = append(all, c)
		}
	}
	n, ni := t.counts(all)
	var out []CategoryAgreement
	var totalRatings float64
	for i := range ni {
		if ni[i] >= 2 {
			totalRatings += ni[i]
		}
	}
	for j, c := range all {
		var nj, disagree, pairs, agreeing, with float64
		for i := range n {
			if ni[i] < 2 {
				continue
			}
			x := n[i][j]
			nj += x
			disagree += x * (ni[i] - x)
			pairs += ni[i] * (ni[i] - 1)
			agreeing += x * (x - 1)
			with += x * (ni[i] - 1)
		}
		if nj == 0 {
			continue
		}
		ca := CategoryAgreement{Category: c, Ratings: int(nj)}
		p := nj / totalRatings
		if d := pairs * p * (1 - p); d > 0 {
			ca.Kappa = defined(1 - disagree/d)
		}
		if with > 0 {
			ca.Specific = agreeing / with
		}
		out = append(out, ca)
	}
	return out
}

// Confusion is how the raters' values meet: Matrix[a][b] counts, over every case and every
// ordered pair of two raters of it, one giving Labels[a] and the other Labels[b] (symmetric;
// the diagonal is agreement).
type Confusion struct {
	Labels []string `json:"labels"`
	Matrix [][]int  `json:"matrix"`
}

// RaterConfusion is the table's Confusion over cats (values not in cats after them; categories
// nobody gave left out).
func RaterConfusion(t Table, cats []string) Confusion {
	var labels []string
	seen := t.categories()
	for _, c := range cats {
		if slices.Contains(seen, c) {
			labels = append(labels, c)
		}
	}
	for _, c := range seen {
		if !slices.Contains(labels, c) {
			labels = append(labels, c)
		}
	}
	m := make([][]int, len(labels))
	for i := range m {
		m[i] = make([]int, len(labels))
	}
	for _, row := range t.Values {
		for a, va := range row {
			for b, vb := range row {
				if a != b && va != "" && vb != "" {
					m[slices.Index(labels, va)][slices.Index(labels, vb)]++
				}
			}
		}
	}
	return Confusion{Labels: labels, Matrix: m}
}

// Wilson is the Wilson score interval of k successes in n at 95 %.
func Wilson(k, n int) [2]float64 {
	if n == 0 {
		return [2]float64{0, 1}
	}
	const z = 1.959963984540054
	p, nn := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nn
	mid := (p + z*z/(2*nn)) / den
	half := z / den * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn))
	return [2]float64{max(0, mid-half), min(1, mid+half)}
}

func defined(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// bootstrap is the 95 % percentile interval of f over resamples of n cases; nil when f is
// undefined on most of them.
func bootstrap(n int, f func(w []int32) float64) *[2]float64 {
	r := stats.NewResampler(n, Seed)
	xs := make([]float64, 0, Resamples)
	for i := 0; i < Resamples; i++ {
		xs = append(xs, f(r.Next()))
	}
	defined := 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			defined++
		}
	}
	if defined < Resamples/2 {
		return nil
	}
	iv := stats.Percentile(xs, 0.95)
	return &[2]float64{iv[0], iv[1]}
}
