package score

import (
	"math"
	"slices"
)

// points are the cases of a VD-S computation by true label: their vulnerable-class scores,
// -Inf for a failed verdict (never predicted vulnerable). 8 bytes a case.
type points struct{ vul, ben []float64 }

// newPoints sizes the points for the cases: at most one per case of each label.
func newPoints(cases []Case) points {
	nv := 0
	for i := range cases {
		if cases[i].Vul {
			nv++
		}
	}
	return points{vul: make([]float64, 0, nv), ben: make([]float64, 0, len(cases)-nv)}
}

func (p *points) add(s float64, vul bool) {
	if vul {
		p.vul = append(p.vul, s)
	} else {
		p.ben = append(p.ben, s)
	}
}

// sweep sorts the scores and calls fn at each distinct finite score, descending, with how many
// vul (tp) and ben (fp) cases score at least that much: the ROC point of that threshold takes in
// every case with that score at once. It stops when fn returns false.
func (p *points) sweep(fn func(s float64, tp, fp int) bool) {
	slices.Sort(p.vul)
	slices.Sort(p.ben)
	i, j := len(p.vul), len(p.ben) // the scores from i and j on are taken in
	for i > 0 || j > 0 {
		s := math.Inf(-1)
		if i > 0 {
			s = p.vul[i-1]
		}
		if j > 0 && p.ben[j-1] > s {
			s = p.ben[j-1]
		}
		if math.IsInf(s, -1) {
			return
		}
		for i > 0 && p.vul[i-1] == s {
			i--
		}
		for j > 0 && p.ben[j-1] == s {
			j--
		}
		if !fn(s, len(p.vul)-i, len(p.ben)-j) {
			return
		}
	}
}

// vds computes VD-S at tolerance r over pts, which it sorts. It returns nil when pts lack a
// vulnerable or a benign case. One sweep over the distinct scores, descending: FPR only grows
// along it, so the last point with FPR <= r has the largest such FPR and, among points sharing
// it, the lowest threshold.
func vds(pts points, r float64) *VDS {
	nv, nb := len(pts.vul), len(pts.ben)
	if nv == 0 || nb == 0 {
		return nil
	}
	var (
		bestTP, distinct int
		bestS            float64
		found            bool   // a finite threshold has FPR <= r
		within           = true // the points so far have FPR <= r
	)
	pts.sweep(func(s float64, tp, fp int) bool {
		distinct++
		if within && float64(fp)/float64(nb) <= r {
			bestTP, bestS, found = tp, s, true
		} else {
			within = false
			if distinct > 2 {
				return false
			}
		}
		return true
	})
	v := &VDS{
		FPRTolerance: r,
		FNR:          ratio(nv-bestTP, nv),
		Degenerate:   distinct <= 2,
		N:            nv + nb,
	}
	if found {
		v.Threshold = &bestS
	}
	return v
}
