package extract

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
	"github.com/vulnbench/vulnbench/internal/codegraph/linediff"
	"github.com/vulnbench/vulnbench/internal/codegraph/prep"
)

// Reparsing by region: an edited file whose previous content was parsed cleanly is parsed again
// only where it changed. The previous parse recorded the file's top-level units
// (FileResult.Regions); a line diff says which of them are unchanged; the new file's prepared
// text is parsed with those units skipped (tree-sitter's included ranges, as prep's blank runs
// are), so that every offset is the new file's, and the units' definitions and call sites are
// taken from the previous result, moved by the lines and bytes inserted or deleted before them.
// Whenever the result could differ from a whole parse, the file is parsed whole.

// maxEdits bounds the line diff of an edited file (inserted plus deleted lines); a file changed
// more is parsed whole.
const maxEdits = 4000

// regionLang reports whether l's extraction of a top-level unit depends on nothing outside the
// unit but the file-wide context the extractor flags (extractor.wide). Go's does (the package
// clause qualifies every name, imports and package variables classify calls anywhere).
func regionLang(l lang.Lang) bool {
	switch l {
	case lang.C, lang.CPP, lang.Java, lang.Python, lang.JavaScript:
		return true
	}
	return false
}

// terminated reports whether root child i, in text, closes itself: nothing after it can
// extend it (';', a '}' ending a block that cannot continue, a preprocessor line, a Python
// statement).
func (x *extractor) terminated(i int, text []byte) bool {
	s, e := int(x.n[i].start), int(x.n[i].end)
	if e > len(text) || s > e {
		return false
	}
	b := bytes.TrimSpace(text[s:e])
	if len(b) == 0 || !balanced(b, x.g.lang == lang.Python) {
		return false // a bracket the parser took as MISSING, which the flat tree does not hold
	}
	switch x.g.lang {
	case lang.Python:
		return true
	case lang.C, lang.CPP:
		if b[0] == '#' {
			return true
		}
	}
	switch b[len(b)-1] {
	case ';':
		return true
	case '}':
		switch x.g.lang {
		case lang.Java, lang.Python:
			return true
		case lang.C, lang.CPP: // a struct's '}' wants a ';' or a declarator after it
			return x.kind(i) == kFunctionDefinition
		}
		switch x.kind(i) { // a '}' ending an expression may be followed by a call or an operator
		case kFunctionDeclaration, kGeneratorFunctionDeclaration, kClassDeclaration:
			return true
		}
	}
	return false
}

// A unit is a node at unit level: a child of the root or, in C and C++, of a preprocessor
// conditional at unit level (most C files wrap everything in #ifndef HEADER_H or #ifndef
// CURL_DISABLE_X). The conditionals' own lines (#if, #else, #endif) belong to no unit, so they
// are parsed again whenever a unit next to them is, and a region never spans one.

// unit is one unit of a parse, for regions.
type unit struct {
	first, last uint32 // rows
	comment     bool
	term        bool // terminated
	err         bool // holds a syntax error, or lies next to one
	hasErr      bool // holds a syntax error
	skip        bool // on a line of a conditional's directive: never reused
	boundary    bool // not a unit: a conditional's directive line, which closes what came before
}

// lastRow is the last row of node i: a node that ends with its line break ends on the row before.
func (x *extractor) lastRow(i int, text []byte) uint32 {
	nd := &x.n[i]
	if nd.endRow > nd.startRow && nd.end > nd.start && int(nd.end) <= len(text) && text[nd.end-1] == '\n' {
		return nd.endRow - 1
	}
	return nd.endRow
}

// container reports whether i is a preprocessor conditional whose children are units.
func (x *extractor) container(i int) bool {
	return (x.g.lang == lang.C || x.g.lang == lang.CPP) && (x.kind(i) == kPreprocIf || x.kind(i) == kPreprocAlt)
}

// hasError reports whether i's subtree holds an ERROR or MISSING node.
func (x *extractor) hasError(i int) bool {
	for j := i; j < int(x.n[i].next) && j < len(x.n); j++ {
		if x.n[j].flags&nodeMissing != 0 || x.kind(j) == kError {
			return true
		}
	}
	return false
}

