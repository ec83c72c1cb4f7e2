package extract

import (
	"bytes"
	"slices"

	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
)

// A C definition the parser cannot close (an expression split across #if branches, a statement
// macro it misreads) comes back as a node, or a recovered run of ERROR pieces, that runs on to the
// end of the file and swallows the definitions after it. In the prepared text, whose braces
// balance (blankBranches keeps one branch of unbalanced conditionals), the definition's body
// still closes where its braces do, as ctags reads it. closeUnclosed cuts such a definition at
// that brace, parses the file again with its body blanked, so that the definitions after it are
// parsed as if it were whole, and keeps from the first parse the calls (and macros) inside the
// body. The file is then marked Partial.

// unclosed is a definition whose text closes before the node the parser gave it.
type unclosed struct {
	def         int // index in the result's Funcs
	open, close int // byte offsets of the body's braces
	closeRow    int // 0-based row of the closing brace
}

// findUnclosed returns the C or C++ definitions of res whose braces in the prepared text close
// before the end the parser gave them, by start.
func findUnclosed(res *graph.FileResult, text []byte) []unclosed {
	var out []unclosed
	for i := range res.Funcs {
		f := &res.Funcs[i]
		if f.Kind == graph.Macro || f.EndByte > len(text) || f.StartByte >= f.EndByte {
			continue
		}
		open, close := braceSpan(text, f.StartByte, f.EndByte)
		if open < 0 || close < 0 || close+1 >= f.EndByte {
			continue
		}
		if !topLevelAfter(text[close+1 : f.EndByte]) {
			continue // the parser's end is not past another definition: leave it
		}
		out = append(out, unclosed{def: i, open: open, close: close, closeRow: bytes.Count(text[:close], []byte{'\n'})})
	}
	return out
}

