package extract

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
	"github.com/vulnbench/vulnbench/internal/codegraph/linediff"
	"github.com/vulnbench/vulnbench/internal/codegraph/prep"
)

// Reparsing by region: an edited file is parsed again only where it changed. The previous
// parse recorded the file's top-level units (FileResult.Regions, region_units.go); a line diff
// says which of them are unchanged; the new file's prepared text is parsed with runs of those
// units skipped (tree-sitter's included ranges, as prep's blank runs are), so that every offset
// is the new file's, and the runs' definitions and call sites are taken from the previous
// result, moved by the lines and bytes inserted or deleted before them (region_merge.go).
// Whenever the result could differ from a whole parse, the file is parsed whole
// (region_checks.go; NOTES.md lists the cases).

// maxEdits bounds the line diff of an edited file (inserted plus deleted lines); a file changed
// more is parsed whole.
const maxEdits = 4000

// Reparse says how IndexEdited parsed a file.
type Reparse struct {
	Part  bool // only the changed regions were parsed
	Bytes int  // bytes the parser read: the file's size when parsed whole (after a failed part parse, both)
}

// IndexEdited is IndexFileAs for src, the new content of a file whose previous content old
// gave prev (IndexFileAs or IndexEdited in the same language): it parses only the top-level
// units of src that changed, widened to the units of prev.Regions, and takes the rest from
// prev. The file is parsed whole when prev has no regions, the language has file-wide context,
// the diff is too large, or a check finds that a whole parse could read the file otherwise.
// The result equals IndexFileAs's but for Regions (which may be cut differently), DroppedRefs
// (in source order) and SyntaxErrors (a lower bound, zero exactly when IndexFileAs's is).
func (fi *FileIndexer) IndexEdited(l lang.Lang, path string, src, old []byte, prev *graph.FileResult) (*graph.FileResult, Reparse, error) {
	res, n, ok := fi.indexEdited(l, path, src, old, prev)
	if ok {
		return res, Reparse{Part: true, Bytes: n}, nil
	}
	res, err := fi.IndexFileAs(l, path, src)
	return res, Reparse{Bytes: n + len(src)}, err
}

// run is a run of consecutive unchanged units: rows lines from oldRow in the previous content,
// from newRow in the new one; size bytes from oldByte and newByte.
type run struct {
	oldRow, newRow, rows   int
	oldByte, newByte, size int
	r0, r1                 int // its units: prev.Regions[2*r0 : 2*r1]
	blk                    int // the equal block of the diff it lies in
	// linkL and linkR: only unchanged directive and blank lines separate it from the run before
	// (after), so that the text around that edge is the previous content's, as parsed then.
	linkL, linkR bool
}

