package tools

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// maxLine bounds the bytes of one line a tool keeps (longer lines are read through, counted and
// matched on their first maxLine bytes).
const maxLine = 1 << 20

// scanned is what a streamed pass over a file saw.
type scanned struct {
	size, read int64 // the file's size; the bytes read
	binary     bool  // git's rule, on the first bytes
	lines      int   // lines seen (the whole count when done)
	done       bool  // the whole file was read (fn did not stop it, the budget did not run out)
	budget     bool  // the unit's read budget ran out before the end
}

// partial is the note for a file read only in part: "read the first 2.0 MiB of 3.7 MiB".
func (r scanned) partial(verb string) string {
	return fmt.Sprintf("%s the first %s of %s: this unit's read budget is spent", verb, mib(r.read), mib(r.size))
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// scanLines streams path line by line (the text without its "\n"), calling fn with each line's
// 1-based number until fn returns false, the file ends or the handle's budget runs out. A binary
// file is not scanned. Only an open failure is an error.
func scanLines(s *snapshot.Snapshot, path string, fn func(n int, line []byte) bool) (scanned, error) {
	f, size, err := s.Stream(path)
	if err != nil {
		return scanned{}, err
	}
	defer f.Close()
	cr := &countingReader{r: f}
	br := bufio.NewReaderSize(cr, 64<<10)
	res := scanned{size: size}
	head, perr := br.Peek(snapshot.BinarySniff)
	if snapshot.IsBinary(head) {
		res.binary, res.read = true, cr.n
		return res, nil
	}
	if perr != nil && !errors.Is(perr, io.EOF) && !errors.Is(perr, bufio.ErrBufferFull) {
		return finish(res, cr, perr), nil
	}
	var long []byte // a line longer than the reader's buffer, kept up to maxLine bytes
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) || len(long) > 0 {
			long = append(long, chunk[:min(len(chunk), max(0, maxLine-len(long)))]...)
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			chunk = long
		}
		if len(chunk) > 0 && (err == nil || errors.Is(err, io.EOF)) {
			res.lines++
			if !fn(res.lines, bytes.TrimSuffix(chunk, []byte("\n"))) {
				res.read = cr.n
				return res, nil
			}
		}
		long = long[:0]
		if err != nil {
			return finish(res, cr, err), nil
		}
	}
}

func finish(res scanned, cr *countingReader, err error) scanned {
	res.read = cr.n
	res.done = errors.Is(err, io.EOF)
	res.budget = errors.Is(err, snapshot.ErrBudget)
	return res
}
