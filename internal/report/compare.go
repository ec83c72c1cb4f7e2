package report

import (
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/stats"
)

// Comparison tells two runs apart on one truth, case by case; its JSON is the compare contract
// scripts rely on (mcnemar {b, c, p_value}, delta {f1, pacc} with their intervals).
type Comparison struct {
	A       string        `json:"a"`
	B       string        `json:"b"`
	N       int           `json:"n"`
	ScoresA Headline      `json:"scores_a"`
	ScoresB Headline      `json:"scores_b"`
	McNemar McNemar       `json:"mcnemar"`
	Delta   *score.Deltas `json:"delta"`
	Youden  Youden        `json:"youden"`
	// VEX compares the runs' VEX-Bench figures over all their repeats, by category; nil
	// without vex cases.
	VEX   *VEXComparison `json:"vex,omitempty"`
	Notes []Note         `json:"-"`
}

// VEXComparison is two runs' VEX-Bench figures side by side over every repeat of each, paired
// by case: status F1 and justification macro-F1 with the paired bootstrap of their differences
// (over cases and repeats), each category's F1, and McNemar's test on the cases each gets right
// in most of its repeats.
type VEXComparison struct {
	*score.VEXDeltas
	PerClass map[string]ClassF1 `json:"per_class"`
	McNemar  McNemar            `json:"mcnemar_justification"`
}

// ClassF1 is one category's F1 in A and in B (means over repeats) and its support.
type ClassF1 struct {
	Support float64 `json:"support"`
	A       float64 `json:"a"`
	B       float64 `json:"b"`
	Delta   float64 `json:"delta"`
}

// Headline is the figures a comparison puts side by side; PAcc is nil without pairs.
type Headline struct {
	F1       float64  `json:"f1"`
	PAcc     *float64 `json:"pacc,omitempty"`
	Accuracy float64  `json:"accuracy"`
}

// McNemar is McNemar's exact test on paired correctness: B counts cases only A got right, C
// cases only B got right, N the cases both judged.
type McNemar struct {
	N      int     `json:"n"`
	B      int     `json:"b"`
	C      int     `json:"c"`
	PValue float64 `json:"p_value"`
}

