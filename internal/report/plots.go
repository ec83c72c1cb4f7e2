package report

import (
	"context"
	"math"

	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/store"
)

// What plots draw beyond the figures (Request.Plots): each run's spend and the ROC curve of its
// first repeat, so that a presenter (internal/output/html) computes nothing and reads no store.

// SpendStore is a store that keeps what each attempt used and cost. Build reads a run's spend
// from the Store given when it also is one.
type SpendStore interface {
	// RunSpend sums what every attempt of a run used (store.Store.RunSpend).
	RunSpend(ctx context.Context, runID string) (store.Spend, error)
}

// ROCStep is how far (in FPR plus TPR) a point of a drawn ROC curve moves from the last one kept.
const ROCStep = 1.0 / 2000

// XY is a point of a plot.
type XY struct{ X, Y float64 }

// ROC is a run's ROC curve, thinned for drawing, and its VD-S point on it.
type ROC struct {
	// Points are (FPR, TPR) from (0, 0), at least ROCStep apart, ending with the curve's last.
	Points []XY
	// VDS is the VD-S threshold's point: its FPR (0 without a threshold: nothing predicted
	// vul) and 1 - FNR.
	VDS XY
}

// plots fills each run's Spend and ROC.
func (r *Report) plots(ctx context.Context, st Store) error {
	ss, _ := st.(SpendStore)
	us, _ := st.(UsageStore)
	for _, run := range r.Runs {
		if run.Stored != nil && ss != nil {
			sp, err := ss.RunSpend(ctx, run.ID)
			if err != nil {
				return err
			}
			run.Spend = &sp
		}
		run.ROC = rocOf(r.Truth, run, r.Options)
		if err := run.perCase(ctx, r.Truth, us); err != nil {
			return err
		}
		for _, dim := range []string{DimLanguage, DimRepoSize} {
			if gs := run.groups(r.Truth, r.Options, dim); gs != nil {
				if run.Groups == nil {
					run.Groups = map[string][]GroupScore{}
				}
				run.Groups[dim] = gs
			}
		}
	}
	return nil
}

// rocOf is the ROC curve of a run's first repeat, or nil when the run has no scored verdict on
// a vul case and on a ben case (or no VD-S figure).
func rocOf(t *Truth, r *Run, opt score.Options) *ROC {
	answers, res, _ := r.First()
	if res == nil || res.VDS == nil {
		return nil
	}
	v := res.VDS
	roc := &ROC{VDS: XY{Y: 1 - v.FNR}}
	curve := thinner{step: ROCStep}
	if !score.EachROCPoint(t.Cases, answers, opt, func(p score.ROCPoint) {
		if v.Threshold != nil && p.Threshold == *v.Threshold {
			roc.VDS.X = p.FPR
		}
		curve.add(p)
	}) {
		return nil
	}
	roc.Points = curve.points()
	return roc
}

// thin keeps the points of a curve that move at least step (in FPR plus TPR) from the last one
// kept, and the last point: a million distinct scores draw the same picture with a few thousand
// points, and a page stays small.
func thin(curve []score.ROCPoint, step float64) []XY {
	t := thinner{step: step}
	for _, c := range curve {
		t.add(c)
	}
	return t.points()
}

// thinner thins a curve as its points come (see thin), holding only those it keeps.
type thinner struct {
	step    float64
	xys     []XY
	end     XY   // the last point seen
	skipped bool // end was not kept
}

func (t *thinner) add(c score.ROCPoint) {
	t.end = XY{X: c.FPR, Y: c.TPR}
	if n := len(t.xys); n > 0 {
		if k := t.xys[n-1]; math.Abs(t.end.X-k.X)+math.Abs(t.end.Y-k.Y) < t.step {
			t.skipped = true
			return
		}
	}
	t.skipped = false
	t.xys = append(t.xys, t.end)
}

// points returns the points kept, ending with the curve's last.
func (t *thinner) points() []XY {
	if t.skipped {
		return append(t.xys, t.end)
	}
	return t.xys
}