// topLevelAfter reports whether a line of rest, after its first, starts in column 0 with an
// identifier or a "*": code at file scope, where a definition the parser ran on into begins.
// A body's own lines are indented, so braces in a signature or an initializer that close early
// (x{1} in a C++ member initializer) do not count.
func topLevelAfter(rest []byte) bool {
	for i := bytes.IndexByte(rest, '\n'); i >= 0 && i+1 < len(rest); {
		c := rest[i+1]
		if c == '_' || c == '*' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return true
		}
		j := bytes.IndexByte(rest[i+1:], '\n')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// braceSpan scans text[from:to] for the first "{" and the "}" that balances it, outside
// comments, string and character literals and preprocessor lines; a "}" at the start of a line
// closes the body too when the braces never balance before to (the convention that a
// definition's closing brace, and only it, sits in column 0). It returns -1s when there is no
// body or no close.
func braceSpan(text []byte, from, to int) (open, close int) {
	open, close = -1, -1
	col0 := -1 // the first "}" in column 0 after the open brace
	depth := 0
	lineStart := true // only blanks so far on this line
	for i := from; i < to; i++ {
		c := text[i]
		switch c {
		case '\n':
			lineStart = true
			continue
		case ' ', '\t', '\r', '\f', '\v':
			continue
		case '#':
			if lineStart { // a directive, with its continuation lines
				for i < to && !(text[i] == '\n' && text[i-1] != '\\') {
					i++
				}
				lineStart = true
				continue
			}
		case '/':
			if i+1 < to && text[i+1] == '/' {
				for i < to && text[i] != '\n' {
					i++
				}
				lineStart = true
				continue
			}
			if i+1 < to && text[i+1] == '*' {
				e := bytes.Index(text[i+2:to], []byte("*/"))
				if e < 0 {
					return open, close
				}
				i += e + 3
				continue
			}
		case '"', '\'':
			for i++; i < to && text[i] != c && text[i] != '\n'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '{':
			if open < 0 {
				open = i
			}
			depth++
		case '}':
			if open >= 0 {
				if col0 < 0 && depth > 1 && i > 0 && text[i-1] == '\n' {
					col0 = i
				}
				depth--
				if depth == 0 {
					return open, i
				}
			}
		}
		lineStart = false
	}
	return open, col0
}

// closeUnclosed applies the cuts to res: the first parse's nodes gave res; reparse parses a
// copy of the prepared text and extracts it, or returns nil when it cannot (the first parse
// then stands, cut).
func closeUnclosed(res *graph.FileResult, text []byte, cuts []unclosed, reparse func(text []byte) *graph.FileResult) {
	blanked := slices.Clone(text)
	for _, u := range cuts {
		for i := u.open + 1; i < u.close; i++ {
			if blanked[i] != '\n' {
				blanked[i] = ' '
			}
		}
	}
	second := reparse(blanked)
	if second == nil || second.Skip != "" {
		capDefs(res, cuts) // keep the first parse, with the ends cut
		return
	}
	lineStarts := []int{0}
	for i, c := range text {
		if c == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	offset := func(line, col int) int {
		if line-1 < len(lineStarts) {
			return lineStarts[line-1] + col - 1
		}
		return len(text)
	}
	inside := func(off int) int { // the cut whose body holds off, or -1
		for k, u := range cuts {
			if off > u.open && off < u.close {
				return k
			}
		}
		return -1
	}

	// Definitions: the second parse's, with the cut definitions taken from it when it has them
	// (same start: its text begins at the return type) and the macros defined inside the bodies
	// from the first.
	type item struct {
		f    graph.Func
		from int // 1: second parse, 0: first
		old  int
	}
	var items []item
	defOf := make([]int, len(cuts)) // index in items of each cut's definition
	for k := range defOf {
		defOf[k] = -1
	}
	for i, f := range second.Funcs {
		if k := inside(f.StartByte); k >= 0 {
			continue // nothing can start in a blank body; kept for safety
		}
		for k, u := range cuts {
			if f.Kind != graph.Macro && f.StartByte <= u.open && f.EndByte > u.open && defOf[k] < 0 {
				defOf[k] = len(items)
				f.EndByte, f.EndLine = u.close+1, u.closeRow+1
			}
		}
		items = append(items, item{f, 1, i})
	}
	for k, u := range cuts {
		if defOf[k] < 0 { // the second parse lost it: keep the first's, cut
			f := res.Funcs[u.def]
			f.EndByte, f.EndLine = u.close+1, u.closeRow+1
			defOf[k] = len(items)
			items = append(items, item{f, 0, u.def})
		}
	}
	for i, f := range res.Funcs {
		if f.Kind == graph.Macro && inside(f.StartByte) >= 0 {
			items = append(items, item{f, 0, i})
		}
	}
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return items[a].f.StartByte - items[b].f.StartByte })
	newIdx := make([]int, len(items))
	funcs := make([]graph.Func, len(items))
	for n, i := range order {
		newIdx[i] = n
		funcs[n] = items[i].f
	}
	secondIdx := make([]int, len(second.Funcs))
	for i := range secondIdx {
		secondIdx[i] = -1
	}
	for i, it := range items {
		if it.from == 1 {
			secondIdx[it.old] = newIdx[i]
		}
	}

	// Calls: the second parse's outside the bodies, the first's inside them, made the calls of
	// the cut definitions.
	calls := make([]graph.Call, 0, len(second.Calls)+len(res.Calls))
	for _, c := range second.Calls {
		if c.Caller >= 0 {
			c.Caller = secondIdx[c.Caller]
		}
		calls = append(calls, c)
	}
	for _, c := range res.Calls {
		k := inside(offset(c.Line, c.Col))
		if k < 0 {
			continue
		}
		c.Caller = newIdx[defOf[k]]
		calls = append(calls, c)
	}
	res.Funcs, res.Calls, res.Partial = funcs, calls, true
	capDefs(res, findUnclosed(res, blanked)) // a second unclosed definition after the first is cut, not parsed again
}

// capDefs cuts the definitions to their closing braces.
func capDefs(res *graph.FileResult, cuts []unclosed) {
	for _, u := range cuts {
		f := &res.Funcs[u.def]
		f.EndByte, f.EndLine = u.close+1, u.closeRow+1
		res.Partial = true
	}
}

// ranToEnd reports whether one of the cut definitions ran on to the end of the file (no brace
// after it): the definitions after it are lost unless the file is parsed again. Otherwise the
// parser came back to file scope and its definitions after the cut stand; a second parse would
// double the cost of such files (C++ parsed as C in .h files has many) for little.
func ranToEnd(res *graph.FileResult, text []byte, cuts []unclosed) bool {
	for _, u := range cuts {
		if bytes.IndexByte(text[res.Funcs[u.def].EndByte:], '{') < 0 {
			return true
		}
	}
	return false
}
