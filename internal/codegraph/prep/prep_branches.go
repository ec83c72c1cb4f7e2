package prep

import "bytes"

// The prepare passes for C and C++ preprocessor conditionals and comments in macro bodies; the overview is in prep.go.

// blankBranches follows the first branch of the preprocessor conditionals whose branches leave
// braces unbalanced, as ctags does:
//
//	#if USE_TCACHE
//	  if (tc_idx < mp_.tcache_bins) {
//	#else
//	  if (0) {
//	#endif
//
// Both branches open a brace that one "}" closes: parsed together they lose the function.
// The #elif and #else branches of such a conditional are blanked, and so is the code of #if 0
// blocks. A conditional whose branches all balance is left alone (both are parsed).
func blankBranches(b *blanker) {
	if bytes.IndexByte(b.src, '#') < 0 {
		return
	}
	n := b.lines()
	type branch struct{ dir, delta int } // directive line; brace balance of its code
	type group struct {
		branches []branch
		zero     bool
	}
	var stack []*group
	info := b.scan()
	for k := 0; k < n; k++ {
		li := info[k]
		if li.cont {
			continue
		}
		if li.directive {
			word, _ := directive(b.line(k))
			switch word {
			case "if", "ifdef", "ifndef":
				stack = append(stack, &group{branches: []branch{{dir: k}}, zero: isIfZero(b.line(k))})
			case "elif", "else":
				if len(stack) > 0 {
					g := stack[len(stack)-1]
					g.branches = append(g.branches, branch{dir: k})
				}
			case "endif":
				if len(stack) == 0 {
					break
				}
				g := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				keep := 0 // the branch whose braces count for the enclosing code
				var drop []int
				if g.zero {
					drop = []int{0}
					keep = 1
				} else {
					for _, br := range g.branches {
						if br.delta != 0 {
							for i := 1; i < len(g.branches); i++ {
								drop = append(drop, i)
							}
							break
						}
					}
				}
				for _, i := range drop {
					from, to := g.branches[i].dir+1, k-1
					if i+1 < len(g.branches) {
						to = g.branches[i+1].dir - 1
					}
					if from <= to && !info[from].inComment && !info[to+1].inComment {
						b.blank(from, to)
					}
				}
				if len(stack) > 0 && keep < len(g.branches) && len(drop) > 0 {
					p := stack[len(stack)-1]
					p.branches[len(p.branches)-1].delta += g.branches[keep].delta
				} else if len(stack) > 0 && len(drop) == 0 {
					p := stack[len(stack)-1]
					p.branches[len(p.branches)-1].delta += g.branches[0].delta
				}
			}
			continue // directive lines hold no code braces
		}
		if len(stack) > 0 && li.delta != 0 {
			g := stack[len(stack)-1]
			g.branches[len(g.branches)-1].delta += int(li.delta)
		}
	}
}

// directive returns the name of the directive on line l ("if", "endif", ...; "" when the line
// is none) and the text after the name.
func directive(l []byte) (word string, rest []byte) {
	t := trimBlanksLeft(l)
	if len(t) == 0 || t[0] != '#' {
		return "", nil
	}
	d := trimBlanksLeft(t[1:])
	e := 0
	for e < len(d) && d[e] >= 'a' && d[e] <= 'z' {
		e++
	}
	return string(d[:e]), d[e:]
}

// isIfZero reports whether line l is "#if 0" (a comment after it allowed).
func isIfZero(l []byte) bool {
	word, expr := directive(l)
	if word != "if" {
		return false
	}
	if c := bytes.Index(expr, []byte("/*")); c >= 0 {
		expr = expr[:c]
	}
	if c := bytes.Index(expr, []byte("//")); c >= 0 {
		expr = expr[:c]
	}
	return string(bytes.TrimSpace(expr)) == "0"
}

// blankLineMarkers blanks line markers, "#line 30 \"locfile-kw.gperf\"" and "# 30 \"file\"": they
// tell a compiler where generated code came from and hold no code, but tree-sitter reads one inside
// an initializer or an expression as a syntax error (gperf puts one before every row of its tables).
func blankLineMarkers(b *blanker) {
	if bytes.Index(b.src, []byte("line")) < 0 && bytes.Index(b.src, []byte("# ")) < 0 {
		return
	}
	info := b.scan()
	for k := 0; k < b.lines(); k++ {
		if !info[k].directive || info[k].cont {
			continue
		}
		l := b.line(k)
		if len(l) > 0 && l[len(l)-1] == '\\' {
			continue // continued: left alone
		}
		d := trimBlanksLeft(trimBlanksLeft(l)[1:])
		if rest, ok := bytes.CutPrefix(d, []byte("line")); ok && len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t') {
			d = trimBlanksLeft(rest)
		}
		if len(d) > 0 && d[0] >= '0' && d[0] <= '9' {
			b.blank(k, k)
		}
	}
}

