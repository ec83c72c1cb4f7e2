package extract

import (
	"bytes"
	"math"

	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// The checks that send a part parse back, or to a whole parse (see region.go).

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

// trouble is a run the parse of the changed regions came too close to: the unit before it
// (head) or after it (tail) is not clean, or a unit runs into it (both).
type trouble struct {
	run        int
	head, tail bool
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
		bad := x.hasError(i) && !x.contained(i, text)
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

// strayBody reports whether a C block stands at file scope: the body of a definition whose
// header the preprocessor splits (#if ... header #else header #endif, then the body), which the
// parser reads one way or another by text far after it.
func (x *extractor) strayBody() bool {
	if x.g.lang != lang.C && x.g.lang != lang.CPP {
		return false
	}
	stray := false
	x.walkUnits(func(i int) { stray = stray || x.kind(i) == kCompoundStatement }, func(int) {}, func(uint32) {})
	return stray
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
