// Package breakdown scores a run on subsets of its cases: the groups of one dimension (score
// --by language|project|cwe|year|repo-size|category) or one subset (--select FILTER, --cases
// FILE). A subset is a report.Keep on the run's own truth, so the whole suite's hash is still
// checked, and every group is scored by report.Build exactly as `score --select DIM=GROUP`
// scores it: the figures are equal by construction.
package breakdown

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Dimensions are what --by and --select group cases by.
var dimensions = []string{"language", "project", "cwe", "year", "repo-size", "category", "kind", "label"}

// Dimensions lists the dimensions in help order.
func Dimensions() []string { return slices.Clone(dimensions) }

// None is the group of a case without the dimension's field.
const None = report.None

// GroupsOf returns the groups of case c in dimension dim: one, or for cwe each of its CWEs.
// language, project, kind and label are the case's fields; year is its date's; repo-size is
// meta.repo_size (lines of code) in bands; category is a vex case's ground-truth category, an
// appsec case's archetype, else meta.category.
func GroupsOf(dim string, c *suite.Case) []string {
	one := func(s string) []string {
		if s == "" {
			return []string{None}
		}
		return []string{s}
	}
	switch dim {
	case "language":
		return one(c.Language)
	case "project":
		return one(c.Project)
	case "kind":
		return one(string(c.Kind))
	case "label":
		return one(string(c.Label))
	case "cwe":
		if len(c.CWE) == 0 {
			return []string{None}
		}
		return slices.Compact(slices.Sorted(slices.Values(c.CWE)))
	case "year":
		if len(c.Date) < 4 {
			return []string{None}
		}
		return []string{c.Date[:4]}
	case "repo-size":
		return []string{report.SizeBand(c.Meta["repo_size"])}
	case "category":
		switch {
		case c.VEX != nil && c.VEX.Category != "":
			return []string{c.VEX.Category}
		case c.Kind == suite.KindAppSec:
			s, _ := c.Meta["archetype"].(string)
			return one(s)
		}
		s, _ := c.Meta["category"].(string)
		return one(s)
	}
	return []string{None}
}

// CheckDimension refuses a dimension that is not one of Dimensions.
func CheckDimension(dim string) error {
	if !slices.Contains(dimensions, dim) {
		return fmt.Errorf("%q is not one of %s", dim, strings.Join(dimensions, ", "))
	}
	return nil
}

// Filter is a --select: every term must match.
type Filter struct {
	terms []term
	text  string
}

type term struct {
	dim    string
	values []string
}

// ParseFilter reads DIM=VALUE[|VALUE...][,DIM=VALUE...]: a case is kept when, for every term,
// one of its groups in DIM is one of the values.
func ParseFilter(s string) (*Filter, error) {
	f := &Filter{text: s}
	for _, part := range strings.Split(s, ",") {
		dim, vals, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || vals == "" {
			return nil, fmt.Errorf("--select %q: %q is not DIM=VALUE", s, part)
		}
		if err := CheckDimension(dim); err != nil {
			return nil, fmt.Errorf("--select %q: %w", s, err)
		}
		f.terms = append(f.terms, term{dim: dim, values: strings.Split(vals, "|")})
	}
	return f, nil
}

// Keep reports whether c passes every term.
func (f *Filter) Keep(c *suite.Case) bool {
	for _, t := range f.terms {
		if !slices.ContainsFunc(GroupsOf(t.dim, c), func(g string) bool { return slices.Contains(t.values, g) }) {
			return false
		}
	}
	return true
}

// String is the filter as given.
func (f *Filter) String() string { return f.text }

// ReadCases reads a --cases file: one case id a line (blank lines and # comments skipped), or
// JSONL whose lines are objects with an "id" (a suite file).
func ReadCases(path string) (map[string]bool, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--cases: %w", err)
	}
	defer fh.Close()
	ids := map[string]bool{}
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "{") {
			var c struct{ ID string }
			if err := json.Unmarshal([]byte(line), &c); err != nil || c.ID == "" {
				return nil, fmt.Errorf("%s:%d: a JSON line needs an \"id\"", path, n)
			}
			line = c.ID
		}
		ids[line] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s: no case id", path)
	}
	return ids, nil
}