// indexEdited parses src by region; ok is false when it must be parsed whole, and n is how many
// bytes the parser read.
func (fi *FileIndexer) indexEdited(l lang.Lang, path string, src, old []byte, prev *graph.FileResult) (res *graph.FileResult, n int, ok bool) {
	if fi.p == nil || prev == nil || len(prev.Regions) == 0 || prev.Skip != "" || prev.Lang != l || !regionLang(l) || contentSkip(l, src) != "" {
		return nil, 0, false
	}
	a, b := linediff.Lines(old), linediff.Lines(src)
	blocks, ok := linediff.Equal(a, b, maxEdits)
	if !ok {
		return nil, 0, false
	}
	ls := lines{old: a, oldStart: lineStarts(a), newStart: lineStarts(b)}
	changed := make([]bool, len(b)) // the new content's lines that the diff did not keep
	for i := range changed {
		changed[i] = true
	}
	for _, blk := range blocks {
		for i := blk.New; i < blk.New+blk.N; i++ {
			changed[i] = false
		}
	}
	runs := reusable(prev.Regions, blocks, ls)
	if len(runs) == 0 {
		return nil, 0, false
	}
	text, pgaps := prep.Prepare(l, src, fi.scratch)
	if len(text) > 0 && &text[0] != &src[0] {
		fi.scratch = text[:0]
	}
	if !closed(text, l) {
		return nil, 0, false // a bracket or #endif the parser supplies, wherever it decides to
	}
	oldText, _ := prep.Prepare(l, old, fi.oldScratch)
	if len(oldText) > 0 && &oldText[0] != &old[0] {
		fi.oldScratch = oldText[:0]
	}
	for i := range runs { // prep read a run otherwise here: it is parsed, and its neighbours unlinked
		r := &runs[i]
		if !bytes.Equal(oldText[r.oldByte:r.oldByte+r.size], text[r.newByte:r.newByte+r.size]) {
			dropRun(runs, i)
		}
	}
	runs = settle(runs, prev.Regions, ls)
	// A run next to a changed unit the parser could not read cleanly is cut back by one unit
	// and the changed regions parsed again, twice at most.
	for attempt := 0; ; attempt++ {
		if len(runs) == 0 {
			return nil, n, false
		}
		gaps := make([]uint32, 0, 4*len(runs)+len(pgaps))
		size := len(src)
		for _, r := range runs {
			gaps = append(gaps, uint32(r.newByte), uint32(r.newByte+r.size), uint32(r.newRow), uint32(r.newRow+r.rows))
			size -= r.size
		}
		if !segmentsClosed(text, runs, l) {
			return nil, n, false
		}
		n += size
		nodes, err := fi.p.parse(l, text, unionGaps(append(gaps, pgaps...)), fi.timeout)
		if err != nil {
			return nil, n, false
		}
		if len(fi.intern) > 1<<20 {
			clear(fi.intern)
		}
		part := &graph.FileResult{Path: path, Lang: l}
		x := extractor{g: fi.p.gs[l], src: src, n: nodes, intern: fi.intern, res: part}
		x.run()
		if x.wide || x.nestedDefs(changed, text) || x.strayBody() {
			return nil, n, false
		}
		if trouble := x.clearOf(runs, text); len(trouble) > 0 {
			if attempt == 2 {
				return nil, n, false
			}
			runs = cutBack(runs, trouble, prev.Regions, ls)
			continue
		}
		if res, ok = mergeRuns(path, l, prev, part, runs); !ok {
			return nil, n, false
		}
		res.SyntaxErrors = part.SyntaxErrors
		for _, r := range runs {
			for k := r.r0; k < r.r1; k++ {
				if spanAt(prev.Regions, k).errs {
					res.SyntaxErrors++ // a lower bound: zero exactly when none
				}
			}
		}
		if fi.regions {
			res.Regions = joinRegions(x.regions(text, part.Funcs), prev.Regions, runs)
		}
		// Definitions the parser could not close are cut as IndexFileAs cuts them; one that
		// needs its second parse of the whole file is left to IndexFileAs.
		if l == lang.C || l == lang.CPP {
			if cuts := findUnclosed(res, text); len(cuts) > 0 {
				// A definition that runs on past its braces where the parse saw no error
				// tells of a recovery a whole parse may make otherwise (and count an error).
				if res.SyntaxErrors == 0 || ranToEnd(res, text, cuts) {
					return nil, n, false // IndexFileAs parses the file again
				}
				if res.Regions != nil {
					res.Regions = withoutCut(res.Regions, res, cuts)
				}
				capDefs(res, cuts)
			}
		}
		return res, n, true
	}
}

// lines are the old content's lines and the offsets of both contents' lines.
type lines struct {
	old                [][]byte
	oldStart, newStart []int
}

// place fills in r's rows and offsets from its units.
func (r *run) place(regions []uint32, ls lines) {
	d := r.newRow - r.oldRow
	r.oldRow = int(spanAt(regions, r.r0).first)
	r.newRow = r.oldRow + d
	r.rows = int(spanAt(regions, r.r1-1).last) - r.oldRow + 1
	r.oldByte, r.newByte = ls.oldStart[r.oldRow], ls.newStart[r.newRow]
	r.size = ls.oldStart[r.oldRow+r.rows] - r.oldByte
}

// trim gives r's unsafe units at an unlinked edge back to the parse: a unit with a syntax
// error (or next to one) is reused only where the text around it is what it was.
func (r *run) trim(regions []uint32) {
	for !r.linkL && r.r0 < r.r1 && spanAt(regions, r.r0).unsafe {
		r.r0++
	}
	for !r.linkR && r.r1 > r.r0 && spanAt(regions, r.r1-1).unsafe {
		r.r1--
	}
}

// cutBack gives the troubled runs' first or last unit back to the parse.
func cutBack(runs []run, ts []trouble, regions []uint32, ls lines) []run {
	byRun := map[int]trouble{}
	for _, t := range ts {
		o := byRun[t.run]
		byRun[t.run] = trouble{run: t.run, head: o.head || t.head, tail: o.tail || t.tail}
	}
	for _, t := range byRun {
		r := &runs[t.run]
		if t.head && t.tail {
			r.r1 = r.r0 // a unit runs into it: parse it all
			continue
		}
		if t.head {
			r.r0++
			r.linkL = false
		}
		if t.tail {
			r.r1--
			r.linkR = false
		}
	}
	for i := range runs {
		if runs[i].r0 >= runs[i].r1 {
			dropRun(runs, i)
		}
	}
	return settle(runs, regions, ls)
}

// lineStarts returns the offset of each line and, last, the total length.
func lineStarts(lines [][]byte) []int {
	out := make([]int, len(lines)+1)
	for i, l := range lines {
		out[i+1] = out[i] + len(l)
	}
	return out
}

