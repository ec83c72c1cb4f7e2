package extract

import (
	"bytes"
	"slices"
	"sort"

	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// A file's top-level units, which a part parse reuses (see region.go).

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

// contained reports whether root child i's syntax errors stay inside it: a C function
// definition whose body closes (its brackets pair and it ends with its '}'), so that the
// parser's recovery inside the body ended with it.
func (x *extractor) contained(i int, text []byte) bool {
	return (x.g.lang == lang.C || x.g.lang == lang.CPP) && x.kind(i) == kFunctionDefinition && x.terminated(i, text)
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

// directiveEnd returns the last row of the directive that starts conditional i: its first line
// and the lines a backslash at a line's end continues it on.
func (x *extractor) directiveEnd(i int) uint32 {
	row := x.n[i].startRow
	for p := int(x.n[i].start); p < len(x.src); row++ {
		e := bytes.IndexByte(x.src[p:], '\n')
		if e < 0 {
			break
		}
		line := bytes.TrimRight(x.src[p:p+e], " \t\r")
		if len(line) == 0 || line[len(line)-1] != '\\' {
			break
		}
		p += e + 1
	}
	return row
}

// walkUnits calls unit for every unit in source order, and enter and leave around each
// conditional's children (leave with the conditional's end).
func (x *extractor) walkUnits(unit func(i int), enter func(i int), leave func(end uint32)) {
	var ends []int // node index just past each open conditional, its end offset and its directive's last row
	var endBytes, rows []uint32
	for i := 1; i < len(x.n); {
		for len(ends) > 0 && i >= ends[len(ends)-1] {
			leave(endBytes[len(endBytes)-1])
			ends, endBytes, rows = ends[:len(ends)-1], endBytes[:len(endBytes)-1], rows[:len(rows)-1]
		}
		if len(rows) > 0 && x.n[i].startRow <= rows[len(rows)-1] {
			i = x.skip(i) // the directive's condition, or a comment after it
			continue
		}
		if x.container(i) {
			enter(i)
			ends, endBytes, rows = append(ends, x.skip(i)), append(endBytes, x.n[i].end), append(rows, x.directiveEnd(i))
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

// regions returns the reusable units of the parse as graph.FileResult.Regions: units joined
// while they share a line or the last (comments aside) is not terminated. Units with a syntax
// error, those next to one, and a last unit before a directive or the file's end that is not
// terminated are marked unsafe (reused only where the text around them is unchanged); units on
// a directive's line are left out, and so are units that a definition of res crosses.
func (x *extractor) regions(text []byte, funcs []graph.Func) []uint32 {
	var us []unit
	var directive []uint32 // rows of the conditionals' directive lines
	x.walkUnits(func(i int) {
		u := unit{first: x.n[i].startRow, last: x.lastRow(i, text), comment: x.kind(i) == kComment, hasErr: x.hasError(i)}
		u.err = u.hasErr && !x.contained(i, text)
		// An indented Python unit belongs to a block the parser did not find.
		u.skip = x.g.lang == lang.Python && !atLineStart(text, int(x.n[i].start)) && x.kind(i) != kComment
		u.term = x.terminated(i, text)
		us = append(us, u)
	}, func(i int) {
		for r := x.n[i].startRow; r <= x.directiveEnd(i); r++ {
			directive = append(directive, r)
		}
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
	uncontained := make([]bool, len(us))
	for k := range us {
		uncontained[k] = us[k].err
	}
	for k := range us {
		if !uncontained[k] || us[k].comment {
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
