// Package preflight checks, before a run is created, everything the subject needs on every case
// it will judge: the programs on PATH, the environment (API keys), the model, and per case the
// repository at its commit under --repos and the advisories under --advisories. Every miss is
// listed at once, each with the command that fixes it; a model missing from the price table is
// a warning. Nothing is fetched, cloned or stored.
package preflight

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/fetch"
	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Input is what is checked.
type Input struct {
	Suite string // the suite file: read, and named in the fixes
	// Reading is how Suite is read (--lossy-utf8); nil: strictly.
	Reading *lineerr.Reading
	// Cases, when set, streams the cases instead of reading Suite (a worker's run, from the
	// store).
	Cases    func(fn func(*suite.Case) error) error
	Keep     func(*suite.Case) bool // nil keeps every case (--after)
	Factory  subject.Factory        // its declaration says what the cases need (subject.Kind)
	Config   subject.Config
	Repos    string                       // --repos
	Getenv   func(string) string          // the environment
	LookPath func(string) (string, error) // nil: exec.LookPath
}

// Miss is one thing the run lacks, and the command that fixes it.
type Miss struct {
	What string
	Fix  string
}

// Report is what the check found.
type Report struct {
	Misses   []Miss
	Warnings []string
}

// Error is a failed preflight: every miss, each with its fix.
type Error struct{ Misses []Miss }

func (e *Error) Error() string {
	var b strings.Builder
	if len(e.Misses) == 1 {
		b.WriteString("the run cannot start: 1 thing it needs is missing (nothing was stored):")
	} else {
		fmt.Fprintf(&b, "the run cannot start: %d things it needs are missing (nothing was stored):", len(e.Misses))
	}
	for _, m := range e.Misses {
		fmt.Fprintf(&b, "\n  - %s\n      fix: %s", m.What, m.Fix)
	}
	return b.String()
}

// Err is the report as an error (*Error), nil when nothing is missing.
func (r *Report) Err() error {
	if len(r.Misses) == 0 {
		return nil
	}
	return &Error{Misses: r.Misses}
}

// Check checks in (see the package documentation). Cases the subject cannot judge are not
// checked (--skip-unsupported gives them error verdicts; without it the run refuses the suite).
// err is for a suite that cannot be read.
func Check(ctx context.Context, in Input) (*Report, error) {
	if in.LookPath == nil {
		in.LookPath = exec.LookPath
	}
	rep := &Report{}
	machine(rep, in)
	repos, advs, err := caseNeeds(in)
	if err != nil {
		return nil, err
	}
	if err := checkRepos(ctx, rep, in, repos); err != nil {
		return nil, err
	}
	checkAdvisories(rep, in, advs)
	return rep, nil
}

// machine checks the kind's programs and environment and its model.
func machine(rep *Report, in Input) {
	f := in.Factory
	for _, b := range f.Needs.Binaries {
		if _, err := in.LookPath(b.Name); err != nil {
			rep.Misses = append(rep.Misses, Miss{What: fmt.Sprintf("subject %s needs the program %s, which is not on PATH", f.Name, b.Name), Fix: b.Install})
		}
	}
	for _, e := range f.Needs.Env {
		if in.Getenv(e) == "" {
			rep.Misses = append(rep.Misses, Miss{What: fmt.Sprintf("subject %s needs the environment variable %s", f.Name, e), Fix: "export " + e + "=..."})
		}
	}
	m, ok := f.ModelOf(in.Config)
	if !ok {
		return
	}
	spec, base, pricesFile := m.Spec, m.BaseURL, m.PricesFile
	provider, _, err := llm.ParseSpec(spec)
	if err != nil {
		rep.Misses = append(rep.Misses, Miss{What: err.Error(), Fix: "--model openai:gpt-4o-mini (or another PROVIDER:MODEL)"})
		return
	}
	key := llm.KeyEnv(provider)
	if base == "" {
		base = in.Getenv(strings.ToUpper(provider) + "_BASE_URL")
	}
	if base == "" && in.Getenv(key) == "" {
		rep.Misses = append(rep.Misses, Miss{What: fmt.Sprintf("the model %s needs an API key in %s", spec, key), Fix: "export " + key + "=...  (or --base-url URL for a local server)"})
	}
	prices, err := llm.LoadPrices(pricesFile)
	if err != nil {
		rep.Misses = append(rep.Misses, Miss{What: err.Error(), Fix: "correct the --prices file"})
		return
	}
	if _, ok := prices.Lookup(spec); !ok {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s is not in the price table: its costs will show as unpriced (add it with --prices FILE)", spec))
	}
}

// advisoryNeed is an advisory id the cases need, in the directory named.
type advisoryNeed struct {
	id, dir string
	cases   int
}

