package codegraph

import (
	"bytes"
	"strings"
)

// The parser reads a prepared copy of each file: same length, same line breaks, so every offset
// and line number stays true, with the constructs that make tree-sitter lose whole functions
// blanked out (replaced by spaces). None of them holds a definition or a call that is lost:
//
//   - long runs of table rows (blankData): generated tables parse many times faster without them;
//   - in C and C++, #else/#elif branches of conditionals whose branches leave braces unbalanced,
//     and #if 0 blocks (blankBranches): the first branch is followed, as ctags does;
//   - in C and C++, file-scope macro invocations without a semicolon and lone attribute macros
//     before a declarator (blankMacroCalls), and attribute macros after a file-scope
//     declarator (blankDeclAttributes);
//   - in C and C++, block comments inside multi-line macro bodies (blankDirectiveComments), and
//     whole-line extern declarations typed with __typeof (blankMacroCalls).
//
// One pass rewrites instead of blanking: in C and C++, a type macro with one identifier argument
// in the type of a file-scope declaration or as a struct tag, ElfW(Sym) or struct E(link_map),
// becomes one identifier of the same length, ElfW_Sym_ (joinTypeMacros).

// prepare returns the text the parser reads (src itself when nothing is changed) and the gaps
// the parser may skip altogether (see skipGaps). A changed text is written over scratch's memory
// when it is big enough (a worker passes the same buffer for every file: fresh memory for each
// file's copy cost page faults).
func prepare(l Lang, src, scratch []byte) ([]byte, []uint32) {
	out := blankData(src, scratch)
	if (l == C || l == CPP) && len(src) > 0 {
		b := newBlanker(src, out, scratch)
		blankBranches(b)
		blankDirectiveComments(b)
		joinTypeMacros(b)
		blankMacroCalls(b)
		blankDeclAttributes(b)
		out = b.out
	}
	if len(out) == 0 || &out[0] == &src[0] || l == Python {
		return out, nil
	}
	return out, skipGaps(out)
}

// minGap is the smallest run of blank lines worth excluding from the parse.
const minGap = 4096

