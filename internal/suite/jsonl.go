package suite

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vulnbench/vulnbench/internal/jsonkeys"
	"github.com/vulnbench/vulnbench/internal/lineerr"
)

// DefaultMaxLine is the longest line a suite may hold: far more than one function or snippet,
// small enough that a corrupt file cannot exhaust memory.
const DefaultMaxLine = 8 << 20

// ErrRead marks a failure of the reader itself (as opposed to a bad line): reading cannot go on.
var ErrRead = errors.New("read")

// LineError is a problem with one line of an input file. It prints as FILE:LINE: message.
type LineError = lineerr.Error

// LineReader reads a JSONL file line by line in constant memory, counting lines, accepting CRLF
// line endings, refusing over-long lines without reading them whole, and hashing what it reads.
type LineReader struct {
	r       *bufio.Reader
	File    string
	MaxLine int
	line    int
	hash    hash.Hash
	buf     []byte
	bom     bool
	// Reading says whether bytes that are not UTF-8 are accepted (replaced by U+FFFD) and keeps
	// the notes of a byte-order mark and of the bytes replaced; nil: strict, no notes.
	Reading *lineerr.Reading
	// replaced bytes on bad lines, the first on line firstBad
	replaced, bad, firstBad int
}

// NewLineReader reads r, naming it file in errors.
func NewLineReader(r io.Reader, file string) *LineReader {
	h := sha256.New()
	return &LineReader{r: bufio.NewReaderSize(io.TeeReader(r, h), 64<<10), File: file, MaxLine: DefaultMaxLine, hash: h}
}

// Next returns the next non-blank line without its line ending, and its 1-based number.
// The slice is valid until the next call. At the end it returns io.EOF. An over-long line gives a
// *LineError and the reader moves on to the following line; a failure of the underlying reader
// is a *LineError wrapping ErrRead, and reading cannot go on.
func (lr *LineReader) Next() ([]byte, int, error) {
	for {
		lr.buf = lr.buf[:0]
		tooLong := false
		size := 0
		for {
			chunk, err := lr.r.ReadSlice('\n')
			size += len(chunk)
			if !tooLong {
				if size > lr.MaxLine {
					tooLong = true
					lr.buf = lr.buf[:0]
				} else {
					lr.buf = append(lr.buf, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				if size == 0 {
					lr.Reading.Replaced(lr.File, lr.replaced, lr.bad, lr.firstBad)
					return nil, lr.line, io.EOF
				}
				break
			}
			if err != nil {
				return nil, lr.line, &LineError{File: lr.File, Line: lr.line + 1, Err: fmt.Errorf("%w: %w", ErrRead, err)}
			}
			break
		}
		lr.line++
		if tooLong {
			return nil, lr.line, &LineError{File: lr.File, Line: lr.line,
				Err: fmt.Errorf("line is %.1f MiB, over the %d MiB limit for one record", float64(size)/(1<<20), lr.MaxLine>>20)}
		}
		b := bytes.TrimRight(lr.buf, "\r\n")
		if lr.line == 1 && bytes.HasPrefix(b, []byte(bom)) {
			b, lr.bom = b[len(bom):], true
			lr.Reading.BOM(lr.File)
		}
		b, n, err := lr.Reading.UTF8(b)
		if err != nil {
			return nil, lr.line, &LineError{File: lr.File, Line: lr.line, Err: err}
		}
		if n > 0 {
			lr.replaced, lr.bad = lr.replaced+n, lr.bad+1
			if lr.firstBad == 0 {
				lr.firstBad = lr.line
			}
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		return b, lr.line, nil
	}
}

// bom is the UTF-8 byte-order mark, accepted at the start of a file (BOM says whether it was).
const bom = "\xef\xbb\xbf"

// BOM reports whether the file began with a UTF-8 byte-order mark (dropped from the first line).
func (lr *LineReader) BOM() bool { return lr.bom }

// Hash returns the hex SHA-256 of every byte read so far.
func (lr *LineReader) Hash() string { return hex.EncodeToString(lr.hash.Sum(nil)) }

// DecodeCase parses one suite line strictly: unknown fields are errors, so typos are caught.
func DecodeCase(b []byte) (*Case, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var c Case
	if err := dec.Decode(&c); err != nil {
		return nil, DescribeJSONError(b, err, "case")
	}
	// Token, not More: More is false before a stray '}' or ']', which let "{...}}" through.
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value on the line")
	}
	if err := CheckKeys(b); err != nil {
		return nil, err
	}
	return &c, nil
}

// CheckKeys refuses a JSON text holding an object with a key given twice or two keys that
// differ only in case (encoding/json takes the last, and "Label" for label): nil when none does.
// The error names the line inside b when b spans lines ("line 3: ...").
func CheckKeys(b []byte) error {
	e := jsonkeys.Check(b)
	if e == nil {
		return nil
	}
	if bytes.Count(b, []byte("\n")) > 0 {
		return fmt.Errorf("line %d: %w", e.Line, e)
	}
	return e
}

// DescribeJSONError turns an encoding/json error about line b into a message for people: a
// truncated line, a syntax error with its column, a field of the wrong type, or else what the
// decoder said about the record (an unknown field, say). record names what the line holds:
// "case", "record", "prediction".
func DescribeJSONError(b []byte, err error, record string) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		(errors.As(err, &se) && se.Offset >= int64(len(b)) && strings.Contains(se.Error(), "unexpected end")):
		return errors.New("invalid JSON: the line ends before the object does (truncated?)")
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at column %d: %v", se.Offset, err)
	case errors.As(err, &te) && te.Field == "":
		return fmt.Errorf("invalid %s: expected a JSON object, got %s", record, te.Value)
	case errors.As(err, &te):
		return fmt.Errorf("field %q: expected %v, got JSON %s", te.Field, te.Type, te.Value)
	}
	return fmt.Errorf("invalid %s: %s", record, strings.TrimPrefix(err.Error(), "json: "))
}

