// Package prep is the code graph's pre-pass: it prepares the text tree-sitter reads. It knows
// the languages only by name and parses nothing.
package prep

import (
	"bytes"

	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// The parser reads a prepared copy of each file: same length, same line breaks, so every offset
// and line number stays true, with the constructs that make tree-sitter lose whole functions
// blanked out (replaced by spaces). None of them holds a definition or a call that is lost:
//
//   - long runs of table rows (blankData): generated tables parse many times faster without them;
//   - in C and C++, #else/#elif branches of conditionals whose branches leave braces unbalanced,
//     and #if 0 blocks (blankBranches): the first branch is followed, as ctags does;
//   - in C and C++, the directive lines of conditionals that split a statement inside braces
//     (an else chain of #ifdef'd links, an expression with #ifdef'd terms), and the later
//     branches of the second kind (joinSplitStatements);
//   - in C and C++, file-scope macro invocations without a semicolon and lone attribute macros
//     before a declarator (blankMacroCalls), and attribute macros after a file-scope
//     declarator (blankDeclAttributes);
//   - in C and C++, line markers (#line 30 "x.gperf", blankLineMarkers), block comments inside
//     multi-line macro bodies (blankDirectiveComments), and
//     whole-line extern declarations typed with __typeof (blankMacroCalls).
//
// One pass rewrites instead of blanking: in C and C++, a type macro with one identifier argument
// in the type of a file-scope declaration or as a struct tag, ElfW(Sym) or struct E(link_map),
// becomes one identifier of the same length, ElfW_Sym_ (joinTypeMacros).

// Prepare returns the text the parser reads (src itself when nothing is changed) and the gaps
// the parser may skip altogether (see SkipGaps). A changed text is written over scratch's memory
// when it is big enough (a worker passes the same buffer for every file: fresh memory for each
// file's copy cost page faults).
func Prepare(l lang.Lang, src, scratch []byte) ([]byte, []uint32) {
	out := blankData(src, scratch)
	if (l == lang.C || l == lang.CPP) && len(src) > 0 {
		b := newBlanker(src, out, scratch)
		blankBranches(b)
		joinSplitStatements(b)
		blankLineMarkers(b)
		blankDirectiveComments(b)
		joinTypeMacros(b)
		blankMacroCalls(b)
		blankDeclAttributes(b)
		out = b.out
	}
	if len(out) == 0 || l == lang.Python {
		return out, nil
	}
	if &out[0] == &src[0] {
		return out, headGap(out, nil) // long blank runs come from blanking
	}
	return out, SkipGaps(out)
}

// minGap is the smallest run of blank lines worth excluding from the parse.
const minGap = 4096

// SkipGaps finds the long runs of blank lines in a prepared text, as (start byte, end byte,
// start row, end row) quadruples: each starts after a line break and ends after one, so the
// parser, told to read only the text between them (tree-sitter's included ranges), sees the
// same tokens and line breaks without lexing the blanks one by one, which costs it about 20 ns
// a byte. Python is left out: its indentation is read from the blanks.
//
// The file's leading comments (a licence header), with the blank lines around them, are a gap
// too, whatever their length (headGap).
func SkipGaps(out []byte) []uint32 {
	gaps := headGap(out, nil)
	runStart, runRow := -1, 0
	start, row := 0, 0
	if len(gaps) > 0 {
		start, row = int(gaps[1]), int(gaps[3])
	}
	for ; start <= len(out); row++ {
		end := bytes.IndexByte(out[start:], '\n')
		if end < 0 {
			end = len(out)
		} else {
			end += start
		}
		blank := end < len(out) && isBlank(out[start:end])
		switch {
		case blank && runStart < 0:
			runStart, runRow = start, row
		case !blank && runStart >= 0:
			if start-runStart >= minGap {
				gaps = append(gaps, uint32(runStart), uint32(start), uint32(runRow), uint32(row))
			}
			runStart = -1
		}
		if end == len(out) {
			break
		}
		start = end + 1
	}
	return gaps
}

// headGap appends to gaps the file's head as a gap, when it holds only blank lines, block
// comments that start a line and end one, and line comments: (0, the start of the first other
// line, 0, its row). A line comment ending in a backslash goes on in C, so it ends the head; a
// comment followed by code on its last line does too. The gap costs the lexer nothing on other
// tokens (it finds its range by a linear search from the first, and the head replaces the first),
// while lexing a comment costs it 10-20 ns a byte: glibc's licence headers are a sixth of its
// bytes. The languages this runs for (C, C++, Java, Go, JavaScript) share the comment syntax.
func headGap(out []byte, gaps []uint32) []uint32 {
	end, row := 0, 0 // the head so far: out[:end], ending after a line break
	for i, r := 0, 0; i < len(out); {
		for i < len(out) && (out[i] == ' ' || out[i] == '\t' || out[i] == '\r') {
			i++
		}
		switch {
		case i < len(out) && out[i] == '\n':
		case i+1 < len(out) && out[i] == '/' && out[i+1] == '*':
			c := bytes.Index(out[i+2:], []byte("*/"))
			if c < 0 {
				return headTo(gaps, end, row)
			}
			r += bytes.Count(out[i:i+2+c], []byte{'\n'})
			i += c + 4
			for i < len(out) && (out[i] == ' ' || out[i] == '\t' || out[i] == '\r') {
				i++
			}
			if i >= len(out) || out[i] != '\n' {
				return headTo(gaps, end, row) // code follows the comment on its line
			}
		case i+1 < len(out) && out[i] == '/' && out[i+1] == '/':
			e := bytes.IndexByte(out[i:], '\n')
			if e < 0 {
				return headTo(gaps, end, row)
			}
			i += e
			if l := trimBlanksRight(out[:i]); l[len(l)-1] == '\\' {
				return headTo(gaps, end, row)
			}
		default:
			return headTo(gaps, end, row)
		}
		i++ // past the line break
		r++
		end, row = i, r
	}
	return headTo(gaps, end, row)
}

func headTo(gaps []uint32, end, row int) []uint32 {
	if end == 0 {
		return gaps
	}
	return append(gaps, 0, uint32(end), 0, uint32(row))
}

// isBlank reports whether a line holds only spaces, tabs and carriage returns.
func isBlank(l []byte) bool {
	for _, c := range l {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// trimBlanksLeft is bytes.TrimLeft(l, " \t") without its generic set matching.
func trimBlanksLeft(l []byte) []byte {
	for len(l) > 0 && (l[0] == ' ' || l[0] == '\t') {
		l = l[1:]
	}
	return l
}

// trimBlanksRight is bytes.TrimRight(l, " \t\r") without its generic set matching.
func trimBlanksRight(l []byte) []byte {
	for len(l) > 0 && (l[len(l)-1] == ' ' || l[len(l)-1] == '\t' || l[len(l)-1] == '\r') {
		l = l[:len(l)-1]
	}
	return l
}

// blanker blanks line ranges of out (or rewrites bytes of it), copying src on first use.
type blanker struct {
	src, out []byte
	scratch  []byte     // memory for out's copy
	starts   []int      // line start offsets
	ends     []int      // line end offsets, trailing blanks left out
	info     []lineInfo // from scan, once
}

// lineInfo is what the passes over C text need to know of a line of src.
type lineInfo struct {
	inComment bool  // the line starts inside a block comment
	directive bool  // a preprocessor line or one of its continuation lines
	cont      bool  // a continuation line of a directive
	delta     int32 // "{" minus "}" outside comments, strings and character literals (0 in directives)
}

func newBlanker(src, out, scratch []byte) *blanker {
	n := bytes.Count(src, []byte{'\n'}) + 1
	b := &blanker{src: src, out: out, scratch: scratch, starts: make([]int, 0, n), ends: make([]int, 0, n)}
	for i := 0; i <= len(src); {
		b.starts = append(b.starts, i)
		e := bytes.IndexByte(src[i:], '\n')
		if e < 0 {
			e = len(src)
		} else {
			e += i
		}
		b.ends = append(b.ends, i+len(trimBlanksRight(src[i:e])))
		if e == len(src) {
			break
		}
		i = e + 1
	}
	return b
}

func (b *blanker) lines() int { return len(b.starts) }

// line returns line k of src without its line break and trailing blanks.
func (b *blanker) line(k int) []byte { return b.src[b.starts[k]:b.ends[k]] }

// scan returns, for every line and one past the last (whose inComment is the state at the end
// of the text), its comment state, whether it belongs to a directive, and its brace balance.
// The passes share it: each used to scan every line again.
func (b *blanker) scan() []lineInfo {
	if b.info != nil {
		return b.info
	}
	n := b.lines()
	info := make([]lineInfo, n+1)
	comment := false
	for k := 0; k < n; k++ {
		l := b.line(k)
		info[k].inComment = comment
		if !comment {
			i := 0
			for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
				i++
			}
			if i < len(l) && l[i] == '#' {
				info[k].directive = true
				for len(b.line(k)) > 0 && b.line(k)[len(b.line(k))-1] == '\\' && k+1 < n {
					k++
					info[k] = lineInfo{directive: true, cont: true}
				}
				comment = opensComment(b.line(k), false)
				continue
			}
		}
		var d int
		comment, d = scanBraces(l, comment)
		info[k].delta = int32(d)
	}
	info[n].inComment = comment
	b.info = info
	return info
}

// blankBytes replaces src[from:to] by spaces, line breaks kept.
func (b *blanker) blankBytes(from, to int) {
	if from >= to {
		return
	}
	if &b.out[0] == &b.src[0] {
		b.out = append(b.scratch[:0], b.out...)
	}
	for i := from; i < to; i++ {
		if b.out[i] != '\n' {
			b.out[i] = ' '
		}
	}
}

// setByte replaces out[i] by c.
func (b *blanker) setByte(i int, c byte) {
	if &b.out[0] == &b.src[0] {
		b.out = append(b.scratch[:0], b.out...)
	}
	b.out[i] = c
}

// blank replaces lines from..to (inclusive) by spaces.
func (b *blanker) blank(from, to int) {
	if len(b.src) == 0 || from > to {
		return
	}
	if &b.out[0] == &b.src[0] {
		b.out = append(b.scratch[:0], b.out...)
	}
	end := len(b.src)
	if to+1 < len(b.starts) {
		end = b.starts[to+1] - 1
	}
	for i := b.starts[from]; i < end; i++ {
		if b.out[i] != '\n' {
			b.out[i] = ' '
		}
	}
}
