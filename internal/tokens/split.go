package tokens

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers cut a text into the pieces that byte-pair encoding then encodes one by one.
// Each is the leftmost-first (backtracking) match of its encoding's regular expression, written
// out by hand: Go's regexp has no lookahead, which the last whitespace alternatives need.
//
// o200k_base:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// cl100k_base:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// \s is Unicode's White_Space. Every position starts a match (a letter, a digit, white space or
// anything else), so the pieces tile the text. Invalid UTF-8 bytes are single "other" characters.

// Character classes, as bits.
const (
	cLetter  = 1 << iota // \p{L}
	cNumber              // \p{N}
	cSpace               // \s
	cNewline             // \r or \n
	cUpper               // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLower               // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
)

func class(r rune) uint8 {
	if r < utf8.RuneSelf {
		switch {
		case 'a' <= r && r <= 'z':
			return cLetter | cLower
		case 'A' <= r && r <= 'Z':
			return cLetter | cUpper
		case '0' <= r && r <= '9':
			return cNumber
		case r == '\n' || r == '\r':
			return cSpace | cNewline
		case r == ' ' || r == '\t' || r == '\v' || r == '\f':
			return cSpace
		}
		return 0
	}
	switch {
	case unicode.IsSpace(r): // White_Space (U+0085, U+00A0, Z*)
		return cSpace
	case unicode.IsNumber(r):
		return cNumber
	case unicode.IsMark(r):
		return cUpper | cLower
	case unicode.Is(unicode.Ll, r):
		return cLetter | cLower
	case unicode.Is(unicode.Lu, r), unicode.Is(unicode.Lt, r):
		return cLetter | cUpper
	case unicode.IsLetter(r): // Lm, Lo
		return cLetter | cUpper | cLower
	}
	return 0
}

// other is [^\s\p{L}\p{N}].
func other(c uint8) bool { return c&(cLetter|cNumber|cSpace) == 0 }

// prefix is [^\r\n\p{L}\p{N}].
func prefix(c uint8) bool { return c&(cLetter|cNumber|cNewline) == 0 }

// at is the rune at i, its class and width; past the end, width 0.
func at(s string, i int) (rune, uint8, int) {
	if i >= len(s) {
		return 0, 0, 0
	}
	if b := s[i]; b < utf8.RuneSelf {
		return rune(b), class(rune(b)), 1
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	return r, class(r), w
}

// run is the end of the longest run from i of runes whose class has a bit of mask.
func run(s string, i int, mask uint8) int {
	for {
		_, c, w := at(s, i)
		if w == 0 || c&mask == 0 {
			return i
		}
		i += w
	}
}

// numbers is \p{N}{1,3} from i (a number is there).
func numbers(s string, i int) int {
	for n := 0; n < 3; n++ {
		_, c, w := at(s, i)
		if w == 0 || c&cNumber == 0 {
			break
		}
		i += w
	}
	return i
}

// contraction is the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or -1.
func contraction(s string, i int) int {
	if i >= len(s) || s[i] != '\'' {
		return -1
	}
	r1, _, w1 := at(s, i+1)
	switch r1 {
	case 's', 'S', 't', 'T', 'm', 'M', 'd', 'D', 'ſ': // ſ folds to s
		return i + 1 + w1
	}
	r2, _, w2 := at(s, i+1+w1)
	switch {
	case (r1 == 'r' || r1 == 'R' || r1 == 'v' || r1 == 'V') && (r2 == 'e' || r2 == 'E'),
		(r1 == 'l' || r1 == 'L') && (r2 == 'l' || r2 == 'L'):
		return i + 1 + w1 + w2
	}
	return -1
}

// optContraction is an optional contraction at i.
func optContraction(s string, i int) int {
	if e := contraction(s, i); e >= 0 {
		return e
	}
	return i
}

// spaces is the end of the whitespace alternatives at i (white space is there):
// \s*[\r\n]+ | \s+(?!\S) | \s+.
func spaces(s string, i int) int {
	end, lastNL, last := i, -1, i
	for {
		_, c, w := at(s, end)
		if w == 0 || c&cSpace == 0 {
			break
		}
		if c&cNewline != 0 {
			lastNL = end + w
		}
		last = end
		end += w
	}
	switch {
	case lastNL >= 0:
		return lastNL // \s*[\r\n]+ ends after the run's last line break
	case end == len(s) || last == i:
		return end // at the end of the text, or one white space before a non-space
	}
	return last // \s+(?!\S): the run but its last white space, which goes with what follows
}

// punctuation is ` ?[^\s\p{L}\p{N}]+` then a run of tail at i, or -1.
func punctuation(s string, i int, tail func(r rune) bool) int {
	j := i
	if s[i] == ' ' {
		if _, c, w := at(s, i+1); w > 0 && other(c) {
			j = i + 1
		}
	}
	if _, c, w := at(s, j); w == 0 || !other(c) {
		return -1
	}
	for {
		_, c, w := at(s, j)
		if w == 0 || !other(c) {
			break
		}
		j += w
	}
	for {
		r, _, w := at(s, j)
		if w == 0 || !tail(r) {
			return j
		}
		j += w
	}
}

func newlines(r rune) bool        { return r == '\r' || r == '\n' }
func newlinesOrSlash(r rune) bool { return r == '\r' || r == '\n' || r == '/' }

// nextO200k is the end of o200k_base's piece that starts at i < len(s).
func nextO200k(s string, i int) int {
	_, c, w := at(s, i)
	if prefix(c) {
		if e := upperLower(s, i+w); e >= 0 {
			return e
		}
	}
	if e := upperLower(s, i); e >= 0 {
		return e
	}
	if prefix(c) {
		if e := capitalised(s, i+w); e >= 0 {
			return e
		}
	}
	if e := capitalised(s, i); e >= 0 {
		return e
	}
	if c&cNumber != 0 {
		return numbers(s, i)
	}
	if e := punctuation(s, i, newlinesOrSlash); e >= 0 {
		return e
	}
	return spaces(s, i)
}

// upperLower is [ULUP]*[LOW]+ then an optional contraction from j, or -1; [ULUP]* gives back
// what [LOW]+ needs.
func upperLower(s string, j int) int {
	e := run(s, j, cUpper)
	if _, c, w := at(s, e); w > 0 && c&cLower != 0 {
		return optContraction(s, run(s, e, cLower))
	}
	// Back off: the last rune of the upper run that is also lower (Lm, Lo, M) starts [LOW]+,
	// which ends after it (the runes after it in the run are upper only).
	for k := e; k > j; {
		_, w := utf8.DecodeLastRuneInString(s[j:k])
		if _, c, _ := at(s, k-w); c&cLower != 0 {
			return optContraction(s, k)
		}
		k -= w
	}
	return -1
}

// capitalised is [ULUP]+[LOW]* then an optional contraction from j, or -1.
func capitalised(s string, j int) int {
	e := run(s, j, cUpper)
	if e == j {
		return -1
	}
	return optContraction(s, run(s, e, cLower))
}

// nextCl100k is the end of cl100k_base's piece that starts at i < len(s).
func nextCl100k(s string, i int) int {
	if e := contraction(s, i); e >= 0 {
		return e
	}
	_, c, w := at(s, i)
	if prefix(c) {
		if _, c2, w2 := at(s, i+w); w2 > 0 && c2&cLetter != 0 {
			return run(s, i+w, cLetter)
		}
	}
	if c&cLetter != 0 {
		return run(s, i, cLetter)
	}
	if c&cNumber != 0 {
		return numbers(s, i)
	}
	if e := punctuation(s, i, newlines); e >= 0 {
		return e
	}
	return spaces(s, i)
}