// Scan reads a suite file, calling fn with every case that passes Case.Check, and returns every
// problem found (bad lines, and with check set, duplicate ids and broken pairs) as *LineError
// values, sorted by line. It returns the file's SHA-256. A non-nil error means the file could not
// be read at all. rd is how it is read (nil: strictly, nothing noted).
func Scan(path string, rd *lineerr.Reading, check bool, fn func(c *Case, line int) error) (hash string, problems []error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, fmt.Errorf("open suite: %w", err)
	}
	defer f.Close()
	return ScanReader(f, path, rd, check, fn)
}

// ScanReader is Scan over an open reader named file. Lines are decoded on every CPU; fn is
// called in file order from the calling goroutine.
func ScanReader(r io.Reader, file string, rd *lineerr.Reading, check bool, fn func(c *Case, line int) error) (string, []error, error) {
	return scanReader(r, file, rd, check, (*Case).Check, fn)
}

// ScanUnlabelled is Scan of a suite that is to be labelled: its vex cases may have no label
// yet (Case.CheckUnlabelled). Ids and pairs are checked.
func ScanUnlabelled(path string, rd *lineerr.Reading, fn func(c *Case, line int) error) (hash string, problems []error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, fmt.Errorf("open suite: %w", err)
	}
	defer f.Close()
	return scanReader(f, path, rd, true, (*Case).CheckUnlabelled, fn)
}

func scanReader(r io.Reader, file string, rd *lineerr.Reading, check bool, checkCase func(*Case) error, fn func(c *Case, line int) error) (string, []error, error) {
	lr := NewLineReader(r, file)
	lr.Reading = rd
	var ck *Checker
	if check {
		ck = NewChecker(file)
	}
	type decoded struct {
		c   *Case
		err error
	}
	var problems []error
	err := DecodeLines(lr, 0, func(b []byte, _ int) decoded {
		c, err := DecodeCase(b)
		if err == nil {
			err = checkCase(c)
		}
		return decoded{c, err}
	}, func(d decoded, line int, err error) error {
		if err != nil {
			problems = append(problems, err)
			return nil
		}
		if d.err != nil {
			problems = append(problems, &LineError{File: file, Line: line, Err: d.err})
			return nil
		}
		if ck != nil {
			problems = append(problems, ck.Add(d.c, line)...)
		}
		if fn != nil {
			return fn(d.c, line)
		}
		return nil
	})
	if err != nil {
		return "", problems, err
	}
	if ck != nil {
		problems = append(problems, ck.Finish()...)
	}
	sortByLine(problems)
	return lr.Hash(), problems, nil
}

// CountLines counts the newline-terminated lines of a file (plus a last unterminated one), fast:
// an upper bound on its records, to size memory once rather than grow it.
func CountLines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	n, last := 0, byte('\n')
	for {
		k, err := f.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("read %s: %w", path, err)
		}
	}
	if last != '\n' {
		n++
	}
	return n, nil
}

// Writer writes cases as JSONL.
type Writer struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// NewWriter writes JSONL to w. Call Flush at the end.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{w: bw, enc: enc}
}

// Write appends one case.
func (w *Writer) Write(c *Case) error { return w.enc.Encode(c) }

// Flush writes buffered data.
func (w *Writer) Flush() error { return w.w.Flush() }

// WriteFileAtomic creates path by writing a temporary file beside it and renaming it into place
// only when write succeeds, so a failure or crash never leaves a partial file behind.
func WriteFileAtomic(path string, write func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes 0600; outputs are ordinary files
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
