package score

import (
	"math"
)

// ROCPoint is one point of a ROC curve: the rates when every case scored at least Threshold is
// predicted vulnerable.
type ROCPoint struct {
	Threshold float64 `json:"threshold"`
	FPR       float64 `json:"fpr"`
	TPR       float64 `json:"tpr"`
}

// ROC is the ROC curve VD-S reads its point from (the same cases and scores as Compute's VD-S):
// one point per distinct finite score, descending, after the point (0, 0) where nothing is
// predicted vulnerable; failed verdicts are never predicted vulnerable. Nil when the cases
// scored lack a vulnerable or a benign one.
func ROC(cases []Case, answers []Answer, opt Options) []ROCPoint {
	var curve []ROCPoint
	EachROCPoint(cases, answers, opt, func(p ROCPoint) { curve = append(curve, p) })
	return curve
}

// EachROCPoint calls fn with each point of the curve ROC returns, in order, without holding
// them: a million distinct scores are a million points, which a plot thins anyway. It reports
// whether there is a curve.
func EachROCPoint(cases []Case, answers []Answer, opt Options, fn func(ROCPoint)) bool {
	opt = opt.Resolve(cases)
	benMode := opt.UnparsedAs == UnparsedBen
	pts := newPoints(cases)
	for i := range cases {
		var a Answer
		if i < len(answers) {
			a = answers[i]
		}
		vul := cases[i].Vul
		switch a.out {
		case outVul, outBen:
			s := 0.0
			switch {
			case a.scored():
				s = a.score
			case a.out == outVul:
				s = 1
			}
			pts.add(s, vul)
		case outFailed, outStopped:
			if vul || benMode {
				pts.add(math.Inf(-1), vul)
			}
		}
	}
	nv, nb := len(pts.vul), len(pts.ben)
	if nv == 0 || nb == 0 {
		return false
	}
	fn(ROCPoint{Threshold: math.Inf(1)})
	pts.sweep(func(s float64, tp, fp int) bool {
		fn(ROCPoint{Threshold: s, FPR: float64(fp) / float64(nb), TPR: float64(tp) / float64(nv)})
		return true
	})
	return true
}
