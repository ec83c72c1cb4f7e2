package suite

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Checker makes the suite-wide checks: unique ids, and pairs made of exactly one vul and one ben
// case of one kind. Memory grows with the number of cases, never with their size.
type Checker struct {
	file  string
	ids   map[string]int
	pairs map[string]*pairInfo
}

type pairInfo struct {
	vul, ben []int // lines
	kinds    map[Kind]bool
}

// NewChecker checks cases read from file.
func NewChecker(file string) *Checker {
	return &Checker{file: file, ids: map[string]int{}, pairs: map[string]*pairInfo{}}
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
		p := k.pairs[c.Pair]
		if p == nil {
			p = &pairInfo{kinds: map[Kind]bool{}}
			k.pairs[c.Pair] = p
		}
		if c.Label == Vul {
			p.vul = append(p.vul, line)
		} else {
			p.ben = append(p.ben, line)
		}
		p.kinds[c.Kind] = true
	}
	return errs
}

// Finish returns the pair problems, each on the line of the pair's first case.
func (k *Checker) Finish() []error {
	var errs []error
	for id, p := range k.pairs {
		lines := append(append([]int(nil), p.vul...), p.ben...)
		sort.Ints(lines)
		var msg string
		switch {
		case len(p.vul) == 1 && len(p.ben) == 1 && len(p.kinds) == 1:
			continue
		case len(p.vul)+len(p.ben) == 1:
			msg = fmt.Sprintf("pair %q has one case: its %s twin is missing", id, map[bool]string{true: "ben", false: "vul"}[len(p.vul) == 1])
		case len(p.vul) != 1 || len(p.ben) != 1:
			msg = fmt.Sprintf("pair %q has %d vul and %d ben cases (lines %s): a pair is one vul and one ben case", id, len(p.vul), len(p.ben), joinInts(lines))
		default:
			msg = fmt.Sprintf("pair %q mixes kinds (lines %s): both cases of a pair have one kind", id, joinInts(lines))
		}
		errs = append(errs, &LineError{File: k.file, Line: lines[0], Err: errors.New(msg)})
	}
	return errs
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
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
