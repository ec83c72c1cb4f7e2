package prep

import "bytes"

// joinSplitStatements removes the preprocessor conditionals that split one statement or
// expression inside braces, which tree-sitter cannot read there: its grammar takes a
// conditional only where a whole statement, declaration or list item may stand, and reads the
// rest of the file, or of the conditional's enclosing function, as one syntax error. Two shapes:
//
//	if(avail & CURLAUTH_NEGOTIATE)          const uint64_t flags =
//	  pick->picked = CURLAUTH_NEGOTIATE;    #ifdef OPENSSL_INIT_ENGINE_ALL_BUILTIN
//	#ifndef CURL_DISABLE_BEARER_AUTH          OPENSSL_INIT_ENGINE_ALL_BUILTIN |
//	  else if(avail & CURLAUTH_BEARER)      #endif
//	    pick->picked = CURLAUTH_BEARER;       0;
//	#endif
//	  else if(avail & CURLAUTH_NTLM)
//
// An else chain whose every branch starts with "else", after a statement: the directive lines
// are blanked and every branch kept (the chain reads the same with all its links). A
// conditional inside an expression (the code before it ends with an operator, a comma or an
// opening parenthesis or bracket, which no statement ends with; an identifier or ")" may be a
// statement macro without its semicolon): the directive lines are blanked, the first branch
// kept and the others blanked, as ctags follows the first branch. Only conditionals inside
// braces whose branches each balance their braces are touched (blankBranches handles the
// others).
func joinSplitStatements(b *blanker) {
	if bytes.IndexByte(b.src, '#') < 0 {
		return
	}
	info := b.scan()
	n := b.lines()
	var stack []*splitGroup
	depth, hidden := 0, 0 // braces of the code followed; how many open groups are past their first branch
	for k := 0; k < n; k++ {
		li := info[k]
		if li.cont {
			continue
		}
		if !li.directive {
			if len(stack) > 0 {
				g := stack[len(stack)-1]
				g.delta += int(li.delta)
				if !g.code {
					if f, _ := codeBounds(b.line(k), li.inComment); f >= 0 {
						g.code = true
						g.elses = g.elses && startsWithElse(b.line(k)[f:])
					}
				}
			}
			if hidden == 0 {
				depth += int(li.delta)
			}
			continue
		}
		switch word, _ := directive(b.line(k)); word {
		case "if", "ifdef", "ifndef":
			if len(stack) > 0 { // a nested conditional is code of its branch, and not an else
				p := stack[len(stack)-1]
				if !p.code {
					p.code, p.elses = true, false
				}
			}
			// #if 0 blocks are blankBranches' (their code is blanked, the #else kept): left alone
			g := &splitGroup{dirs: []int{k}, depth: depth, elses: true, first: true, uneven: isIfZero(b.line(k))}
			if depth > 0 { // only inside braces: at file scope a header's directives may run for thousands of lines
				g.prev = b.prevCode(k)
			}
			stack = append(stack, g)
		case "elif", "else":
			if len(stack) == 0 {
				break
			}
			g := stack[len(stack)-1]
			g.close()
			if g.first {
				hidden++
			}
			g.dirs = append(g.dirs, k)
			g.first, g.delta, g.code = false, 0, false
		case "endif":
			if len(stack) == 0 {
				break
			}
			g := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			g.close()
			if !g.first {
				hidden--
			}
			g.dirs = append(g.dirs, k)
			if len(stack) > 0 && g.uneven {
				stack[len(stack)-1].uneven = true
			}
			if g.depth <= 0 || g.uneven || g.prev == 0 {
				break
			}
			switch {
			case g.elses && (g.prev == ';' || g.prev == '}'):
				for _, d := range g.dirs {
					b.blankDirective(d)
				}
			case bytes.IndexByte([]byte("=+-*/%&|^<>!~?,(["), g.prev) >= 0:
				for _, d := range g.dirs {
					b.blankDirective(d)
				}
				for i := 1; i+1 < len(g.dirs); i++ {
					if from, to := g.dirs[i]+1, g.dirs[i+1]-1; from <= to && !info[from].inComment && !info[to+1].inComment {
						b.blank(from, to)
					}
				}
			}
		}
	}
}

// splitGroup is a conditional joinSplitStatements is going through.
type splitGroup struct {
	dirs   []int // the directive lines: #if, each #elif and #else, then #endif
	depth  int   // the brace depth at the #if
	prev   byte  // the last code character before the #if (0: none found)
	elses  bool  // every branch so far starts with "else"
	uneven bool  // some branch leaves its braces unbalanced
	delta  int   // the current branch's brace balance
	code   bool  // the current branch has code
	first  bool  // the current branch is the first
}

// close ends the group's current branch.
func (g *splitGroup) close() {
	g.uneven = g.uneven || g.delta != 0
	g.elses = g.elses && g.code
}

// blankDirective blanks the directive on line k with its continuation lines.
func (b *blanker) blankDirective(k int) {
	end := k
	for end+1 < b.lines() && b.info[end+1].cont {
		end++
	}
	b.blank(k, end)
}

// prevCode returns the last code character before line k, passing over blank lines, comments
// and directives; 0 when there is none.
func (b *blanker) prevCode(k int) byte {
	for j := k - 1; j >= 0; j-- {
		li := b.info[j]
		if li.directive {
			continue
		}
		if _, last := codeBounds(b.line(j), li.inComment); last >= 0 {
			return b.line(j)[last]
		}
	}
	return 0
}

// codeBounds returns the positions of the first and last code bytes of line l entered in
// comment state c (outside comments; string and character literals count as code), -1 when the
// line holds none.
func codeBounds(l []byte, c bool) (first, last int) {
	first, last = -1, -1
	for i := 0; i < len(l); i++ {
		ch := l[i]
		if c {
			if ch == '*' && i+1 < len(l) && l[i+1] == '/' {
				c = false
				i++
			}
			continue
		}
		switch {
		case ch == '/' && i+1 < len(l) && l[i+1] == '*':
			c = true
			i++
			continue
		case ch == '/' && i+1 < len(l) && l[i+1] == '/':
			return first, last
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v':
			continue
		}
		if first < 0 {
			first = i
		}
		last = i
		if ch == '"' || ch == '\'' {
			for i++; i < len(l) && l[i] != ch; i++ {
				if l[i] == '\\' {
					i++
				}
			}
			last = min(i, len(l)-1)
		}
	}
	return first, last
}

// startsWithElse reports whether code starts with the keyword else.
func startsWithElse(code []byte) bool {
	if !bytes.HasPrefix(code, []byte("else")) {
		return false
	}
	if len(code) == 4 {
		return true
	}
	c := code[4]
	return !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
}
