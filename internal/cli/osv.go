package cli

import (
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
	"github.com/vulnbench/vulnbench/internal/suite/osv"
)

// osvFlags are the flags suite build osv and suite osv-vic share.
type osvFlags struct {
	advisories, repos       string
	unmatched               string
	maxFuncs, maxRange      int
	maxCommits, concurrency int
}

func (f *osvFlags) add(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.advisories, "advisories", "", "OSV records: a directory of .json records (and .zip exports), or one .zip export")
	fs.StringVar(&f.repos, "repos", "", "directory of the records' repositories (DIR/HOST/OWNER/NAME, DIR/OWNER/NAME, DIR/OWNER+NAME or DIR/NAME, each also with .git)")
	fs.IntVar(&f.maxFuncs, "max-funcs", osv.DefaultMaxFuncs, "a fix the record names no function of is kept only when it changes at most this many")
	fs.StringVar(&f.unmatched, "unmatched", "drop", "a record whose symbols or crash state match no changed function: drop it, or narrow it by max-funcs")
	fs.IntVar(&f.maxRange, "max-range", osv.DefaultMaxRange, "commits of an OSS-Fuzz fixed_range searched for the fix at most")
	fs.IntVar(&f.maxCommits, "max-commits", jitvul.DefaultMaxCommits, "jit: first-parent commits walked back from the fix's parent at most")
	fs.IntVar(&f.concurrency, "concurrency", runtime.GOMAXPROCS(0), "fixes analysed and traced at once")
}

func (f *osvFlags) options(kind suite.Kind) (osv.Options, error) {
	switch {
	case f.advisories == "" || f.repos == "":
		return osv.Options{}, usageErr("needs --advisories DIR|ZIP and --repos DIR")
	case f.maxFuncs < 1 || f.maxRange < 1 || f.maxCommits < 1 || f.concurrency < 1:
		return osv.Options{}, usageErr("--max-funcs, --max-range, --max-commits and --concurrency must be at least 1")
	case f.unmatched != "drop" && f.unmatched != "max-funcs":
		return osv.Options{}, usageErr("--unmatched %q is not drop or max-funcs", f.unmatched)
	}
	return osv.Options{Kind: kind, MaxFuncs: f.maxFuncs, MaxRange: f.maxRange, Workers: f.concurrency, Fallback: f.unmatched == "max-funcs",
		Trace: jitvul.Options{MaxCommits: f.maxCommits, Workers: f.concurrency}}, nil
}

// openAdvisories opens --advisories; records it could not index are the build's problems.
func (f *osvFlags) openAdvisories() (*advisory.DB, error) {
	db, err := advisory.Open(f.advisories)
	if err != nil {
		return nil, err
	}
	if db.Len() == 0 {
		db.Close()
		return nil, &exitError{code: ExitFail, err: fmt.Errorf("%s holds no OSV record", f.advisories)}
	}
	return db, nil
}

