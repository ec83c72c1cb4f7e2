// Package textnorm folds text for matching, so that what a reader sees as one phrase is one
// string whatever its encoding tricks (Fold), and checks the ids that name cases and runs (ID,
// PathSegment).
package textnorm

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Folded is text folded for matching.
type Folded struct {
	// Text is the text under NFKD (no-break and other wide spaces become spaces, full-width and
	// mathematical letters plain ones, accented letters a letter and its marks), with the
	// combining marks and format characters removed (accents, a dot over an i; zero-width spaces
	// and joiners, bidi controls, soft hyphens), lower-cased, with the Latin-looking Cyrillic and
	// Greek letters folded to the Latin ones, and every run of white space and comment
	// punctuation (* / #) read as one space.
	Text string
	// Hidden counts the format characters removed (a byte-order mark at the start is not one).
	Hidden int
	// Mixed counts the words that mixed folded look-alike letters with Latin ones ("іgnore").
	Mixed int
}

// lookalikes are the letters of other scripts drawn like Latin lower-case ones: Cyrillic,
// Greek, Armenian, Cherokee (lower-cased: U+AB70..), and the Latin small capitals and other IPA
// letters that NFKC leaves alone.
var lookalikes = map[rune]rune{
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p',
	'с': 'c', 'т': 't', 'у': 'y', 'х': 'x', 'і': 'i', 'ї': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd',
	'ԛ': 'q', 'ԝ': 'w', 'һ': 'h', 'ӏ': 'l', 'ɡ': 'g', 'ԍ': 'g', 'ո': 'n', 'ɑ': 'a',
	'α': 'a', 'β': 'b', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't',
	'υ': 'u', 'χ': 'x', 'ω': 'w', 'ϲ': 'c', 'ϳ': 'j',
	'օ': 'o', 'ս': 'u', 'ց': 'g', 'հ': 'h', 'ք': 'p', 'զ': 'q', 'ɩ': 'i',
	'ꭰ': 'd', 'ꭵ': 'i', 'ꭼ': 'e', 'ꮃ': 'w', 'ꮇ': 'm', 'ꮋ': 'h', 'ꮓ': 'z', 'ꮪ': 's', 'ꮯ': 'c',
	'ꮲ': 'p', 'ꮶ': 'k', 'ꮮ': 'l', 'ꭱ': 'r', 'ꭺ': 'a', 'ᏼ': 'b', 'ꮐ': 'g', 'ꭲ': 't',
	'ᴀ': 'a', 'ʙ': 'b', 'ᴄ': 'c', 'ᴅ': 'd', 'ᴇ': 'e', 'ꜰ': 'f', 'ɢ': 'g', 'ʜ': 'h', 'ɪ': 'i',
	'ᴊ': 'j', 'ᴋ': 'k', 'ʟ': 'l', 'ᴍ': 'm', 'ɴ': 'n', 'ᴏ': 'o', 'ᴘ': 'p', 'ʀ': 'r', 'ꜱ': 's',
	'ᴛ': 't', 'ᴜ': 'u', 'ᴠ': 'v', 'ᴡ': 'w', 'ʏ': 'y', 'ᴢ': 'z',
}

// maxPasses bounds the passes Fold makes to reach text that folds to itself.
const maxPasses = 4

// Fold folds s for matching (see Folded). Lower-casing can leave text that decomposes anew, so
// Fold passes over its own text again until it folds to itself; the counts are the first pass's.
func Fold(s string) Folded {
	f := fold(strings.TrimPrefix(s, "\uFEFF"))
	for i := 1; i < maxPasses; i++ {
		again := fold(f.Text)
		if again.Text == f.Text {
			break
		}
		f.Text = again.Text
	}
	return f
}

func fold(s string) Folded {
	s = norm.NFKD.String(s)
	var b strings.Builder
	b.Grow(len(s))
	var f Folded
	space := true
	latin, glyph := false, false // the current word has Latin letters, folded look-alikes
	endWord := func() {
		if latin && glyph {
			f.Mixed++
		}
		latin, glyph = false, false
	}
	for _, r := range s {
		if unicode.Is(unicode.Cf, r) {
			f.Hidden++
			continue
		}
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if unicode.IsSpace(r) || r == '*' || r == '/' || r == '#' {
			endWord()
			if !space {
				b.WriteByte(' ')
				space = true
			}
			continue
		}
		space = false
		r = unicode.ToLower(r)
		if l, ok := lookalikes[r]; ok {
			r, glyph = l, true
		} else if r < unicode.MaxASCII && unicode.IsLetter(r) {
			latin = true
		} else if !unicode.IsLetter(r) {
			endWord()
		}
		b.WriteRune(r)
	}
	endWord()
	f.Text = b.String()
	return f
}