// walkUnits calls unit for every unit in source order, and enter and leave around each
// conditional's children (leave with the conditional's end).
func (x *extractor) walkUnits(unit func(i int), enter func(i int), leave func(end uint32)) {
	var ends []int // node index just past each open conditional, and its end offset and first row
	var endBytes, rows []uint32
	for i := 1; i < len(x.n); {
		for len(ends) > 0 && i >= ends[len(ends)-1] {
			leave(endBytes[len(endBytes)-1])
			ends, endBytes, rows = ends[:len(ends)-1], endBytes[:len(endBytes)-1], rows[:len(rows)-1]
		}
		if len(rows) > 0 && x.n[i].startRow == rows[len(rows)-1] {
			i = x.skip(i) // the directive's condition, or a comment after it
			continue
		}
		if x.container(i) {
			enter(i)
			ends, endBytes, rows = append(ends, x.skip(i)), append(endBytes, x.n[i].end), append(rows, x.n[i].startRow)
			i++
			continue
		}
		unit(i)
		i = x.skip(i)
	}
	for k := len(endBytes) - 1; k >= 0; k-- {
		leave(endBytes[k])
	}
}

// atLineStart reports whether offset p starts its line.
func atLineStart(text []byte, p int) bool { return p == 0 || text[p-1] == '\n' }

// segmentsClosed reports whether every stretch of text parsed again (before, between and after
// the runs) closes what it opens: its brackets pair up (a bracket the parser supplies as
// MISSING leaves no trace in the flat tree, and a whole parse may pair it with one in a run),
// and it does not end inside a block comment or a string that may span lines (JavaScript's
// template literals, Python's triple-quoted strings), which the lexer of a whole parse would
// read on into the run.
func segmentsClosed(text []byte, runs []run, l lang.Lang) bool {
	from := 0
	for k := 0; k <= len(runs); k++ {
		to := len(text)
		if k < len(runs) {
			to = runs[k].newByte
		}
		if seg := text[from:to]; lexOpenIn(seg, l) || !balanced(seg, l == lang.Python) {
			return false
		}
		if k < len(runs) {
			from = runs[k].newByte + runs[k].size
		}
	}
	return true
}

func lexOpenIn(b []byte, l lang.Lang) bool {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case l == lang.Python && (c == '"' || c == '\'') && i+2 < len(b) && b[i+1] == c && b[i+2] == c:
			end := bytes.Index(b[i+3:], b[i:i+3])
			if end < 0 {
				return true
			}
			i += end + 5
		case l == lang.Python && c == '#', l != lang.Python && c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case l != lang.Python && c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				return true
			}
			i += end + 3
		case c == '"' || c == '\'' || (c == '`' && l == lang.JavaScript):
			for i++; i < len(b) && b[i] != c && (b[i] != '\n' || c == '`'); i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return true
			}
		}
	}
	return false
}

// closed reports whether text's brackets pair up and, in C and C++, its preprocessor
// conditionals too: a file that leaves one open is repaired by the parser wherever it decides,
// so its units cannot be taken one by one.
func closed(text []byte, l lang.Lang) bool {
	if !balanced(text, l == lang.Python) {
		return false
	}
	if l != lang.C && l != lang.CPP {
		return true
	}
	depth := 0
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		t := bytes.TrimLeft(line, " \t")
		if len(t) == 0 || t[0] != '#' {
			continue
		}
		t = bytes.TrimLeft(t[1:], " \t")
		switch {
		case bytes.HasPrefix(t, []byte("if")):
			depth++
		case bytes.HasPrefix(t, []byte("endif")):
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// balanced reports whether the brackets of b pair up, outside string and character literals
// and comments (# comments when hash, else C's).
func balanced(b []byte, hash bool) bool {
	var stack []byte
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '"', '\'', '`':
			for i++; i < len(b) && b[i] != c && b[i] != '\n'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '#':
			if hash {
				for i < len(b) && b[i] != '\n' {
					i++
				}
			}
		case '/':
			if hash || i+1 >= len(b) {
				continue
			}
			if b[i+1] == '/' {
				for i < len(b) && b[i] != '\n' {
					i++
				}
			} else if b[i+1] == '*' {
				end := bytes.Index(b[i+2:], []byte("*/"))
				if end < 0 {
					return false
				}
				i += end + 3
			}
		case '(', '[', '{':
			stack = append(stack, c)
		case ')', ']', '}':
			open := byte('(')
			if c == ']' {
				open = '['
			} else if c == '}' {
				open = '{'
			}
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return false
			}
			stack = stack[:len(stack)-1]
		}
	}
	return len(stack) == 0
}

