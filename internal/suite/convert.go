package suite

import (
	"bufio"
	"errors"
	"io"
	"os"
)

var errInputProblems = errors.New("input problems")

// ConvertFile opens in and has convert read it and write cases to out, replaced atomically. When
// convert returns problems (*LineError) nothing is written and they are returned, with a nil error.
func ConvertFile(in, out string, convert func(r io.Reader, w *Writer) ([]error, error)) (problems []error, bom bool, err error) {
	f, err := os.Open(in)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if head, _ := br.Peek(3); string(head) == "\xef\xbb\xbf" {
		bom = true
	}
	err = WriteFileAtomic(out, func(w io.Writer) error {
		sw := NewWriter(w)
		var err error
		if problems, err = convert(br, sw); err != nil {
			return err
		}
		if len(problems) > 0 {
			return errInputProblems
		}
		return sw.Flush()
	})
	if errors.Is(err, errInputProblems) {
		return problems, bom, nil
	}
	return nil, bom, err
}