// reusable returns the runs of consecutive units of regions that lie within one equal block
// with only blank lines between them.
func reusable(regions []uint32, blocks []linediff.Block, ls lines) []run {
	var runs []run
	bi := 0
	cur := -1 // index in runs of the run the previous unit extends, or -1
	curBlock := -1
	for k := 0; k+1 < len(regions); k += 2 {
		sp := spanAt(regions, k/2)
		first, last := int(sp.first), int(sp.last)
		for bi < len(blocks) && blocks[bi].Old+blocks[bi].N <= first {
			bi++
		}
		if bi == len(blocks) || blocks[bi].Old > first || last >= blocks[bi].Old+blocks[bi].N {
			cur = -1
			continue
		}
		if cur >= 0 && curBlock == bi && blankLines(ls.old[runs[cur].oldRow+runs[cur].rows:first]) {
			r := &runs[cur]
			r.rows = last - r.oldRow + 1
			r.r1 = k/2 + 1
			continue
		}
		blk := blocks[bi]
		runs = append(runs, run{oldRow: first, newRow: first - blk.Old + blk.New, rows: last - first + 1, r0: k / 2, r1: k/2 + 1, blk: bi})
		cur, curBlock = len(runs)-1, bi
	}
	for i := 0; i+1 < len(runs); i++ {
		a, b := &runs[i], &runs[i+1]
		if a.blk == b.blk && directiveLines(ls.old[a.oldRow+a.rows:b.oldRow]) {
			a.linkR, b.linkL = true, true
		}
	}
	// A run next to a changed unit that had a syntax error gives its edge unit back at once:
	// the error is likely still there, and clearOf would send the run back for it after a parse.
	inRun := make([]bool, len(regions)/2)
	for _, r := range runs {
		for k := r.r0; k < r.r1; k++ {
			inRun[k] = true
		}
	}
	for i := range runs {
		r := &runs[i]
		if r.r0 > 0 && !inRun[r.r0-1] && spanAt(regions, r.r0-1).errs && spanAt(regions, r.r0-1).unsafe {
			r.r0++
		}
		if r.r1 < len(inRun) && r.r1 > r.r0 && !inRun[r.r1] && spanAt(regions, r.r1).errs && spanAt(regions, r.r1).unsafe {
			r.r1--
		}
	}
	// The file's start and end are edges nothing changes beyond either.
	if len(runs) > 0 {
		r, blk := &runs[0], blocks[runs[0].blk]
		r.linkL = blk.Old == 0 && blk.New == 0 && directiveLines(ls.old[:r.oldRow])
		r, blk = &runs[len(runs)-1], blocks[runs[len(runs)-1].blk]
		r.linkR = blk.Old+blk.N == len(ls.old) && blk.New+blk.N == len(ls.newStart)-1 && directiveLines(ls.old[r.oldRow+r.rows:])
	}
	return settle(runs, regions, ls)
}

// settle trims the runs' unsafe units at unlinked edges (see trim), drops the runs left empty,
// unlinking their neighbours, until nothing changes, and places the runs.
func settle(runs []run, regions []uint32, ls lines) []run {
	for changed := true; changed; {
		changed = false
		for i := range runs {
			r := &runs[i]
			if r.r0 >= r.r1 {
				continue
			}
			r.trim(regions)
			if r.r0 >= r.r1 {
				changed = true
				dropRun(runs, i)
			}
		}
	}
	runs = slices.DeleteFunc(runs, func(r run) bool { return r.r0 >= r.r1 })
	for i := range runs {
		runs[i].place(regions, ls)
	}
	return runs
}

// dropRun empties runs[i] (settle removes it) and unlinks its neighbours: the text between
// them is no longer the previous content as parsed then.
func dropRun(runs []run, i int) {
	runs[i].r0, runs[i].r1 = 0, 0
	if i > 0 {
		runs[i-1].linkR = false
	}
	if i+1 < len(runs) {
		runs[i+1].linkL = false
	}
}

// directiveLines reports whether every line is blank or a preprocessor directive.
func directiveLines(ls [][]byte) bool {
	for _, l := range ls {
		if t := bytes.TrimSpace(l); len(t) > 0 && (t[0] != '#' || t[len(t)-1] == '\\') {
			return false
		}
	}
	return true
}

// blankLines reports whether every line holds only white space.
func blankLines(ls [][]byte) bool {
	for _, l := range ls {
		if len(bytes.TrimSpace(l)) > 0 {
			return false
		}
	}
	return true
}

// unionGaps sorts gaps (start, end, start row, end row; whole lines) and joins those that overlap.
func unionGaps(g []uint32) []uint32 {
	type gap struct{ s, e, sr, er uint32 }
	gs := make([]gap, 0, len(g)/4)
	for i := 0; i+3 < len(g); i += 4 {
		gs = append(gs, gap{g[i], g[i+1], g[i+2], g[i+3]})
	}
	slices.SortFunc(gs, func(a, b gap) int { return cmp.Compare(a.s, b.s) })
	out := g[:0]
	for _, x := range gs {
		if k := len(out); k > 0 && x.s <= out[k-3] {
			if x.e > out[k-3] {
				out[k-3], out[k-1] = x.e, x.er
			}
			continue
		}
		out = append(out, x.s, x.e, x.sr, x.er)
	}
	return out
}
