package prep

import (
	"bytes"
	"strings"
)

// The prepare passes for attribute macros and type macros in C and C++ file-scope declarations; the overview is in prep.go.

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
		t := trimBlanksLeft(l)
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
		rest := trimBlanksLeft(l[close+1:])
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