// And is a Keep that passes what both pass (nil passes everything).
func And(a, b report.Keep) report.Keep {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(c *suite.Case) bool { return a(c) && b(c) }
}

// Group is one group's report.
type Group struct {
	Name   string
	Report *report.Report
}

// Breakdown is a run's (or runs') report per group of one dimension.
type Breakdown struct {
	By     string
	Groups []Group
}

// Build scores req once per group of dim among the cases req keeps, in group order (numbers
// as numbers, then text).
func Build(ctx context.Context, st report.Store, req report.Request, dim string) (*Breakdown, error) {
	if err := CheckDimension(dim); err != nil {
		return nil, fmt.Errorf("--by: %w", err)
	}
	seen := map[string]bool{}
	err := eachCase(ctx, st, req, func(c *suite.Case) {
		if req.Keep == nil || req.Keep(c) {
			for _, g := range GroupsOf(dim, c) {
				seen[g] = true
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if len(seen) == 0 {
		return nil, errors.New("--by: no case to group")
	}
	names := make([]string, 0, len(seen))
	for g := range seen {
		names = append(names, g)
	}
	slices.SortFunc(names, groupCompare)
	b := &Breakdown{By: dim}
	for _, g := range names {
		f := &Filter{terms: []term{{dim: dim, values: []string{g}}}, text: dim + "=" + g}
		r := req
		r.Keep = And(req.Keep, f.Keep)
		rep, err := report.Build(ctx, st, r)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: %w", dim, g, err)
		}
		b.Groups = append(b.Groups, Group{Name: g, Report: rep})
	}
	return b, nil
}

func groupCompare(a, b string) int {
	if a == None || b == None {
		return boolCmp(a == None, b == None)
	}
	na, ea := strconv.Atoi(a)
	nb, eb := strconv.Atoi(b)
	if ea == nil && eb == nil {
		return na - nb
	}
	if c := report.CWECompare(a, b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// eachCase calls fn with every case of the suite req scores: the suite file when given, else
// the first run's stored cases, else its suite file.
func eachCase(ctx context.Context, st report.Store, req report.Request, fn func(*suite.Case)) error {
	path := req.Suite
	if path == "" && len(req.Runs) > 0 {
		r, err := st.GetRun(ctx, req.Runs[0])
		if err != nil {
			return err
		}
		if cs, ok := st.(report.CaseStore); ok {
			n := 0
			if err := cs.Cases(ctx, r.ID, func(c *suite.Case) error { n++; fn(c); return nil }); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
		}
		path = r.SuitePath
	}
	if path == "" {
		return errors.New("--by needs a suite (--suite) or a run")
	}
	_, problems, err := suite.Scan(path, nil, true, func(c *suite.Case, _ int) error { fn(c); return nil })
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%v (and %d problems in all)", problems[0], len(problems))
	}
	return nil
}

// CasesError is a --cases file that could not be read (not a usage error: the file is at fault).
type CasesError struct{ Err error }

func (e *CasesError) Error() string { return e.Err.Error() }
func (e *CasesError) Unwrap() error { return e.Err }

// Narrow narrows keep by a --select filter and a --cases file and names the subset ("" for the
// whole suite). by (a --by dimension) scores every group of the whole suite, so it takes
// neither. A --cases file that cannot be read is a *CasesError; any other error is the flags'.
func Narrow(keep report.Keep, by, selectF, casesFile string) (report.Keep, string, error) {
	var names []string
	if selectF != "" {
		f, err := ParseFilter(selectF)
		if err != nil {
			return nil, "", err
		}
		keep = And(keep, f.Keep)
		names = append(names, f.String())
	}
	if casesFile != "" {
		ids, err := ReadCases(casesFile)
		if err != nil {
			return nil, "", &CasesError{Err: err}
		}
		keep = And(keep, func(c *suite.Case) bool { return ids[c.ID] })
		names = append(names, "cases of "+casesFile)
	}
	if by != "" {
		if err := CheckDimension(by); err != nil {
			return nil, "", fmt.Errorf("--by: %w", err)
		}
		if len(names) > 0 {
			return nil, "", errors.New("--by scores every group of the whole suite: give it without --select or --cases")
		}
	}
	return keep, strings.Join(names, ", "), nil
}
