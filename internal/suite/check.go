package suite

import (
	"errors"
	"fmt"
	"sort"
)

// Checker makes the suite-wide checks: unique ids, and pairs made of exactly one vul and one ben
// case of one kind. Memory grows with the number of cases, never with their size.
type Checker struct {
	file  string
	ids   map[string]int
	pairs map[string]pairInfo
}

// pairInfo is kept by value, without pointers, so that millions of pairs cost the garbage
// collector little: the first two lines are enough to point at a problem.
type pairInfo struct {
	vul, ben int32
	lines    [2]int32
	kind     Kind
	mixed    bool
}

// NewChecker checks cases read from file.
func NewChecker(file string) *Checker {
	return &Checker{file: file, ids: map[string]int{}, pairs: map[string]pairInfo{}}
}

// Add records one case found on line and returns the problems it shows at once.
func (k *Checker) Add(c *Case, line int) []error {
	var errs []error
	if first, dup := k.ids[c.ID]; dup {
		errs = append(errs, &LineError{File: k.file, Line: line, Err: fmt.Errorf("duplicate id %q (first on line %d)", c.ID, first)})
	} else {
		k.ids[c.ID] = line
	}
	if c.Pair != "" {
		p, seen := k.pairs[c.Pair]
		if !seen {
			p.kind = c.Kind
		} else if p.kind != c.Kind {
			p.mixed = true
		}
		if n := p.vul + p.ben; n < 2 {
			p.lines[n] = int32(line)
		}
		if c.Label == Vul {
			p.vul++
		} else {
			p.ben++
		}
		k.pairs[c.Pair] = p
	}
	return errs
}

// Finish returns the pair problems, each on the line of the pair's first case.
func (k *Checker) Finish() []error {
	var errs []error
	for id, p := range k.pairs {
		if p.vul == 1 && p.ben == 1 && !p.mixed {
			continue
		}
		lines := fmt.Sprintf("lines %d, %d", p.lines[0], p.lines[1])
		if n := p.vul + p.ben; n > 2 {
			lines += fmt.Sprintf(" and %d more", n-2)
		}
		var msg string
		switch {
		case p.vul+p.ben == 1:
			msg = fmt.Sprintf("pair %q has one case: its %s twin is missing", id, map[bool]string{true: "ben", false: "vul"}[p.vul == 1])
		case p.vul != 1 || p.ben != 1:
			msg = fmt.Sprintf("pair %q has %d vul and %d ben cases (%s): a pair is one vul and one ben case", id, p.vul, p.ben, lines)
		default:
			msg = fmt.Sprintf("pair %q mixes kinds (%s): both cases of a pair have one kind", id, lines)
		}
		errs = append(errs, &LineError{File: k.file, Line: int(p.lines[0]), Err: errors.New(msg)})
	}
	return errs
}

func sortByLine(errs []error) {
	line := func(e error) int {
		var le *LineError
		if errors.As(e, &le) {
			return le.Line
		}
		return 0
	}
	sort.SliceStable(errs, func(i, j int) bool { return line(errs[i]) < line(errs[j]) })
}