// blankDirectiveComments blanks the block comments inside preprocessor directives, as in
//
//	#define RETURN_RESTORE_HANDLER(code)          \
//	  do {                                        \
//	    /* Restore the handler.  We don't need    \
//	       to know the current one.  */           \
//	    __sigaction (SIGALRM, &saved_act, NULL);  \
//
// tree-sitter ends a macro's body at such a comment and parses the rest of it as code, which
// loses the function after it or closes the one around it early. A macro's body holds no
// definition or call that is recorded (it is one token), so nothing is lost. The line splices
// stay, and so does a comment with nothing after it in the directive.
func blankDirectiveComments(b *blanker) {
	info := b.scan()
	for k := 0; k < b.lines(); k++ {
		if !info[k].directive || info[k].cont {
			continue
		}
		last := k
		for last+1 < b.lines() && info[last+1].cont {
			last++
		}
		from, to := b.starts[k], b.ends[last]
		if last == k && bytes.Index(b.src[from:to], []byte("/*")) < 0 {
			continue // most directives: one line, no comment
		}
		t := b.src[:to]
		for i := from; i < to; i++ {
			switch t[i] {
			case '"', '\'':
				if e := skipLiteral(t, i); e >= 0 {
					i = e
				}
			case '/':
				if i+1 < to && t[i+1] == '*' {
					e := bytes.Index(t[i+2:], []byte("*/"))
					if e < 0 {
						i = to // runs past the directive: left alone
						break
					}
					end := i + 2 + e + 2
					if onlyBlanks(t[end:to]) {
						// A comment that ends the directive stays: tree-sitter reads it well,
						// and blanks there would let the directive run on into the next line.
						i = to
						break
					}
					for j := i; j < end; j++ {
						// Blank the comment but keep its line splices: they continue the directive.
						if t[j] == '\\' && j+1 < len(t) && (t[j+1] == '\n' || t[j+1] == '\r') {
							continue
						}
						if t[j] != '\n' && t[j] != '\r' {
							b.setByte(j, ' ')
						}
					}
					i = end - 1
				}
			}
		}
		k = last
	}
}

// onlyBlanks reports whether b holds nothing but blanks, line breaks and line splices.
func onlyBlanks(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\\' {
			return false
		}
	}
	return true
}

// skipLiteral returns the index of the quote closing the string or character literal opened at
// t[i], or -1 when the line ends first.
func skipLiteral(t []byte, i int) int {
	q := t[i]
	for j := i + 1; j < len(t); j++ {
		switch t[j] {
		case '\\':
			j++
		case q:
			return j
		case '\n':
			return -1
		}
	}
	return -1
}

// opensComment reports whether a line, entered in comment state c, ends inside a block comment.
func opensComment(l []byte, c bool) bool {
	c, _ = scanBraces(l, c)
	return c
}

// scanBraces returns the comment state at the end of a line entered in state c, and the line's
// count of "{" minus "}" outside comments, strings and character literals.
func scanBraces(l []byte, c bool) (bool, int) {
	delta := 0
	for i := 0; i < len(l); i++ {
		if c {
			e := bytes.Index(l[i:], []byte("*/"))
			if e < 0 {
				return true, delta
			}
			c = false
			i += e + 1
			continue
		}
		ch := l[i]
		if !inSet(ch, braceBytesLo, braceBytesHi) {
			continue
		}
		switch ch {
		case '/':
			if i+1 < len(l) {
				if l[i+1] == '*' {
					c = true
					i++
				} else if l[i+1] == '/' {
					return false, delta
				}
			}
		case '"', '\'':
			for i++; i < len(l) && l[i] != ch; i++ {
				if l[i] == '\\' {
					i++
				}
			}
		case '{':
			delta++
		case '}':
			delta--
		}
	}
	return c, delta
}

// braceBytesLo and braceBytesHi are the bytes scanBraces stops at, as a set for inSet.
const (
	braceBytesLo = 1<<'/' | 1<<'"' | 1<<'\''
	braceBytesHi = 1<<('{'-64) | 1<<('}'-64)
)

// inSet reports whether c is in the set of ASCII bytes whose bits lo (bytes 0-63) and hi (64-127)
// hold: one shift and test, where a switch over the members costs a comparison each.
func inSet(c byte, lo, hi uint64) bool {
	m := lo
	if c >= 64 {
		m = hi // a conditional move: text mixes the two halves too often for a branch
	}
	return c < 128 && m>>(c&63)&1 != 0
}