// regions returns the reusable units of the parse as graph.FileResult.Regions: units joined
// while they share a line or the last (comments aside) is not terminated. Units with a syntax
// error, those next to one, and a last unit before a directive or the file's end that is not
// terminated are marked unsafe (reused only where the text around them is unchanged); units on
// a directive's line are left out, and so are units that a definition of res crosses.
func (x *extractor) regions(text []byte, funcs []graph.Func) []uint32 {
	var us []unit
	var directive []uint32 // rows of the conditionals' directive lines
	x.walkUnits(func(i int) {
		u := unit{first: x.n[i].startRow, last: x.lastRow(i, text), comment: x.kind(i) == kComment, err: x.hasError(i)}
		u.hasErr = u.err
		// An indented Python unit belongs to a block the parser did not find.
		u.skip = x.g.lang == lang.Python && !atLineStart(text, int(x.n[i].start)) && x.kind(i) != kComment
		u.term = x.terminated(i, text)
		us = append(us, u)
	}, func(i int) {
		directive = append(directive, x.n[i].startRow)
		if x.kind(i) == kPreprocIf {
			directive = append(directive, x.lastRow(i, text)) // #endif; an #else branch ends before it
		}
		us = append(us, unit{boundary: true})
	}, func(uint32) { us = append(us, unit{boundary: true}) })
	slices.Sort(directive)
	for k := range us {
		u := &us[k]
		if !u.boundary && !u.skip {
			if d, _ := slices.BinarySearch(directive, u.first); d < len(directive) && directive[d] <= u.last {
				u.skip = true
			}
		}
	}
	// The neighbours of a unit with an error: the parser's recovery may have read into them.
	for k := range us {
		if !us[k].hasErr || us[k].comment {
			continue
		}
		for _, step := range []int{-1, 1} {
			for j := k + step; j >= 0 && j < len(us); j += step {
				if !us[j].comment || us[j].boundary {
					us[j].err = us[j].err || !us[j].boundary
					break
				}
			}
		}
	}
	var out []span
	open := false  // the last span's last unit (comments aside) is not terminated
	lastSkip := -1 // the last row of the last unit on a directive's line
	for _, u := range us {
		if u.boundary {
			if open { // reused only where the directive after it is unchanged
				out[len(out)-1].unsafe = true
			}
			open = false
			continue
		}
		joins := len(out) > 0 && (open || u.first <= out[len(out)-1].last)
		if u.skip || int(u.first) <= lastSkip {
			if joins {
				out = out[:len(out)-1]
			}
			open, lastSkip = false, max(lastSkip, int(u.last))
			continue
		}
		if joins {
			sp := &out[len(out)-1]
			sp.last, sp.unsafe, sp.errs = max(sp.last, u.last), sp.unsafe || u.err, sp.errs || u.hasErr
		} else {
			out = append(out, span{u.first, u.last, u.err, u.hasErr})
		}
		if !u.comment {
			open = !u.term
		}
	}
	if open { // reused only where the file's end is unchanged
		out[len(out)-1].unsafe = true
	}
	out = dropCrossed(out, funcs)
	regions := make([]uint32, 0, 2*len(out))
	for _, sp := range out {
		regions = append(regions, sp.flagged(), sp.last)
	}
	return regions
}

