package extract

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// Putting a part parse and the reused runs together (see region.go).

// mergeRuns puts the definitions and call sites of the changed regions (part) and of the
// unchanged runs (from prev, moved) together in source order, as one parse of the file gives
// them. ok is false when prev's results do not fall into its units as expected.
func mergeRuns(path string, l lang.Lang, prev, part *graph.FileResult, runs []run) (*graph.FileResult, bool) {
	res := &graph.FileResult{Path: path, Lang: l, Funcs: make([]graph.Func, 0, len(prev.Funcs)+len(part.Funcs))}
	calls := make([]graph.Call, 0, len(prev.Calls)+len(part.Calls))
	partIdx := make([]int, len(part.Funcs))
	pi := 0
	emitPart := func(before int) {
		for pi < len(part.Funcs) && part.Funcs[pi].StartByte < before {
			partIdx[pi] = len(res.Funcs)
			res.Funcs = append(res.Funcs, part.Funcs[pi])
			pi++
		}
	}
	for _, r := range runs {
		emitPart(r.newByte)
		oldEnd := r.oldByte + r.size
		f0 := sort.Search(len(prev.Funcs), func(k int) bool { return prev.Funcs[k].StartByte >= r.oldByte })
		f1 := f0
		for f1 < len(prev.Funcs) && prev.Funcs[f1].StartByte < oldEnd {
			f1++
		}
		first := len(res.Funcs)
		dRow, dByte := r.newRow-r.oldRow, r.newByte-r.oldByte
		for _, f := range prev.Funcs[f0:f1] {
			if f.EndByte > oldEnd {
				return nil, false
			}
			f.File = path
			f.StartLine += dRow
			f.EndLine += dRow
			f.StartByte += dByte
			f.EndByte += dByte
			res.Funcs = append(res.Funcs, f)
		}
		c0 := sort.Search(len(prev.Calls), func(k int) bool { return prev.Calls[k].Line-1 >= r.oldRow })
		for c := c0; c < len(prev.Calls) && prev.Calls[c].Line-1 < r.oldRow+r.rows; c++ {
			call := prev.Calls[c]
			if call.Caller >= 0 {
				if call.Caller < f0 || call.Caller >= f1 {
					return nil, false
				}
				call.Caller += first - f0
			}
			call.File = path
			call.Line += dRow
			calls = append(calls, call)
		}
	}
	emitPart(math.MaxInt)
	for _, c := range part.Calls {
		if c.Caller >= 0 {
			c.Caller = partIdx[c.Caller]
		}
		calls = append(calls, c)
	}
	// One file-scope reference per name, the first in the file: the candidates are the ones
	// each side kept and those the runs had dropped (a dropped one of the changed regions has
	// an earlier one there).
	res.DroppedRefs = slices.Clone(part.DroppedRefs)
	for _, r := range runs {
		for _, c := range prev.DroppedRefs {
			if c.Line-1 >= r.oldRow && c.Line-1 < r.oldRow+r.rows {
				c.File = path
				c.Line += r.newRow - r.oldRow
				calls = append(calls, c)
			}
		}
	}
	byPlace := func(a, b graph.Call) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col)) }
	slices.SortStableFunc(calls, byPlace)
	seen := map[string]bool{}
	calls = slices.DeleteFunc(calls, func(c graph.Call) bool {
		if c.Kind != graph.Reference || c.Caller >= 0 {
			return false
		}
		if seen[c.Callee] {
			res.DroppedRefs = append(res.DroppedRefs, c)
			return true
		}
		seen[c.Callee] = true
		return false
	})
	slices.SortStableFunc(res.DroppedRefs, byPlace)
	res.Calls = calls
	return res, true
}

// joinRegions returns the units of the new file: those of the changed regions' parse and those
// of the runs, moved.
func joinRegions(partRegions, prevRegions []uint32, runs []run) []uint32 {
	var spans []span
	for k := 0; 2*k+1 < len(partRegions); k++ {
		spans = append(spans, spanAt(partRegions, k))
	}
	for _, r := range runs {
		d := r.newRow - r.oldRow
		for k := r.r0; k < r.r1; k++ {
			sp := spanAt(prevRegions, k)
			sp.first, sp.last = uint32(int(sp.first)+d), uint32(int(sp.last)+d)
			spans = append(spans, sp)
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.first, b.first) })
	out := make([]uint32, 0, 2*len(spans))
	for _, sp := range spans {
		f := sp.flagged()
		if k := len(out); k > 0 && sp.first <= out[k-1] {
			out[k-1] = max(out[k-1], sp.last)
			out[k-2] |= f & (graph.RegionUnsafe | graph.RegionErrors)
			continue
		}
		out = append(out, f, sp.last)
	}
	return out
}
