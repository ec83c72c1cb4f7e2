package prep

import (
	"bytes"
	"strings"
)

// The prepare passes for C and C++ file-scope macro invocations; the overview is in prep.go.

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
	return AttrName(string(l))
}

// AttrName reports whether an identifier looks like an attribute macro (attribute_hidden,
// __attribute_warn_unused_result__, __nonnull, internal_function, weak_const_function,
// __libc_freeres_fn_section) rather than a type or a name.
func AttrName(s string) bool {
	return strings.Contains(s, "attribute") || strings.HasPrefix(s, "inhibit_") || strings.HasSuffix(s, "_function") ||
		strings.HasSuffix(s, "_section") || (strings.HasPrefix(s, "__") && !strings.HasSuffix(s, "_t"))
}

// externTypeof reports whether a line is a whole extern declaration whose type is __typeof (...).
func externTypeof(l []byte) bool {
	rest, ok := bytes.CutPrefix(l, []byte("extern "))
	if !ok || l[len(l)-1] != ';' || bytes.ContainsAny(l, "{}=\"'/") {
		return false
	}
	rest = trimBlanksLeft(rest)
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
	if w := string(l[i:]); !AttrName(w) && !declAttrName(w) {
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