// YoudenCWE is the Youden index of A and B on one CWE.
type YoudenCWE struct {
	N int     `json:"n"`
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// Youden is the OWASP Benchmark scorecard figure: TPR - FPR per CWE, averaged over the CWEs
// that have both vulnerable and benign cases (Skipped counts the others).
type Youden struct {
	A       float64              `json:"a"`
	B       float64              `json:"b"`
	Delta   float64              `json:"delta"`
	CWEs    int                  `json:"cwes"`
	Skipped int                  `json:"skipped"`
	ByCWE   map[string]YoudenCWE `json:"by_cwe"`
}

// Compare compares the lowest repeat of a and b (scored runs of t): McNemar's exact test on the
// cases both judged, the paired bootstrap of the differences in F1, pAcc and accuracy, and the
// mean Youden index over CWEs.
func Compare(t *Truth, a, b *Run, opt score.Options, co score.CIOptions) (*Comparison, error) {
	opt = opt.Resolve(t.Cases)
	xa, ra, na := a.First()
	xb, rb, nb := b.First()
	cmp := &Comparison{A: a.Label(), B: b.Label(), N: len(t.Cases)}
	for _, n := range []*Note{na, nb} {
		if n != nil {
			cmp.Notes = append(cmp.Notes, *n)
		}
	}
	if ra == nil || rb == nil {
		r0 := score.Compute(t.Cases, nil, opt)
		ra, rb = &r0, &r0
	}
	for i := range t.Cases {
		var ya, yb score.Answer
		if i < len(xa) {
			ya = xa[i]
		}
		if i < len(xb) {
			yb = xb[i]
		}
		ca, oka := score.Correct(t.Cases[i].Label(), ya, opt)
		cb, okb := score.Correct(t.Cases[i].Label(), yb, opt)
		if !oka || !okb {
			continue
		}
		cmp.McNemar.N++
		switch {
		case ca && !cb:
			cmp.McNemar.B++
		case cb && !ca:
			cmp.McNemar.C++
		}
	}
	cmp.McNemar.PValue = stats.McNemarExact(cmp.McNemar.B, cmp.McNemar.C)
	d, err := score.PairedDeltas(t.Cases, xa, xb, opt, co)
	if err != nil {
		return nil, err
	}
	cmp.Delta = d
	cmp.ScoresA, cmp.ScoresB = headline(ra), headline(rb)
	cmp.Youden = youden(ra, rb)
	if t.HasVEX() {
		v, err := compareVEX(t, a, b, co)
		if err != nil {
			return nil, err
		}
		cmp.VEX = v
	}
	return cmp, nil
}

// compareVEX compares the VEX-Bench figures of a and b over all their repeats.
func compareVEX(t *Truth, a, b *Run, co score.CIOptions) (*VEXComparison, error) {
	repeats := func(r *Run) [][]score.Answer {
		out := make([][]score.Answer, len(r.Repeats))
		for i, k := range r.Repeats {
			out[i] = r.Answers[k]
		}
		return out
	}
	xa, xb := repeats(a), repeats(b)
	d := score.PairedVEXDeltas(t.Cases, xa, xb, co)
	if d == nil {
		return nil, nil
	}
	v := &VEXComparison{VEXDeltas: d, PerClass: map[string]ClassF1{}}
	fa, err := a.Figures()
	if err != nil {
		return nil, err
	}
	fb, err := b.Figures()
	if err != nil {
		return nil, err
	}
	if fa.VEX != nil && fb.VEX != nil {
		for _, m := range []map[string]score.ClassOf[score.Stat, score.Stat]{fa.VEX.PerClass, fb.VEX.PerClass} {
			for name := range m {
				ca, cb := fa.VEX.PerClass[name], fb.VEX.PerClass[name]
				v.PerClass[name] = ClassF1{Support: max(ca.Support.Mean, cb.Support.Mean), A: ca.F1.Mean, B: cb.F1.Mean, Delta: ca.F1.Mean - cb.F1.Mean}
			}
		}
	}
	// A case is right for a run when more than half of the repeats that judged it gave its
	// category; a case some run never judged is left out.
	right := func(rs [][]score.Answer, i int) (bool, bool) {
		n, ok := 0, 0
		for _, as := range rs {
			var x score.Answer
			if i < len(as) {
				x = as[i]
			}
			r, judged := score.VEXRight(&t.Cases[i], x)
			if judged {
				n++
				if r {
					ok++
				}
			}
		}
		return 2*ok > n, n > 0
	}
	for i := range t.Cases {
		ra, ja := right(xa, i)
		rb, jb := right(xb, i)
		if !ja || !jb {
			continue
		}
		v.McNemar.N++
		switch {
		case ra && !rb:
			v.McNemar.B++
		case rb && !ra:
			v.McNemar.C++
		}
	}
	v.McNemar.PValue = stats.McNemarExact(v.McNemar.B, v.McNemar.C)
	return v, nil
}

// Compare compares runs i and j of the report (see Compare) and adds the comparison to it.
func (r *Report) Compare(i, j int, co score.CIOptions) (*Comparison, error) {
	c, err := Compare(r.Truth, r.Runs[i], r.Runs[j], r.Options, co)
	if err != nil {
		return nil, err
	}
	r.Comparisons = append(r.Comparisons, c)
	return c, nil
}

func headline(r *score.Result) Headline {
	h := Headline{F1: r.Binary.F1, Accuracy: r.Binary.Accuracy}
	if r.Pairwise != nil {
		p := r.Pairwise.PAcc
		h.PAcc = &p
	}
	return h
}

func youden(ra, rb *score.Result) Youden {
	y := Youden{ByCWE: map[string]YoudenCWE{}}
	seen := map[string]bool{}
	for w := range ra.ByCWE {
		seen[w] = true
	}
	for w := range rb.ByCWE {
		seen[w] = true
	}
	for w := range seen {
		a, b := ra.ByCWE[w], rb.ByCWE[w]
		ja, oka := stats.Youden(a.TP, a.FN, a.FP, a.TN)
		jb, okb := stats.Youden(b.TP, b.FN, b.FP, b.TN)
		if !oka || !okb {
			y.Skipped++
			continue
		}
		y.ByCWE[w] = YoudenCWE{N: max(a.N, b.N), A: ja, B: jb}
		y.A += ja
		y.B += jb
		y.CWEs++
	}
	if y.CWEs > 0 {
		y.A /= float64(y.CWEs)
		y.B /= float64(y.CWEs)
	}
	y.Delta = y.A - y.B
	return y
}
