package suite

import (
	"errors"
	"fmt"
)

// MaxProblems is how many problems of one file a reader lists before it summarises the rest as
// "and N more problems".
const MaxProblems = 100

// Problems collects a file's problems, keeping the first MaxProblems and counting the rest.
type Problems struct {
	File string
	errs []error
	n    int
}

// Add records one problem; a *LineError without a file gets p.File.
func (p *Problems) Add(err error) {
	var le *LineError
	if errors.As(err, &le) && le.File == "" {
		le.File = p.File
	}
	p.n++
	if len(p.errs) < MaxProblems {
		p.errs = append(p.errs, err)
	}
}

// Len is the number of problems recorded, kept or not.
func (p *Problems) Len() int { return p.n }

// List returns the kept problems, and a last one saying how many more there were.
func (p *Problems) List() []error {
	if p.n > len(p.errs) {
		return append(p.errs, &LineError{File: p.File, Err: fmt.Errorf("and %d more problems", p.n-len(p.errs))})
	}
	return p.errs
}
