package suite

import (
	"errors"
	"io"
	"slices"

	"github.com/vulnbench/vulnbench/internal/lineerr"
)

// Filter keeps the cases that match every list given: a case matches a list holding its value.
// An empty list matches every case.
type Filter struct {
	Languages []string
	Kinds     []string // Kind values
	Labels    []string // Label values
}

// Match reports whether c passes every list of f.
func (f Filter) Match(c *Case) bool {
	return (len(f.Languages) == 0 || slices.Contains(f.Languages, c.Language)) &&
		(len(f.Kinds) == 0 || slices.Contains(f.Kinds, string(c.Kind))) &&
		(len(f.Labels) == 0 || slices.Contains(f.Labels, string(c.Label)))
}

// Selection counts what Select wrote.
type Selection struct {
	Cases    int // cases written
	Unpaired int // of them, cases whose pair partner was not selected: their pair was cleared
}

// Select copies the cases of the suite in that f matches into out, replaced atomically, in file
// order and unchanged except that a case whose pair partner is not selected loses its pair, so the
// output is still a valid suite. A malformed input writes nothing and returns its problems. rd is
// how in is read (nil: strictly, nothing noted).
func Select(in, out string, f Filter, rd *lineerr.Reading) (Selection, []error, error) {
	pairs := map[string]int{}
	_, problems, err := Scan(in, rd, true, func(c *Case, _ int) error {
		if c.Pair != "" && f.Match(c) {
			pairs[c.Pair]++
		}
		return nil
	})
	if err != nil || len(problems) > 0 {
		return Selection{}, problems, err
	}
	var sel Selection
	err = WriteFileAtomic(out, func(w io.Writer) error {
		sw := NewWriter(w)
		_, problems, err := Scan(in, rd, false, func(c *Case, _ int) error {
			if !f.Match(c) {
				return nil
			}
			if c.Pair != "" && pairs[c.Pair] < 2 {
				c.Pair = ""
				sel.Unpaired++
			}
			sel.Cases++
			return sw.Write(c)
		})
		if err != nil {
			return err
		}
		if len(problems) > 0 {
			return errors.New("the input changed while it was read")
		}
		return sw.Flush()
	})
	if err != nil {
		return Selection{}, nil, err
	}
	return sel, nil, nil
}
