package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/vexmine"
)

func newSuiteMineCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "mine",
		Short: "Mine cases from projects' own history (vex: dependency fixes)",
		Args:  exactArgs(0, "a subcommand (vex)"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(newMineVEXCmd(e))
	return c
}

func newMineVEXCmd(e *env) *cobra.Command {
	var (
		repos, advisories, out, since, rev, drops, format string
		pulls                                             bool
		jobs, maxDrops                                    int
	)
	c := &cobra.Command{
		Use:   "vex --repos DIR --advisories DIR|ZIP --out SUITE.jsonl [--since DATE]",
		Short: "Build VEX-Bench-style cases from the dependency fixes in projects' history",
		Long: `Walks the first-parent history of every repository under --repos (DIR/HOST/OWNER/NAME,
DIR/OWNER/NAME, DIR/OWNER+NAME or DIR/NAME, clones or bare) from --rev, as VEX-Bench's §3.2 mined
pull requests. A commit that changes a manifest or lockfile (Go go.mod and its toolchain line;
PyPI requirements files, pyproject.toml, poetry.lock, Pipfile.lock, uv.lock, setup.cfg; Maven
pom.xml, Gradle build files, lockfiles and version catalogs; npm package.json, package-lock.json,
yarn.lock, pnpm-lock.yaml) and raises a package from a version an advisory of --advisories says
is affected to one no record of that vulnerability says is (each ecosystem's own version order:
Go pseudo-versions, PEP 440, Maven, semver; a range's lower bound where a manifest gives a range)
gives one candidate per vulnerability: an unlabelled vex case at the commit BEFORE the fix (the
affected snapshot), with meta.mined holding the advisories and CVEs, the package, old and new
versions with their manifest lines, the fixing commit and its message, its pull request, and
whether the message or a commit the merge brought in names the vulnerability; meta.hints.sca is
version matching's answer there (a hint for annotators who ask for it, never ground truth).

Every dropped candidate is printed with its reason, and --drops FILE writes them all (JSONL):
still_affected (no fixed version crossed), downgrade, withdrawn, removed, unparsable_version, and
the paper's filters test_or_example_only and more_than_five_cves (docs/vexbench.md).

Label the cases before running subjects on them: vulnbench label init --suite SUITE.jsonl.
The repositories' own git configuration, hooks and attributes are never read.`,
		Example: `  vulnbench suite mine vex --repos ~/clones --advisories ~/advisory-database --out mined.jsonl
  vulnbench suite mine vex --repos ~/clones --advisories go-vulndb.zip --since 2023-01-01 --out mined.jsonl --drops drops.jsonl`,
		Args: exactArgs(0, "no arguments (use the flags)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case repos == "" || advisories == "" || out == "":
				return usageErr("suite mine vex needs --repos DIR, --advisories DIR|ZIP and --out SUITE.jsonl")
			case jobs < 0:
				return usageErr("--jobs must be at least 1 (0: one per CPU)")
			}
			if err := checkFormat(format, vexmine.Summary{}); err != nil {
				return err
			}
			opts := vexmine.Options{Rev: rev, Jobs: jobs, Pulls: pulls}
			if since != "" {
				t, err := suite.ParseDate(since)
				if err != nil {
					return usageErr("--since %v", err)
				}
				opts.Since = t
			}
			f := osvFlags{advisories: advisories}
			db, err := f.openAdvisories()
			if err != nil {
				return err
			}
			defer db.Close()
			start := time.Now()
			rep, err := vexmine.Mine(cmd.Context(), repos, db, opts)
			if err != nil {
				return err
			}
			if err := rep.WriteCases(out); err != nil {
				return err
			}
			if drops != "" {
				if err := rep.WriteDrops(drops); err != nil {
					return err
				}
			}
			rep.WriteText(e.stderr, maxDrops)
			return present(e.stdout, format, vexmine.Summary{Report: rep, Out: out, Elapsed: time.Since(start)})
		},
	}
	fl := c.Flags()
	fl.StringVar(&repos, "repos", "", "directory of the repositories to mine (every git repository in the --repos layouts)")
	fl.StringVar(&advisories, "advisories", "", "OSV records: a directory of .json records (and .zip exports), or one .zip export")
	fl.StringVar(&out, "out", "", "suite file of the candidates to write (replaced atomically)")
	fl.StringVar(&since, "since", "", "keep fixes committed on or after DATE (RFC 3339 or YYYY-MM-DD)")
	fl.StringVar(&rev, "rev", "HEAD", "the revision whose first-parent history is walked in each repository")
	fl.StringVar(&drops, "drops", "", "also write every dropped candidate, with its reason, as JSONL to this file")
	fl.BoolVar(&pulls, "pulls", false, "also mine the commits of pull request refs (refs/pull/N/head, refs/merge-requests/N/head) the first-parent history does not reach: fixes squashed, rebased or never merged, as VEX-Bench mined pull requests")
	fl.IntVar(&jobs, "jobs", 0, "repositories mined at once (0: one per CPU)")
	fl.IntVar(&maxDrops, "max-drops", 50, "dropped candidates listed on stderr at most (0: all)")
	fl.StringVar(&format, "format", "text", "what stdout gets (the report goes to stderr): text a summary line, json the whole report; "+formatUsage(vexmine.Summary{}))
	return c
}
