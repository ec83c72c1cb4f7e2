package report_test

import (
	"testing"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
)

// A curve of many distinct scores is drawn with a bounded number of points, ending where the
// scores end.
func TestROCThinned(t *testing.T) {
	curve := make([]score.ROCPoint, 0, 100001)
	for i := range 100001 {
		f := float64(i) / 100000
		curve = append(curve, score.ROCPoint{Threshold: 1 - f, FPR: f, TPR: min(1, 2*f)})
	}
	xys := report.Thin(curve, report.ROCStep)
	if len(xys) > 4001 || len(xys) < 1000 {
		t.Errorf("%d points kept of %d", len(xys), len(curve))
	}
	if last := xys[len(xys)-1]; last.X != 1 || last.Y != 1 {
		t.Errorf("the curve ends at %v, want (1, 1)", last)
	}
}
