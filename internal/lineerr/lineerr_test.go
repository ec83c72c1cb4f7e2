package lineerr

import (
	"errors"
	"io"
	"testing"
)

func TestError(t *testing.T) {
	for _, tc := range []struct {
		e    *Error
		want string
	}{
		{&Error{File: "s.jsonl", Line: 3, Err: errors.New("bad id")}, "s.jsonl:3: bad id"},
		{&Error{File: "db.zip", Err: errors.New("open zip")}, "db.zip: open zip"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	if e := (&Error{File: "f", Line: 1, Err: io.ErrUnexpectedEOF}); !errors.Is(e, io.ErrUnexpectedEOF) {
		t.Error("Unwrap does not reach the wrapped error")
	}
}
