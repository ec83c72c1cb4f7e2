// Package fetch brings onto this machine what a suite's cases need before a run: the
// repositories they name, cloned or updated into the --repos layout with every pinned commit
// verified (Repos), and the OSV records of their CVEs, from OSV's per-ecosystem zip exports or
// a mirror of them (Advisories).
package fetch

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Need is one repository a suite names and the commits its cases pin in it.
type Need struct {
	URL     string   // as the first case that names it spells it
	Commits []string // distinct, in the order the cases name them
	Cases   int      // how many cases name it
}

// Needs lists the repositories of a suite file's cases (repo.url with repo.commit, any kind of
// case), one Need per repository however its URL is spelt (https or ssh, .git or not). Cases
// with a malformed URL, and malformed lines, are problems (*suite.LineError, FILE:LINE); err
// means the file could not be read.
func Needs(suitePath string) (needs []Need, problems []error, err error) {
	byKey := map[string]int{}
	var bad []error
	_, problems, err = suite.Scan(suitePath, nil, false, func(c *suite.Case, line int) error {
		if c.Repo == nil || c.Repo.URL == "" {
			return nil
		}
		u, err := snapshot.ParseRepoURL(c.Repo.URL)
		if err != nil {
			bad = append(bad, &suite.LineError{File: suitePath, Line: line, Err: err})
			return nil
		}
		if err := plainURL(u); err != nil {
			bad = append(bad, &suite.LineError{File: suitePath, Line: line, Err: fmt.Errorf("repo.url %q: %w", c.Repo.URL, err)})
			return nil
		}
		if c.Repo.Commit != "" && !commitID(c.Repo.Commit) {
			bad = append(bad, &suite.LineError{File: suitePath, Line: line,
				Err: fmt.Errorf("repo.commit %q is not a commit id (7 to 64 hexadecimal digits)", c.Repo.Commit)})
			return nil
		}
		key := u.Host + "/" + strings.Join(u.Owner, "/") + "/" + u.Name
		i, ok := byKey[key]
		if !ok {
			i = len(needs)
			byKey[key] = i
			needs = append(needs, Need{URL: c.Repo.URL})
		}
		n := &needs[i]
		n.Cases++
		if c.Repo.Commit != "" && !slices.Contains(n.Commits, c.Repo.Commit) {
			n.Commits = append(n.Commits, c.Repo.Commit)
		}
		return nil
	})
	problems = append(problems, bad...)
	slices.SortStableFunc(problems, func(a, b error) int { return lineOf(a) - lineOf(b) })
	return needs, problems, err
}

func lineOf(err error) int {
	var le *suite.LineError
	if errors.As(err, &le) {
		return le.Line
	}
	return 0
}

// plainURL refuses URL parts that git or ssh could read as options.
func plainURL(u snapshot.RepoURL) error {
	for _, p := range append([]string{u.Host, u.Name}, u.Owner...) {
		if strings.HasPrefix(p, "-") {
			return fmt.Errorf("%q starts with '-'", p)
		}
	}
	return nil
}

// commitID reports whether s is a commit id: 7 to 64 hexadecimal digits (SHA-1 or SHA-256,
// abbreviated or not). Anything else could be read by git as an option or a ref.
func commitID(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
