package score_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func TestROC(t *testing.T) {
	cases, vs := scored([]float64{0.9, 0.8, 0.4}, []float64{0.8, 0.3, 0.1, 0.05})
	got := score.ROC(cases, score.Answers(cases, vs), score.Options{})
	want := []score.ROCPoint{
		{Threshold: math.Inf(1)},
		{Threshold: 0.9, FPR: 0, TPR: 1.0 / 3},
		{Threshold: 0.8, FPR: 0.25, TPR: 2.0 / 3},
		{Threshold: 0.4, FPR: 0.25, TPR: 1},
		{Threshold: 0.3, FPR: 0.5, TPR: 1},
		{Threshold: 0.1, FPR: 0.75, TPR: 1},
		{Threshold: 0.05, FPR: 1, TPR: 1},
	}
	if d := cmp.Diff(want, got, approx()); d != "" {
		t.Errorf("ROC (-want +got):\n%s", d)
	}
	// VD-S's point lies on the curve: the last point with FPR <= r has TPR = 1 - FNR.
	for _, r := range []float64{0.005, 0.25, 0.6} {
		res := score.Compute(cases, score.Answers(cases, vs), score.Options{VDSFPR: r})
		best := want[0]
		for _, p := range want {
			if p.FPR <= r {
				best = p
			}
		}
		if math.Abs(1-best.TPR-res.VDS.FNR) > 1e-12 {
			t.Errorf("r=%v: curve gives FNR %v, VD-S %v", r, 1-best.TPR, res.VDS.FNR)
		}
	}
	// A failed vul case is never predicted vulnerable; errors are left out; one class: no curve.
	c2 := []score.Case{vulCase("v", 0), benCase("b", 0), vulCase("e", 0)}
	v2 := map[string]verdict.Verdict{"v": failed(), "b": okScore(suite.Ben, 0.2), "e": errored()}
	if d := cmp.Diff([]score.ROCPoint{{Threshold: math.Inf(1)}, {Threshold: 0.2, FPR: 1, TPR: 0}}, score.ROC(c2, score.Answers(c2, v2), score.Options{})); d != "" {
		t.Errorf("ROC with a failed and an error verdict (-want +got):\n%s", d)
	}
	if got := score.ROC(c2[:1], score.Answers(c2[:1], v2), score.Options{}); got != nil {
		t.Errorf("ROC of vul cases only = %v, want nil", got)
	}
}
