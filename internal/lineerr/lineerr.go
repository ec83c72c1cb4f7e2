// Package lineerr holds the error of one line of an input file, FILE:LINE: message. It sits at
// the bottom so that every reader of input files (suites, advisory databases) reports alike
// without importing the others; suite.LineError is this type.
package lineerr

import "fmt"

// Error is a problem with one line of an input file. It prints as FILE:LINE: message, or
// FILE: message when Line is 0 (a problem with the whole file).
type Error struct {
	File string
	Line int
	Err  error
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