// skipGaps finds the long runs of blank lines in a prepared text, as (start byte, end byte,
// start row, end row) quadruples: each starts after a line break and ends after one, so the
// parser, told to read only the text between them (tree-sitter's included ranges), sees the
// same tokens and line breaks without lexing the blanks one by one, which costs it about 20 ns
// a byte. Python is left out: its indentation is read from the blanks.
func skipGaps(out []byte) []uint32 {
	var gaps []uint32
	runStart, runRow := -1, 0
	row := 0
	for start := 0; start <= len(out); row++ {
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

// isBlank reports whether a line holds only spaces, tabs and carriage returns.
func isBlank(l []byte) bool {
	for _, c := range l {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
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
			t := bytes.TrimLeft(b.line(k), " \t")
			d := bytes.TrimLeft(t[1:], " \t")
			word := d
			if e := bytes.IndexFunc(d, func(r rune) bool { return !(r >= 'a' && r <= 'z') }); e >= 0 {
				word = d[:e]
			}
			switch string(word) {
			case "if", "ifdef", "ifndef":
				expr := bytes.TrimSpace(d[len(word):])
				if c := bytes.Index(expr, []byte("/*")); c >= 0 {
					expr = bytes.TrimSpace(expr[:c])
				}
				stack = append(stack, &group{branches: []branch{{dir: k}}, zero: string(word) == "if" && string(expr) == "0"})
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
		ch := l[i]
		if c {
			if ch == '*' && i+1 < len(l) && l[i+1] == '/' {
				c = false
				i++
			}
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

// blankDeclAttributes blanks the attribute macros that follow a declarator at file scope, as
// C library headers write them:
//
//	extern void *malloc (size_t __size) __THROW __attribute_malloc__ __wur;
//	extern int pthread_sigmask (int __how, const __sigset_t *__newmask,
//	                            __sigset_t *__oldmask) __THROW;
//	extern char *strdup (const char *__s)
//	     __THROW __attribute_malloc__ __nonnull ((1));
//
// A parser without the macros' definitions fails on each one and recovers slowly. The macros
// blanked are the names declAttrName accepts, each with its parenthesized arguments, after a ")"
// at brace depth 0 and before a ";", a "{" or the end of the line; the indented attribute-only
// lines that follow a line ending with ")" are blanked the same way.
func blankDeclAttributes(b *blanker) {
	depth := 0
	prevParen := false // the last line of code ended with ")"
	info := b.scan()
	for k := 0; k < b.lines(); k++ {
		if info[k].directive {
			continue
		}
		l := b.line(k)
		t := bytes.TrimLeft(l, " \t")
		atStart := depth == 0 && !info[k].inComment
		depth = max(depth+int(info[k].delta), 0)
		if !atStart || bytes.ContainsAny(l, "\"'/") {
			prevParen = atStart && len(t) > 0 && t[len(t)-1] == ')'
			continue
		}
		start := b.starts[k] + (len(l) - len(t))
		if prevParen && len(t) < len(l) {
			// An indented line of attributes only, after a declarator.
			if end, ok := attrTokens(t, 0); ok && restEndsDecl(t[end:]) {
				b.blankBytes(start, start+end)
				prevParen = false
				continue
			}
		}
		// The ")" that closes a parameter list: depth back to 0, or below (a list that began on
		// an earlier line).
		for p, pd := 0, 0; p < len(t); p++ {
			switch t[p] {
			case '(':
				pd++
				continue
			case ')':
				pd--
			default:
				continue
			}
			if pd <= 0 {
				if end, ok := attrTokens(t, p+1); ok && restEndsDecl(t[end:]) {
					b.blankBytes(start+p+1, start+end)
				}
				break
			}
		}
		prevParen = len(t) > 0 && t[len(t)-1] == ')'
	}
}

// joinTypeMacros rewrites a type macro with one identifier argument in the type of a file-scope
// declaration as one identifier of the same length, "(" and ")" replaced by "_":
//
//	static const ElfW(Sym) *          static const ElfW_Sym_ *
//	check_match (const char *name)    check_match (const char *name)
//
// Without the macro's definition, tree-sitter takes ElfW(Sym) for a type only in some places;
// elsewhere it reads a declarator ElfW and loses the definition that follows, and a lone
// "ElfW(Addr)" line looks to blankMacroCalls like a macro invocation, whose blanking leaves a
// declarator without a type, which tree-sitter loses as well (blankMacroCalls runs after this
// pass and leaves the rewritten lines alone). The line must start at column 0 with identifiers
// (static, const) and the macro, NAME(ARG) with no space; what follows it on the line must be
// "*"s and identifiers, then either the end of the line (or attribute macros) with a declarator
// line next (NAME ( at column 0, see declaratorNext), or an identifier and "(" (the declarator on
// the same line). The line must be code at brace depth 0, outside comments and preprocessor
// lines, and not blanked by blankBranches. So a call (indented, in a body, or followed by ";"), a
// macro line such as "libc_hidden_def (f)" and a declarator "f(x)" (followed by "{", ";",
// attributes or K&R declarations) are left alone.
func joinTypeMacros(b *blanker) {
	n := b.lines()
	// The brace depth at the start of line next, computed only up to the lines that pass the
	// cheap tests (few files have any).
	next, depth := 0, 0
	atFileScope := func(k int) bool {
		info := b.scan()
		for ; next < k; next++ {
			if !info[next].directive {
				depth = max(depth+int(info[next].delta), 0)
			}
		}
		return !info[k].directive && depth == 0 && !info[k].inComment
	}
	for k := 0; k < n; k++ {
		if s := b.starts[k]; s >= len(b.src) || !isIdentStart(b.src[s]) {
			continue // most lines: indented, blank, a brace, a comment or a directive
		}
		open, close, decl, ok := typeMacro(b.line(k))
		if !ok || !decl && !declaratorNext(b, k) {
			continue
		}
		open, close = b.starts[k]+open, b.starts[k]+close
		if b.out[open] != '(' || b.out[close] != ')' || !atFileScope(k) {
			continue
		}
		b.setByte(open, '_')
		b.setByte(close, '_')
	}
}

// declaratorNext reports whether line k+1 is a declarator: NAME ( at column 0, not an attribute
// (__attribute__ ((unused)) after a declarator f(x)) and not a macro line such as
// "weak_alias (f, g)" (blankMacroCalls's test: its parentheses close at the end of a line that
// no body or K&R parameter declarations follow).
func declaratorNext(b *blanker, k int) bool {
	if k+1 == b.lines() || !isDeclaratorLine(b.line(k+1)) {
		return false
	}
	if l := b.line(k + 1); declAttrName(string(l[:bytes.IndexAny(l, " \t(")])) {
		return false
	}
	last, ok := macroCallEnd(b.line, k+1, b.lines())
	return !ok || startsBodyOrDecls(nextCode(b.line, last, b.lines()))
}

// typeMacro finds in a line the type macro joinTypeMacros rewrites: identifiers and blanks, then
// NAME(ARG) with ARG one identifier, then "*"s, identifiers and blanks up to the end of the line,
// or up to a "(" after an identifier: the declarator, or attribute macros that end the line. It
// returns the offsets of the parentheses, and whether the line holds the declarator.
func typeMacro(l []byte) (open, close int, decl, ok bool) {
	open = bytes.IndexByte(l, '(')
	if open <= 0 || !isIdentByte(l[open-1]) {
		return 0, 0, false, false // most lines: a declarator "f (", or no parenthesis
	}
	for _, c := range l[:open] {
		if !isIdentByte(c) && c != ' ' && c != '\t' {
			return 0, 0, false, false
		}
	}
	close = open + 1
	for close < len(l) && isIdentByte(l[close]) {
		close++
	}
	if close == open+1 || close == len(l) || l[close] != ')' || !isIdentStart(l[open+1]) {
		return 0, 0, false, false
	}
	if taggedName(l[:open]) {
		// struct E(link_map) before its body, or a declaration of the tag: without the join,
		// tree-sitter reads a function link_map.
		rest := bytes.TrimLeft(l[close+1:], " \t")
		return open, close, true, len(rest) == 0 || rest[0] == '{' || rest[0] == ';'
	}
	word, end := -1, 0 // the last identifier, l[word:end]; -1 after a "*"
	for i := close + 1; i < len(l); i++ {
		switch c := l[i]; {
		case c == ' ' || c == '\t':
		case c == '*':
			word = -1
		case isIdentByte(c):
			word, end = i, i+1
			for end < len(l) && isIdentByte(l[end]) {
				end++
			}
			i = end - 1
		case c == '(' && word >= 0:
			if !declAttrName(string(l[word:end])) {
				return open, close, true, true
			}
			// __attribute__ ((noinline)): the declarator follows on the next line.
			e, ok := attrTokens(l, word)
			return open, close, false, ok && e == len(l)
		default:
			return 0, 0, false, false
		}
	}
	return open, close, false, true
}

// taggedName reports whether a line's text up to a macro's "(" ends with struct, union or enum
// and the macro's name: "struct E".
func taggedName(l []byte) bool {
	i := len(l)
	for i > 0 && isIdentByte(l[i-1]) {
		i--
	}
	f := bytes.Fields(l[:i])
	if len(f) == 0 {
		return false
	}
	switch string(f[len(f)-1]) {
	case "struct", "union", "enum":
		return true
	}
	return false
}

// attrTokens reads, from t[i:], white space and then one or more attribute macros, each
// optionally followed by a parenthesized argument list; it returns where they end.
func attrTokens(t []byte, i int) (int, bool) {
	end, n := i, 0
	for {
		j := end
		for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
			j++
		}
		k := j
		for k < len(t) && isIdentByte(t[k]) {
			k++
		}
		if k == j || !isIdentStart(t[j]) || !declAttrName(string(t[j:k])) {
			return end, n > 0
		}
		m := k
		for m < len(t) && (t[m] == ' ' || t[m] == '\t') {
			m++
		}
		if m < len(t) && t[m] == '(' {
			depth := 0
			for ; m < len(t); m++ {
				if t[m] == '(' {
					depth++
				} else if t[m] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			if m == len(t) {
				return end, n > 0 // unbalanced: leave the rest
			}
			k = m + 1
		}
		end, n = k, n+1
	}
}

// declAttrName reports whether an identifier after a declarator is an attribute macro:
// __THROW, __wur, __nonnull, __attribute_malloc__, __attr_access, __asm__. Names like
// __pthread_once_slow are functions: only these spellings count.
func declAttrName(s string) bool {
	switch s {
	case "__wur", "__nonnull", "__asm__", "__asm", "__nothrow", "__always_inline", "__returns_nonnull",
		"__errordecl", "__warndecl", "__fortified_attr_access", "__wprintf_buffer", "internal_function", "weak_function":
		return true
	}
	if strings.Contains(s, "attribute") || strings.HasPrefix(s, "__attr") {
		return true
	}
	if !strings.HasPrefix(s, "__") {
		return false
	}
	for _, c := range s[2:] { // __THROW, __THROWNL, __NTH, __WUR
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return len(s) > 3
}

// restEndsDecl reports whether what follows attribute macros ends a declaration or opens a body.
func restEndsDecl(rest []byte) bool {
	r := bytes.TrimSpace(rest)
	return len(r) == 0 || r[0] == ';' || r[0] == '{' || r[0] == '='
}

// blankMacroCalls blanks the file-scope macro
// invocations written without a semicolon that C code is full of:
//
//	libc_hidden_def (_IO_flush_all)
//	weak_alias (_IO_flush_all, _flushall)
//	compat_symbol (libc, __old_fopen, fopen,
//	               GLIBC_2_0)
//
// A C parser cannot tell them from the start of a declaration, so it glues them to the next
// definition (which then gets the macro's name, or is lost). A block qualifies when it starts at
// column 0 with NAME (, its parentheses close at the end of its last line, the code before it
// ends a declaration or a definition (";", "}", ")" or the start of the file), and the code after
// it is neither a "{" nor indented (a function body or K&R parameter declarations follow a
// declarator). Comments and preprocessor lines are passed over on both sides. A line that
// joinTypeMacros rewrote (a return type such as ElfW(Addr) alone on its line) is left alone.
func blankMacroCalls(bl *blanker) {
	line, blank, starts := bl.line, bl.blank, bl.starts
	for k := 0; k < len(starts); k++ {
		if s := starts[k]; s >= len(bl.src) || !isIdentStart(bl.src[s]) {
			continue // most lines: indented, blank, a brace, a comment or a directive
		}
		first := line(k)
		if len(first) < 3 {
			continue
		}
		if attributeLine(first) && k > 0 && declaratorAfterAttributes(line, k+1, len(starts)) {
			if prev := bytes.TrimSpace(line(k - 1)); len(prev) > 0 && !endsDecl(prev) {
				blank(k, k)
				continue
			}
		}
		if externTypeof(first) && endsDecl(prevCode(line, k)) {
			// "extern __typeof (REDIRECT_NAME) OPTIMIZE (sse2) attribute_hidden;": tree-sitter
			// reads a definition OPTIMIZE that swallows the function after it. A declaration
			// holds no definition and no call.
			blank(k, k)
			continue
		}
		if w := trailingAttribute(first); w > 0 && k+1 < len(starts) && isDeclaratorLine(line(k+1)) {
			// "void attribute_hidden" above "_IO_vtable_check (void)": read as a function void.
			bl.blankBytes(starts[k]+w, starts[k]+len(first))
			continue
		}
		last, ok := macroCallEnd(line, k, len(starts))
		if !ok || !endsDecl(prevCode(line, k)) || startsBodyOrDecls(nextCode(line, last, len(starts))) {
			continue
		}
		if s := starts[k]; !bytes.Equal(bl.out[s:s+len(first)], first) {
			continue // a return type joinTypeMacros rewrote: ElfW(Addr)
		}
		blank(k, last)
		k = last
	}
}

// attributeLine reports whether a line is a lone attribute macro, as in
//
//	FILE *
//	attribute_compat_text_section
//	_IO_old_fopen (const char *filename, const char *mode)
//
// which a parser without the macro's definition reads as an expression. Blanking the line
// leaves an ordinary definition.
func attributeLine(l []byte) bool {
	for _, c := range l {
		if !isIdentByte(c) {
			return false
		}
	}
	return attrName(string(l))
}

// attrName reports whether an identifier looks like an attribute macro (attribute_hidden,
// __attribute_warn_unused_result__, __nonnull, internal_function, weak_const_function,
// __libc_freeres_fn_section) rather than a type or a name.
func attrName(s string) bool {
	return strings.Contains(s, "attribute") || strings.HasPrefix(s, "inhibit_") || strings.HasSuffix(s, "_function") ||
		strings.HasSuffix(s, "_section") || (strings.HasPrefix(s, "__") && !strings.HasSuffix(s, "_t"))
}

// externTypeof reports whether a line is a whole extern declaration whose type is __typeof (...).
func externTypeof(l []byte) bool {
	rest, ok := bytes.CutPrefix(l, []byte("extern "))
	if !ok || l[len(l)-1] != ';' || bytes.ContainsAny(l, "{}=\"'/") {
		return false
	}
	rest = bytes.TrimLeft(rest, " \t")
	return bytes.HasPrefix(rest, []byte("__typeof"))
}

// declaratorAfterAttributes reports whether line k, after any further attribute lines, is a
// declarator line.
func declaratorAfterAttributes(line func(int) []byte, k, n int) bool {
	for k < n && attributeLine(line(k)) {
		k++
	}
	return k < n && isDeclaratorLine(line(k))
}

// trailingAttribute returns where an attribute macro ending a return type line starts
// ("void attribute_hidden", "static int internal_function"), or 0: the line must be words of
// identifiers and "*"s, at least two, the last an attribute macro.
func trailingAttribute(l []byte) int {
	i := len(l)
	for i > 0 && isIdentByte(l[i-1]) {
		i--
	}
	if i == len(l) || i == 0 || (l[i-1] != ' ' && l[i-1] != '\t') {
		return 0
	}
	if w := string(l[i:]); !attrName(w) && !declAttrName(w) {
		return 0
	}
	for _, c := range l[:i] {
		if !isIdentByte(c) && c != ' ' && c != '\t' && c != '*' {
			return 0
		}
	}
	return i
}

// isDeclaratorLine reports whether a line starts, at column 0, with NAME (.
func isDeclaratorLine(l []byte) bool {
	i := 0
	for i < len(l) && isIdentByte(l[i]) {
		i++
	}
	if i == 0 || !isIdentStart(l[0]) {
		return false
	}
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return i < len(l) && l[i] == '('
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isIdentByte(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// macroCallEnd checks that line k is NAME ( ... ) with the parentheses closing at the end of
// line k or of one of the next few lines, and returns that last line.
func macroCallEnd(line func(int) []byte, k, n int) (int, bool) {
	l := line(k)
	i := 0
	for i < len(l) && isIdentByte(l[i]) {
		i++
	}
	switch string(l[:i]) {
	case "if", "while", "for", "switch", "return", "sizeof", "do", "else", "case", "goto", "typedef", "extern", "static":
		return 0, false
	}
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	if i >= len(l) || l[i] != '(' {
		return 0, false
	}
	depth := 0
	for last := k; last < n && last < k+8; last++ {
		if last > k {
			l, i = line(last), 0
			if len(l) == 0 || (l[0] != ' ' && l[0] != '\t') {
				return 0, false // continuation lines are indented
			}
		}
		inStr := byte(0)
		for ; i < len(l); i++ {
			c := l[i]
			switch {
			case inStr != 0:
				if c == '\\' {
					i++
				} else if c == inStr {
					inStr = 0
				}
			case c == '"' || c == '\'':
				inStr = c
			case c == '(':
				depth++
			case c == ')':
				depth--
				if depth == 0 {
					return last, i == len(l)-1
				}
			case c == ';' || c == '{' || c == '}':
				return 0, false
			}
		}
	}
	return 0, false
}

// prevCode returns the last line of code before line k, passing over blank lines, comments and
// preprocessor lines; nil at the start of the file.
func prevCode(line func(int) []byte, k int) []byte {
	for j := k - 1; j >= 0; j-- {
		l := bytes.TrimSpace(line(j))
		switch {
		case len(l) == 0:
			continue
		case l[0] == '#' || (j > 0 && bytes.HasSuffix(line(j-1), []byte("\\"))):
			continue
		case bytes.HasSuffix(l, []byte("*/")):
			// Walk back to the line that opens the comment.
			for j >= 0 && !bytes.Contains(line(j), []byte("/*")) {
				j--
			}
			if j < 0 {
				return nil
			}
			if code := bytes.TrimSpace(line(j)[:bytes.Index(line(j), []byte("/*"))]); len(code) > 0 {
				return code
			}
			continue
		case bytes.HasPrefix(l, []byte("//")):
			continue
		}
		return l
	}
	return nil
}

// nextCode returns the first line of code after line k, passing over blank lines, comments and
// preprocessor lines (indentation kept); nil at the end of the file.
func nextCode(line func(int) []byte, k, n int) []byte {
	for j := k + 1; j < n; j++ {
		raw := line(j)
		l := bytes.TrimSpace(raw)
		switch {
		case len(l) == 0, l[0] == '#', bytes.HasPrefix(l, []byte("//")), bytes.HasSuffix(line(j-1), []byte("\\")):
			continue
		case bytes.HasPrefix(l, []byte("/*")):
			for j < n && !bytes.Contains(line(j), []byte("*/")) {
				j++
			}
			if j < n {
				if rest := bytes.TrimSpace(line(j)[bytes.Index(line(j), []byte("*/"))+2:]); len(rest) > 0 {
					return rest
				}
			}
			continue
		}
		return raw
	}
	return nil
}

// endsDecl reports whether a line of code can end a declaration or definition.
func endsDecl(l []byte) bool {
	return l == nil || l[len(l)-1] == ';' || l[len(l)-1] == '}' || l[len(l)-1] == ')'
}

// startsBodyOrDecls reports whether a line opens a function body or holds K&R parameter
// declarations (indented), so that what precedes it is a declarator.
func startsBodyOrDecls(l []byte) bool {
	return len(l) > 0 && (l[0] == '{' || l[0] == ' ' || l[0] == '\t')
}

// minDataRun is how many consecutive data lines blankData needs before it blanks them.
const minDataRun = 16

// blankData returns src with long runs of pure data lines (table rows such as
// "  [0x0eab] = 0x6568, [0x0eac] = 0x6569," or "{ .start = 0x4040, .idx = -16448 },")
// replaced by spaces, keeping every newline, so offsets and line numbers do not move. Such a
// line ends with a comma, has balanced braces and no parenthesis, semicolon, open comment or
// preprocessor sign outside its string literals and closed /* */ comments, and the run follows the opening of a list or a
// comma: removing it leaves the list valid, and it can hold no definition and no call. Big generated tables parse many
// times faster without them. src itself is returned when there is nothing to blank.
func blankData(src, scratch []byte) []byte {
	var out []byte
	runStart, runEnd, run := -1, -1, 0
	flush := func() {
		if run >= minDataRun && inList(src[:runStart]) {
			if out == nil {
				out = append(scratch[:0], src...)
			}
			for k := runStart; k < runEnd; k++ {
				if out[k] != '\n' {
					out[k] = ' '
				}
			}
		}
		runStart, run = -1, 0
	}
	for start := 0; start < len(src); {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		switch line := src[start:end]; {
		case isDataLine(line):
			if runStart < 0 {
				runStart = start
			}
			runEnd = end
			run++
		case runStart >= 0 && isCommentLine(line):
			runEnd = end // "/* 0x5AC0 */" between rows: part of the run
		default:
			flush()
		}
		start = end + 1
	}
	flush()
	if out == nil {
		return src
	}
	return out
}

// inList reports whether the code before a run of data lines ends inside a list: with an opening
// brace, bracket or parenthesis, a comma, an equals sign or the end of a comment. Preprocessor
// lines in between (tables often hold #if blocks) are passed over.
func inList(before []byte) bool {
	for {
		t := bytes.TrimRight(before, " \t\r\n")
		if len(t) == 0 {
			return false
		}
		ls := bytes.LastIndexByte(t, '\n') + 1
		if line := bytes.TrimLeft(t[ls:], " \t"); len(line) > 0 && line[0] == '#' {
			before = t[:ls]
			continue
		}
		return strings.IndexByte("{[(,=/", t[len(t)-1]) >= 0
	}
}

// isCommentLine reports whether a line holds nothing but one closed block comment.
func isCommentLine(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) >= 4 && bytes.HasPrefix(t, []byte("/*")) && bytes.Index(t, []byte("*/")) == len(t)-2
}

func isDataLine(line []byte) bool {
	// Cheap rejections first: most lines of code end with ';', '{', ')' or nothing.
	t := trimBlanksRight(line)
	if len(t) < 2 || t[len(t)-1] != ',' {
		return false
	}
	depth, inStr, values := 0, false, false
	for i := 0; i < len(t); i++ {
		c := t[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr, values = true, true
		case c == '/' && i+1 < len(t) && t[i+1] == '*':
			e := bytes.Index(t[i+2:], []byte("*/"))
			if e < 0 {
				return false
			}
			i += e + 3
		case c >= '0' && c <= '9':
			values = true
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth < 0 {
				return false
			}
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '.', c == ',', c == ' ', c == '\t',
			c == '[', c == ']', c == '=', c == '-', c == '+', c == ':':
		default:
			return false
		}
	}
	return !inStr && depth == 0 && values
}
