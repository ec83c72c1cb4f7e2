package report

import (
	"context"

	"github.com/vulnbench/vulnbench/internal/store"
)

// What the distribution plots draw (Request.Plots): per case, not only the means the figures
// hold.

// UsageStore is a store that sums each case's usage over its attempts. Build reads a run's
// per-case tokens and cost from the Store given when it also is one.
type UsageStore interface {
	CaseUsages(ctx context.Context, runID string, fn func(store.CaseUsage) error) error
}

// PerCase is what a run's first repeat used and did per case.
type PerCase struct {
	// Tokens (input plus output) and Cost (USD) of each case with an attempt, summed over its
	// attempts, in case order; Cost only over the cases whose cost is known.
	Tokens, Cost []float64
	// Tools is the histogram of tool calls per answered case by label; nil when no answer of
	// the run made a tool call.
	Tools *ToolHist
}

// ToolHist counts cases by the tool calls made for their verdict: bin k holds the cases with
// Low[k] to Low[k]+Width-1 calls.
type ToolHist struct {
	Width    int
	Low      []int
	Vul, Ben []float64 // share of the answered vul (ben) cases in each bin; each sums to 1
	NVul     int       // answered vul cases
	NBen     int       // answered ben cases
}

// maxToolBins is the most bins a tool-call histogram has: wider bins past it.
const maxToolBins = 20

// perCase fills a run's PerCase from its first repeat (usage from us, nil for none).
func (r *Run) perCase(ctx context.Context, t *Truth, us UsageStore) error {
	pc := &PerCase{}
	if us != nil && r.Stored != nil && len(r.Repeats) > 0 {
		first := r.Repeats[0]
		if err := us.CaseUsages(ctx, r.ID, func(u store.CaseUsage) error {
			if u.Repeat != first {
				return nil
			}
			if _, ok, _ := t.Find(u.CaseID); !ok {
				return nil
			}
			pc.Tokens = append(pc.Tokens, float64(u.Tokens))
			if u.Cost != nil {
				pc.Cost = append(pc.Cost, *u.Cost)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	pc.Tools = r.toolHist(t)
	if len(pc.Tokens)+len(pc.Cost) > 0 || pc.Tools != nil {
		r.PerCase = pc
	}
	return nil
}

// toolHist is the histogram of the first repeat's tool calls per answered case, by label.
func (r *Run) toolHist(t *Truth) *ToolHist {
	answers, _, _ := r.First()
	var vul, ben []int
	hi, any := 0, false
	for i, a := range answers {
		if !a.Answered() {
			continue
		}
		n := a.ToolCalls()
		hi, any = max(hi, n), any || n > 0
		if t.Cases[i].Vul {
			vul = append(vul, n)
		} else {
			ben = append(ben, n)
		}
	}
	if !any {
		return nil
	}
	w := (hi + maxToolBins) / maxToolBins // ceil((hi+1)/maxToolBins)
	bins := hi/w + 1
	h := &ToolHist{Width: w, Low: make([]int, bins), Vul: make([]float64, bins), Ben: make([]float64, bins), NVul: len(vul), NBen: len(ben)}
	for k := range h.Low {
		h.Low[k] = k * w
	}
	for _, s := range []struct {
		ns    []int
		share []float64
	}{{vul, h.Vul}, {ben, h.Ben}} {
		for _, n := range s.ns {
			s.share[n/w] += 1 / float64(len(s.ns))
		}
	}
	return h
}

// VDSCurve is VD-S as a function of the tolerated FPR r, from the thinned ROC points: the FNR
// of the best threshold whose FPR is at most r, a step down at each point's FPR, from r = 0
// to r = 1.
func (c *ROC) VDSCurve() []XY {
	out := []XY{{X: 0, Y: 1}}
	best := 0.0 // the highest TPR at an FPR seen so far
	for _, p := range c.Points {
		if p.Y <= best {
			continue
		}
		out = append(out, XY{X: p.X, Y: 1 - best}, XY{X: p.X, Y: 1 - p.Y})
		best = p.Y
	}
	return append(out, XY{X: 1, Y: 1 - best})
}