// flagged is the span's first row with its flags.
func (sp span) flagged() uint32 {
	f := sp.first
	if sp.unsafe {
		f |= graph.RegionUnsafe
	}
	if sp.errs {
		f |= graph.RegionErrors
	}
	return f
}

// span is one region: rows first to last; unsafe when it holds a syntax error or lies next to
// one, so that it may be reused inside a run only, never at its edge.
type span struct {
	first, last  uint32
	unsafe, errs bool // errs: it holds a syntax error
}

// spanAt decodes unit k of regions.
func spanAt(regions []uint32, k int) span {
	f := regions[2*k]
	return span{f &^ (graph.RegionUnsafe | graph.RegionErrors), regions[2*k+1], f&graph.RegionUnsafe != 0, f&graph.RegionErrors != 0}
}

// dropCrossed removes the spans that a definition overlaps without lying inside one.
func dropCrossed(spans []span, funcs []graph.Func) []span {
	n := len(spans)
	bad := make([]bool, n)
	any := false
	for _, f := range funcs {
		fs, fe := uint32(f.StartLine-1), uint32(max(f.EndLine-1, f.StartLine-1))
		k := sort.Search(n, func(k int) bool { return spans[k].last >= fs }) // the first span ending at or after fs
		if k == n || spans[k].first > fe || (spans[k].first <= fs && fe <= spans[k].last) {
			continue // outside every span, or inside one
		}
		for ; k < n && spans[k].first <= fe; k++ {
			bad[k], any = true, true
		}
	}
	if !any {
		return spans
	}
	out := spans[:0]
	for k := range n {
		if !bad[k] {
			out = append(out, spans[k])
		}
	}
	return out
}

// withoutCut removes from regions the units that the definitions the cuts will shorten overlap
// (res is still uncut): their results change.
func withoutCut(regions []uint32, res *graph.FileResult, cuts []unclosed) []uint32 {
	out := make([]uint32, 0, len(regions))
	for k := 0; 2*k+1 < len(regions); k++ {
		sp := spanAt(regions, k)
		keep := true
		for _, c := range cuts {
			f := &res.Funcs[c.def]
			if int(sp.first) <= f.EndLine-1 && int(sp.last) >= f.StartLine-1 {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, regions[2*k], regions[2*k+1])
		}
	}
	return out
}

// Reparse says how IndexEdited parsed a file.
type Reparse struct {
	Part  bool // only the changed regions were parsed
	Bytes int  // bytes the parser read: the file's size when parsed whole (after a failed part parse, both)
}

