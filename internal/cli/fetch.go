package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/vulnbench/vulnbench/internal/fetch"
)

func newFetchCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "fetch",
		Short: "Fetch what a suite's cases need: repositories at their commits, OSV advisories",
		Long: `fetch repos clones (or updates) every repository the suite's cases name into the --repos layout
and verifies each pinned commit; fetch advisories writes the OSV records of the suite's CVEs into an
advisories directory. Both can be run again: what is there already is not fetched twice.`,
		Args: exactArgs(0, "a subcommand (repos, advisories)"),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(newFetchReposCmd(e), newFetchAdvisoriesCmd(e))
	return c
}

func newFetchReposCmd(e *env) *cobra.Command {
	var (
		suitePath, dir, filter string
		jobs                   int
	)
	c := &cobra.Command{
		Use:   "repos --suite SUITE --repos DIR [--jobs N] [--filter blob:none]",
		Short: "Clone or update the suite's repositories and verify every pinned commit",
		Long: `Every repository a case names (repo.url, with repo.commit) is cloned as a bare repository into
DIR/HOST/OWNER/NAME, where run --repos finds it, or updated where run would find it already
(DIR/OWNER/NAME, DIR/OWNER+NAME, DIR/NAME, with or without .git). Each pinned commit is verified
present; a commit on no branch (a pull request's) is fetched by its id, else with every branch and
tag. New clones are partial (--filter blob:none, where the server allows it: the history without
file contents) and get the contents of their pinned commits only.

git's own configuration is used: url.<base>.insteadOf mirrors, credential helpers, proxies. The
clones are of untrusted repositories: no checkout, no hooks, no submodules. A clone is made in a
temporary directory and renamed into place, so an interrupted fetch leaves nothing run would use;
run it again to finish. A second fetch of a complete set makes no network request.

Progress is one line per repository on stderr. A repository or commit that cannot be had is
listed with the reason; the others still finish, and the command exits 1.`,
		Example: `  vulnbench fetch repos --suite vex.jsonl --repos ~/clones
  vulnbench fetch repos --suite jit.jsonl --repos ~/clones --jobs 8 --filter ""   # full clones`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if suitePath == "" || dir == "" {
				return usageErr("fetch repos needs --suite SUITE and --repos DIR")
			}
			if jobs < 1 {
				return usageErr("--jobs %d: want 1 or more", jobs)
			}
			needs, problems, err := fetch.Needs(suitePath)
			if err != nil {
				return err
			}
			if len(problems) > 0 {
				reportProblems(e.stderr, problems, 50)
				return &exitError{code: ExitFail, err: fmt.Errorf("%s: %d problems: nothing fetched", suitePath, len(problems))}
			}
			results, err := fetch.Repos(cmd.Context(), needs, fetch.Options{Dir: dir, Jobs: jobs, Filter: filter,
				Progress: func(ev fetch.Event) { fetch.WriteEvent(e.stderr, ev) }})
			if err != nil {
				return err
			}
			if fetch.WriteResults(e.stdout, e.stderr, results) {
				return silentFail
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&suitePath, "suite", "", "suite file (JSONL)")
	f.StringVar(&dir, "repos", "", "repositories directory (run --repos)")
	f.IntVar(&jobs, "jobs", 4, "repositories fetched at once")
	f.StringVar(&filter, "filter", "blob:none", `partial-clone filter of new clones ("" for full clones)`)
	return c
}

func newFetchAdvisoriesCmd(e *env) *cobra.Command {
	var (
		suitePath, dir, from string
		ecosystems           []string
		offline              bool
	)
	c := &cobra.Command{
		Use:   "advisories --suite SUITE --advisories DIR [--ecosystem Go,PyPI,Maven] [--from DIR|URL] [--offline]",
		Short: "Write the OSV records of the suite's CVEs into an advisories directory",
		Long: `Reads OSV's per-ecosystem exports (ECOSYSTEM/all.zip under --from: by default OSV's own bucket,
` + fetch.DefaultSource + `; or a mirror, a URL or a directory in the same layout) for the ecosystems the
cases name (vex.ecosystem) or --ecosystem, and writes every record that names one of the suite's
advisory ids (each case's cve and vex.advisory: the id's own record, those aliasing it, and those
aliasing those) into DIR as ID.json (mode 0644), verbatim, where run --advisories reads them.
--from may also be a directory of OSV records, read whatever their ecosystem: a folder of OSV
files, or a checkout of GitHub's advisory database (advisories/github-reviewed/YYYY/MM/GHSA-*/
GHSA-*.json). DIR's manifest (` + fetch.ManifestName + `) records each source, its date, size and
SHA-256 and the server's validators, and what each id found. An export is read whole and not kept;
fetched again for the same ids, it is asked for with its validators (If-None-Match,
If-Modified-Since), and an unchanged one transfers nothing.

Every export is tried: one that cannot be had is listed and the command exits 1, after the others
are read and recorded. --offline reads nothing: it checks what DIR holds against its manifest (a
record the manifest lists and DIR no longer holds is an error, exit 1). An id with no record is
listed, and a withdrawn record is said to be, but neither is an error.`,
		Example: `  vulnbench fetch advisories --suite vex.jsonl --advisories ~/advisories
  vulnbench fetch advisories --suite vex.jsonl --advisories ~/advisories --from /mirror/osv --ecosystem Go,Maven
  vulnbench fetch advisories --suite vex.jsonl --advisories ~/advisories --from ~/src/advisory-database
  vulnbench fetch advisories --suite vex.jsonl --advisories ~/advisories --offline`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if suitePath == "" || dir == "" {
				return usageErr("fetch advisories needs --suite SUITE and --advisories DIR")
			}
			if offline && (from != "" || len(ecosystems) > 0) {
				return usageErr("--offline reads no export: drop --from and --ecosystem")
			}
			needs, problems, err := fetch.AdvisoryNeeds(suitePath)
			if err != nil {
				return err
			}
			if len(problems) > 0 {
				reportProblems(e.stderr, problems, 50)
				return &exitError{code: ExitFail, err: fmt.Errorf("%s: %d problems: nothing fetched", suitePath, len(problems))}
			}
			rep, err := fetch.Advisories(cmd.Context(), needs, fetch.AdvisoryOptions{Dir: dir, From: from, Ecosystems: ecosystems,
				Offline: offline, Progress: func(ev fetch.AdvisoryEvent) { fetch.WriteAdvisoryEvent(e.stderr, ev) }})
			if errors.Is(err, fetch.ErrSource) {
				return &exitError{code: ExitFail, err: err}
			}
			if err != nil {
				return err
			}
			for _, p := range rep.Problems {
				fmt.Fprintf(e.stderr, "vulnbench: warning: %v\n", p)
			}
			rep.WriteText(e.stdout)
			if err := rep.Err(); err != nil {
				return &exitError{code: ExitFail, err: err}
			}
			if offline && rep.Lost() {
				return &exitError{code: ExitFail, err: fmt.Errorf("%s holds less than its manifest lists: fetch again", dir)}
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&suitePath, "suite", "", "suite file (JSONL)")
	f.StringVar(&dir, "advisories", "", "advisories directory (run --advisories)")
	f.StringSliceVar(&ecosystems, "ecosystem", nil, "OSV ecosystems to read, comma-separated (default: those the cases name)")
	f.StringVar(&from, "from", "", "where the records are: a URL or a directory holding ECOSYSTEM/all.zip, or a directory of OSV records (a GitHub advisory database checkout) (default: OSV's bucket)")
	f.BoolVar(&offline, "offline", false, "read no export: check what the advisories directory holds")
	return c
}
