package suite

import (
	"bytes"
	"errors"
	"io"

	"github.com/vulnbench/vulnbench/internal/lineerr"
)

// Records is the record loop of every importer (primevul, vexbench, jitvul's public file and
// batch): it reads r (named file) line by line in constant memory and calls fn with each
// non-blank line and its number, a UTF-8 byte-order mark cut from the first. Problems go to
// probs, each FILE:LINE: a line the reader refuses (over its length limit), and a *LineError
// that fn returns (its Line set when fn left it 0); reading then goes on. A failure of the
// underlying reader ends the loop with that error, and so does any other error fn returns.
// refused counts the lines fn never saw because the reader refused them. rd is how r is read
// (--lossy-utf8, and the notes of a byte-order mark and replaced bytes; nil: strictly).
func Records(r io.Reader, file string, rd *lineerr.Reading, probs *Problems, fn func(b []byte, line int) error) (refused int, err error) {
	lr := NewLineReader(r, file)
	lr.Reading = rd
	first := true
	for {
		b, line, err := lr.Next()
		if err == io.EOF {
			return refused, nil
		}
		if err != nil {
			if errors.Is(err, ErrRead) {
				return refused, err
			}
			first = false
			refused++
			probs.Add(err)
			continue
		}
		if first {
			b, first = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), false
		}
		if err := fn(b, line); err != nil {
			var le *LineError
			if !errors.As(err, &le) {
				return refused, err
			}
			if le.Line == 0 {
				le.Line = line
			}
			probs.Add(err)
		}
	}
}