func newBuildOSVCmd(e *env) *cobra.Command {
	var (
		f          osvFlags
		out, kind  string
		dateRule   string
		after      afterFlag
		reportJSON string
	)
	c := &cobra.Command{
		Use:   "osv --advisories DIR|ZIP --repos DIR --out SUITE.jsonl [--kind function|jit] [--after DATE] [--max-funcs 3]",
		Short: "Build function or JitVul pairs from OSV records (Go vulndb, OSS-Fuzz, GitHub advisories)",
		Long: `Builds a suite from OSV vulnerability records. For every record with a usable fix (a GIT range's
fixed event, or a FIX reference to a commit URL; else a WEB, PACKAGE or ADVISORY reference to a
commit URL, as GitHub's advisories mark their fixes, taken once the commit changes source code and
no release of a version the record calls affected holds it) whose repository is under --repos:

  - the functions the fix commit changed (every language the code graph reads; functions in tests
    and fuzzing harnesses left out), narrowed by what the record says: the Go database's
    vulnerable symbols (methods as Type.Method), OSS-Fuzz's crash state (the frames in its
    details), or with no hint only fixes changing at most --max-funcs functions. An OSS-Fuzz
    fixed_range (bisection stopped at a range) gives the one commit of the range that changes a
    crash-state function;
  - a function pair per function (f_vul at the fix's first parent, f_ben at the fix) or, with
    --kind jit, the JitVul pair (` + jitvul.Rule + `);
  - date (--date earliest, the default): the earliest public date we can show, the fix commit's
    committer date or the record's published date, whichever is first (the fix shows the bug:
    OSS-Fuzz's 2016-2020 records were published in bulk in 2021, years after their fixes, and a
    Go record can be published years after its fix); --date published takes the record's date
    (the fix's for the Go database's 0001-01-01), --date fix the fix's; meta.date_source says
    which; --after compares that date; cve and cwe from the aliases, database_specific or
    OSS-Fuzz's crash type; meta.osv with the record, the fix and the narrowing used.

Every record that gave no pair is printed with why (withdrawn, no fix commit, repository or
commit missing, no changed function matches the symbols or crash state, fix touches only tests,
more than --max-funcs functions, duplicate of another record's fix, dated on or before --after,
and the tracer's reasons). Two records sharing a fix give its functions once, to the first by id.`,
		Example: `  vulnbench suite build osv --advisories go-vulndb.zip --repos ~/clones --out go.jsonl --after 2024-06-01
  vulnbench suite build osv --advisories oss-fuzz.zip --repos ~/clones --kind jit --out ossfuzz-jit.jsonl`,
		Args: exactArgs(0, "no arguments (use the flags)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageErr("suite build osv needs --out SUITE.jsonl")
			}
			if kind != string(suite.KindFunction) && kind != string(suite.KindJIT) {
				return usageErr("--kind %q is not function or jit", kind)
			}
			if !slices.Contains(osv.DateRules(), osv.DateRule(dateRule)) {
				return usageErr("--date %q is not earliest, published or fix", dateRule)
			}
			if err := after.validate(); err != nil {
				return err
			}
			opts, err := f.options(suite.Kind(kind))
			if err != nil {
				return err
			}
			opts.After, opts.Date = after.t, osv.DateRule(dateRule)
			db, err := f.openAdvisories()
			if err != nil {
				return err
			}
			defer db.Close()
			b := osv.NewBuilder(opts)
			defer b.Close()
			start := time.Now()
			res, err := b.Build(cmd.Context(), db, f.repos)
			if err != nil {
				return err
			}
			if err := res.WriteFile(out); err != nil {
				return err
			}
			rep := res.Report()
			if reportJSON != "" {
				if err := rep.WriteJSONFile(reportJSON); err != nil {
					return err
				}
			}
			reportProblems(e.stderr, res.Problems, 20)
			rep.WriteText(e.stderr)
			fmt.Fprintf(e.stdout, "%s: %d pairs (%d cases) from %d of %d records, %d dropped (%s)\n", out, rep.Pairs, 2*rep.Pairs,
				rep.WithPairs, rep.Records, len(rep.Dropped), time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	f.add(c)
	c.Flags().StringVar(&out, "out", "", "suite file to write (replaced atomically)")
	c.Flags().StringVar(&kind, "kind", string(suite.KindFunction), "function (f_vul at the fix's parent) or jit (f_vul at the introducing commit)")
	c.Flags().StringVar(&dateRule, "date", string(osv.DateEarliest), "a case's date, which --after compares: earliest (the fix commit's or the record's published date, whichever is first), published or fix")
	c.Flags().StringVar(&reportJSON, "report", "", "also write the build report (every record dropped, by reason) as JSON to this file")
	after.add(c.Flags())
	return c
}

func newSuiteOSVVicCmd(e *env) *cobra.Command {
	var (
		f      osvFlags
		format string
	)
	c := &cobra.Command{
		Use:   "osv-vic --advisories DIR|ZIP --repos DIR [--format FORMAT]",
		Short: "Measure JitVul's introducing-commit rule against OSS-Fuzz's bisection",
		Long: `For every OSV record with a GIT range and an introducing commit (OSS-Fuzz's), not withdrawn:
first whether its bisected introducing commit (or its introduced_range) changes only fuzzing
harnesses, tests, build files or docs: then it marks when fuzzing could start, not when the bug
came, and it is counted apart (for every record whose repository and commit are here, traceable or
not). Then, for the records that give a jit case (built as suite build osv --kind jit builds them),
the rule's introducing commit against the bisected one: exact, rule earlier, rule later (with the
median first-parent distance in commits), inside the bisected introduced_range, or not
comparable (neither is an ancestor of the other). One row per project and one overall.`,
		Example: `  vulnbench suite osv-vic --advisories oss-fuzz.zip --repos ~/clones --format md`,
		Args:    exactArgs(0, "no arguments (use the flags)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format, (*osv.Study)(nil)); err != nil {
				return err
			}
			opts, err := f.options(suite.KindJIT)
			if err != nil {
				return err
			}
			db, err := f.openAdvisories()
			if err != nil {
				return err
			}
			defer db.Close()
			b := osv.NewBuilder(opts)
			defer b.Close()
			st, problems, err := b.Study(cmd.Context(), db, f.repos)
			if err != nil {
				return err
			}
			reportProblems(e.stderr, problems, 20)
			return present(e.stdout, format, st)
		},
	}
	f.add(c)
	c.Flags().StringVar(&format, "format", "text", formatUsage((*osv.Study)(nil)))
	return c
}
