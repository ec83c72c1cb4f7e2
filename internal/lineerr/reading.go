package lineerr

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"
)

// Reading is how one command reads its input files (suites, predictions, SARIF): Lossy
// (--lossy-utf8) accepts bytes that are not UTF-8, each read as U+FFFD; and what the readers
// noted of the files (a byte-order mark dropped, bytes replaced), each note once however often a
// file is read. A nil *Reading reads strictly and keeps no note. It is safe for concurrent use.
type Reading struct {
	Lossy bool
	mu    sync.Mutex
	notes []string
}

// Note keeps a note, unless it was kept already.
func (r *Reading) Note(format string, args ...any) {
	if r == nil {
		return
	}
	s := fmt.Sprintf(format, args...)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.notes, s) {
		r.notes = append(r.notes, s)
	}
}

// Notes are the notes kept, in order.
func (r *Reading) Notes() []string {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.notes)
}

// BOM notes that file began with a UTF-8 byte-order mark, which its reader dropped.
func (r *Reading) BOM(file string) { r.Note("%s: UTF-8 byte-order mark ignored", file) }

// Replaced notes, once for file, that Lossy replaced n bytes on lines lines (the first on
// line first; 0 for a file read whole) by U+FFFD.
func (r *Reading) Replaced(file string, n, lines, first int) {
	if n == 0 {
		return
	}
	where := ""
	if first > 0 {
		where = fmt.Sprintf(" on %d %s (first: line %d)", lines, plural(lines, "line", "lines"), first)
	}
	r.Note("%s: %d %s not UTF-8 replaced by U+FFFD%s (--lossy-utf8)", file, n, plural(n, "byte", "bytes"), where)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// UTF8 checks that b is UTF-8. When it is not, a strict Reading returns the problem of its first
// bad byte (column and value, and the flag that accepts it); a Lossy one returns b with each bad
// byte replaced by U+FFFD, and how many were.
func (r *Reading) UTF8(b []byte) (out []byte, replaced int, err error) {
	if utf8.Valid(b) {
		return b, 0, nil
	}
	if r == nil || !r.Lossy {
		return nil, 0, invalidUTF8(b)
	}
	out = make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		c, n := utf8.DecodeRune(b)
		if c == utf8.RuneError && n == 1 {
			out = append(out, "\uFFFD"...)
			replaced++
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out, replaced, nil
}

// invalidUTF8 describes the first invalid UTF-8 byte of b.
func invalidUTF8(b []byte) error {
	i := 0
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	return fmt.Errorf("invalid UTF-8 at column %d (byte 0x%02x): the file is not UTF-8 (Latin-1?); --lossy-utf8 reads it with each bad byte replaced by U+FFFD", i+1, b[i])
}

// File checks a file read whole (b, named file) as LineReader checks each line: a UTF-8
// byte-order mark is dropped and noted (bom says it was there); bytes that are not UTF-8 are a
// problem at FILE:LINE for a strict Reading, and replaced by U+FFFD and noted for a Lossy one.
func (r *Reading) File(file string, b []byte) (out []byte, bom bool, err error) {
	if bom = bytes.HasPrefix(b, []byte("\xef\xbb\xbf")); bom {
		b = b[3:]
		r.BOM(file)
	}
	if utf8.Valid(b) {
		return b, bom, nil
	}
	i := 0
	for i < len(b) {
		c, n := utf8.DecodeRune(b[i:])
		if c == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	first := bytes.Count(b[:i], []byte("\n")) + 1
	if r == nil || !r.Lossy {
		start := bytes.LastIndexByte(b[:i], '\n') + 1
		end := bytes.IndexByte(b[i:], '\n')
		if end < 0 {
			end = len(b) - i
		}
		return nil, bom, &Error{File: file, Line: first, Err: invalidUTF8(b[start : i+end])}
	}
	out, n, _ := r.UTF8(b)
	lines := 0
	for _, l := range bytes.Split(b[bytes.LastIndexByte(b[:i], '\n')+1:], []byte("\n")) {
		if !utf8.Valid(l) {
			lines++
		}
	}
	r.Replaced(file, n, lines, first)
	return out, bom, nil
}
