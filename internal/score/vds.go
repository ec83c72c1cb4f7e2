package score

import (
	"cmp"
	"math"
	"slices"
)

// point is one case in the VD-S computation: its vulnerable-class score and its true label.
type point struct {
	s   float64
	vul bool
}

// vds computes VD-S at tolerance r over pts, which it sorts. It returns nil when pts lack a
// vulnerable or a benign case. One sort, then one sweep over the distinct scores, descending: each
// distinct finite score is a threshold whose ROC point takes in every case with that score at once.
// FPR only grows along the sweep, so the last point with FPR <= r has the largest such FPR and, among
// points sharing it, the lowest threshold.
func vds(pts []point, r float64) *VDS {
	var nv, nb int
	for _, p := range pts {
		if p.vul {
			nv++
		} else {
			nb++
		}
	}
	if nv == 0 || nb == 0 {
		return nil
	}
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(b.s, a.s) })

	var (
		tp, fp, bestTP, distinct int
		bestS                    float64
		found                    bool   // a finite threshold has FPR <= r
		within                   = true // the points so far have FPR <= r
	)
	for i := 0; i < len(pts); {
		s := pts[i].s
		if math.IsInf(s, -1) {
			break // failed verdicts: never predicted vulnerable
		}
		for ; i < len(pts) && pts[i].s == s; i++ {
			if pts[i].vul {
				tp++
			} else {
				fp++
			}
		}
		distinct++
		if within && float64(fp)/float64(nb) <= r {
			bestTP, bestS, found = tp, s, true
		} else {
			within = false
			if distinct > 2 {
				break
			}
		}
	}
	v := &VDS{
		FPRTolerance: r,
		FNR:          ratio(nv-bestTP, nv),
		Degenerate:   distinct <= 2,
		N:            len(pts),
	}
	if found {
		v.Threshold = &bestS
	}
	return v
}