// caseNeeds goes over the suite once: the repositories and advisories the judged cases need.
func caseNeeds(in Input) ([]fetch.Need, []advisoryNeed, error) {
	f := in.Factory
	if f.Repository == nil && f.Advisories == nil {
		return nil, nil, nil
	}
	var repos []fetch.Need
	var advs []advisoryNeed
	repoAt, advAt := map[string]int{}, map[[2]string]int{}
	err := in.cases(func(c *suite.Case) error {
		if (in.Keep != nil && !in.Keep(c)) || in.Factory.Unsupported(c) != "" {
			return nil
		}
		if f.NeedsRepository(in.Config, c) {
			key := c.Repo.URL
			if u, err := snapshot.ParseRepoURL(c.Repo.URL); err == nil {
				key = u.Host + "/" + strings.Join(u.Owner, "/") + "/" + u.Name
			}
			i, ok := repoAt[key]
			if !ok {
				i = len(repos)
				repoAt[key] = i
				repos = append(repos, fetch.Need{URL: c.Repo.URL})
			}
			n := &repos[i]
			n.Cases++
			if c.Repo.Commit != "" && !contains(n.Commits, c.Repo.Commit) {
				n.Commits = append(n.Commits, c.Repo.Commit)
			}
		}
		ids, dir := f.NeedsAdvisories(in.Config, c)
		for _, id := range ids {
			k := [2]string{strings.ToUpper(strings.TrimSpace(id)), dir}
			i, ok := advAt[k]
			if !ok {
				i = len(advs)
				advAt[k] = i
				advs = append(advs, advisoryNeed{id: k[0], dir: dir})
			}
			advs[i].cases++
		}
		return nil
	})
	return repos, advs, err
}

func (in Input) cases(fn func(*suite.Case) error) error {
	if in.Cases != nil {
		return in.Cases(fn)
	}
	_, _, err := suite.Scan(in.Suite, in.Reading, false, func(c *suite.Case, _ int) error { return fn(c) })
	return err
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// checkRepos finds each needed repository under --repos with its commits, offline.
func checkRepos(ctx context.Context, rep *Report, in Input, needs []fetch.Need) error {
	if len(needs) == 0 {
		return nil
	}
	dir := in.Repos
	fix := fmt.Sprintf("vulnbench fetch repos --suite %s --repos %s", in.Suite, orDefault(dir, "repos"))
	if dir == "" {
		fix += "  (then run with --repos repos)"
		for _, n := range needs {
			rep.Misses = append(rep.Misses, Miss{What: fmt.Sprintf("repository %s (%s): no --repos directory was given", n.URL, cases(n.Cases)), Fix: fix})
		}
		return nil
	}
	results, err := fetch.Check(ctx, needs, fetch.Options{Dir: dir})
	if err != nil {
		return err
	}
	for i, r := range results {
		switch {
		case r.Err != nil && errors.Is(r.Err, snapshot.ErrNoRepository):
			rep.Misses = append(rep.Misses, Miss{What: fmt.Sprintf("repository %s (%s) is not under %s", r.URL, cases(needs[i].Cases), dir), Fix: fix})
		case r.Err != nil:
			rep.Misses = append(rep.Misses, Miss{What: fmt.Sprintf("repository %s: %v", r.URL, r.Err), Fix: fix})
		case len(r.Missing) > 0:
			ids := make([]string, len(r.Missing))
			for j, m := range r.Missing {
				ids[j] = m.ID
			}
			rep.Misses = append(rep.Misses, Miss{What: fmt.Sprintf("repository %s at %s lacks %d pinned commits: %s", r.URL, r.Path, len(ids), strings.Join(ids, ", ")), Fix: fix})
		}
	}
	return nil
}

// checkAdvisories finds an OSV record for each needed id in its directory.
func checkAdvisories(rep *Report, in Input, needs []advisoryNeed) {
	dbs := map[string]*advisory.DB{}
	failed := map[string]bool{}
	defer func() {
		for _, db := range dbs {
			db.Close()
		}
	}()
	for _, n := range needs {
		fix := fmt.Sprintf("vulnbench fetch advisories --suite %s --advisories %s", in.Suite, orDefault(n.dir, "advisories"))
		if n.dir == "" {
			rep.Misses = append(rep.Misses, Miss{What: fmt.Sprintf("advisory %s (%s): no --advisories was given", n.id, cases(n.cases)), Fix: fix + "  (then run with --advisories advisories)"})
			continue
		}
		db, ok := dbs[n.dir]
		if !ok && !failed[n.dir] {
			var err error
			if db, err = advisory.Open(n.dir); err != nil {
				failed[n.dir] = true
				rep.Misses = append(rep.Misses, Miss{What: fmt.Sprintf("--advisories %s cannot be read: %v", n.dir, err), Fix: fix})
				continue
			}
			dbs[n.dir] = db
		}
		if db == nil {
			continue
		}
		if advs, err := db.Related(n.id); err != nil || len(advs) == 0 {
			rep.Misses = append(rep.Misses, Miss{What: fmt.Sprintf("advisory %s (%s) has no OSV record in %s", n.id, cases(n.cases), n.dir), Fix: fix})
		}
	}
}

func cases(n int) string {
	if n == 1 {
		return "1 case"
	}
	return fmt.Sprintf("%d cases", n)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