// IndexEdited is IndexFileAs for src, the new content of a file whose previous content old
// gave prev (IndexFileAs or IndexEdited in the same language): it parses only the top-level
// units of src that changed, widened to the units of prev.Regions, and takes the rest from
// prev. The file is parsed whole when prev has no regions, the diff is too large, the prepared
// texts of an unchanged unit differ, the changed regions parse with syntax errors or
// file-wide context, or a changed region runs into an unchanged one. The result equals
// IndexFileAs's but for Regions, which may be cut differently.
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
	runs = slices.DeleteFunc(runs, func(r run) bool { // prep read the unit otherwise here
		return !bytes.Equal(oldText[r.oldByte:r.oldByte+r.size], text[r.newByte:r.newByte+r.size])
	})
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
		if x.wide || x.nestedDefs(changed, text) {
			return nil, n, false
		}
		if !segmentsClosed(text, runs, l) {
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
		// A definition of the changed regions the parser could not close is cut with a second
		// parse of the whole file, as IndexFileAs does.
		res.SyntaxErrors = part.SyntaxErrors
		for _, r := range runs {
			for k := r.r0; k < r.r1; k++ {
				if spanAt(prev.Regions, k).errs {
					res.SyntaxErrors++ // a lower bound: zero exactly when none
				}
			}
		}
		res.Regions = joinRegions(x.regions(text, part.Funcs), prev.Regions, runs)
		if l == lang.C || l == lang.CPP {
			if cuts := findUnclosed(res, text); len(cuts) > 0 {
				// A definition that runs on past its braces where the parse saw no error
				// tells of a recovery a whole parse may make otherwise (and count an error).
				if res.SyntaxErrors == 0 || ranToEnd(res, text, cuts) {
					return nil, n, false // IndexFileAs parses the file again
				}
				res.Regions = withoutCut(res.Regions, res, cuts)
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

// trouble is a run the parse of the changed regions came too close to: the unit before it
// (head) or after it (tail) is not clean, or a unit runs into it (both).
type trouble struct {
	run        int
	head, tail bool
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
			runs[i].r0, runs[i].r1 = 0, 0
			if i > 0 {
				runs[i-1].linkR = false
			}
			if i+1 < len(runs) {
				runs[i+1].linkL = false
			}
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
		if r.r0 > 0 && !inRun[r.r0-1] && spanAt(regions, r.r0-1).errs {
			r.r0++
		}
		if r.r1 < len(inRun) && r.r1 > r.r0 && !inRun[r.r1] && spanAt(regions, r.r1).errs {
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
				if i > 0 {
					runs[i-1].linkR = false
				}
				if i+1 < len(runs) {
					runs[i+1].linkL = false
				}
			}
		}
	}
	runs = slices.DeleteFunc(runs, func(r run) bool { return r.r0 >= r.r1 })
	for i := range runs {
		runs[i].place(regions, ls)
	}
	return runs
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

// clearOf returns the runs the parse of the changed regions does not keep off: a unit spans
// the run, or the last unit before it (comments aside) is not terminated or has a syntax error,
// or the first after it has one, so that the run's text could have continued it or been read by
// the parser's recovery.
func (x *extractor) clearOf(runs []run, text []byte) []trouble {
	var out []trouble
	mark := func(ri int, head, tail bool) {
		if k := len(out); k > 0 && out[k-1].run == ri {
			out[k-1].head, out[k-1].tail = out[k-1].head || head, out[k-1].tail || tail
			return
		}
		out = append(out, trouble{run: ri, head: head, tail: tail})
	}
	ri, open, after := 0, false, -1 // after: the run just passed, until a unit follows
	pass := func(p int) {
		for ri < len(runs) && runs[ri].newByte <= p {
			if open {
				mark(ri, true, false)
			}
			open, after = false, ri
			ri++
		}
	}
	x.walkUnits(func(i int) {
		nd := &x.n[i]
		pass(int(nd.start))
		for k := ri; k < len(runs) && int(nd.end) > runs[k].newByte; k++ {
			mark(k, true, true) // the unit runs into it
		}
		if x.kind(i) == kComment {
			return
		}
		bad := x.hasError(i)
		if after >= 0 && (bad || x.g.lang == lang.Python && !atLineStart(text, int(nd.start))) {
			mark(after, false, true) // an indented Python line continues the run's last unit
		}
		after, open = -1, bad || !x.terminated(i, text)
	}, func(i int) {
		pass(int(x.n[i].start))
		open, after = false, -1
	}, func(end uint32) {
		pass(int(end) - 1)
		open, after = false, -1
	})
	pass(math.MaxInt)
	return out
}

// nestedDefs reports whether a C function definition that holds a changed line holds another
// definition: code the parser had to guess at (GNU C's nested functions aside), where which
// guess wins can depend on text far after it, beyond the changed regions. (Unchanged, the
// guess was made before too, on the same text around it.)
func (x *extractor) nestedDefs(changed []bool, text []byte) bool {
	if x.g.lang != lang.C && x.g.lang != lang.CPP {
		return false
	}
	outer, outerEnd := -1, -1
	for i := range x.n {
		if x.kind(i) != kFunctionDefinition {
			continue
		}
		if i >= outerEnd {
			outer, outerEnd = i, x.skip(i)
			continue
		}
		for r := int(x.n[outer].startRow); r <= int(x.lastRow(outer, text)) && r < len(changed); r++ {
			if changed[r] {
				return true
			}
		}
	}
	return false
}

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
