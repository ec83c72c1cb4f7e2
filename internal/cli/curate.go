package cli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/curate"
)

func newCurateCmd(e *env) *cobra.Command {
	var (
		in, out string
		opt     curate.Options
		quiet   bool
	)
	c := &cobra.Command{
		Use:   "curate --in RAW.jsonl --out DIR",
		Short: "PrimeVul pipeline: de-duplicate, label, split chronologically, pair",
		Long: `Curates raw vulnerability-fix data into PrimeVul-style suites. RAW is JSONL, one function
occurrence in a fix commit per line: project, commit_id, commit_date (RFC 3339), cve, cwe (list),
cve_desc, file, function, before (text before the commit, null if added), after (null if deleted).

Steps, each counted in DIR/report.json:
  1. parse: malformed lines are reported as FILE:LINE and skipped (--strict: the first is fatal).
  2. de-duplicate: a function whose before and after texts, with spaces, tabs, newlines and
     carriage returns removed, have the MD5s of an earlier function's (by commit date) is dropped.
  3. label: a function is changed when its normalised before and after differ (an added or
     deleted function is changed). ONEFUNC: the only function its commit changes is vulnerable.
     NVDCHECK: a changed function is vulnerable when the CVE description names it, or names its
     file and it is the only function changed in that file. Benign: the after-versions of
     vulnerable functions and the unchanged functions of their commits. Other changed functions,
     and every function of a commit without a vulnerable one, are dropped.
  4. de-duplicate the merged cases by normalised text: later copies go; a text labelled both vul
     and ben goes entirely.
  5. split by commit date, oldest first: a commit goes, whole, to train while fewer than 80 % of
     the cases are assigned before it, to valid below 90 %, else to test.
  6. pair a vulnerable function with its patched version when they share at least 80 % of their
     tokens: 2*LCS/(len(a)+len(b)) over C tokens (difflib's ratio with an exact LCS).

Writes DIR/{train,valid,test}.jsonl (every case), DIR/{train,valid,test}_paired.jsonl (pairs
only) and DIR/report.json. Case ids are hashes of project, commit, file, function, version and
text, so re-runs write the same bytes.`,
		Example: `  vulnbench suite curate --in raw.jsonl --out primevul/`,
		Args:    exactArgs(0, "no arguments (use --in and --out)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in == "" || out == "" {
				return usageErr("curate needs --in RAW.jsonl and --out DIR")
			}
			if !(opt.MinSimilarity > 0 && opt.MinSimilarity <= 1) { // NaN too
				return usageErr("--min-similarity %v is not in (0, 1]", opt.MinSimilarity)
			}
			start := time.Now()
			rep, err := curate.Curate(cmd.Context(), in, out, opt)
			if err != nil {
				var le *suite.LineError
				if errors.As(err, &le) {
					return &exitError{code: ExitFail, err: fmt.Errorf("%w (--strict: nothing was written; drop --strict to skip malformed lines)", err)}
				}
				return err
			}
			for _, p := range rep.Problems {
				fmt.Fprintln(e.stderr, p)
			}
			if !quiet {
				var size int64
				if st, err := os.Stat(in); err == nil {
					size = st.Size()
				}
				el := time.Since(start)
				fmt.Fprintf(e.stderr, "curated %s (%.1f MB) in %s (%.1f MB/s)\n", in, float64(size)/1e6, el.Round(time.Millisecond), float64(size)/1e6/max(el.Seconds(), 1e-9))
			}
			rep.WriteText(e.stdout, out)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&in, "in", "", "raw JSONL: one function occurrence in a fix commit per line")
	f.StringVar(&out, "out", "", "output directory")
	f.BoolVar(&opt.Strict, "strict", false, "stop at the first malformed line instead of skipping it")
	f.Float64Var(&opt.MinSimilarity, "min-similarity", curate.DefaultMinSimilarity, "pair rule: least token similarity of a vulnerable function and its patched version")
	f.IntVar(&opt.Workers, "workers", 0, "goroutines decoding and hashing lines (0: one per CPU)")
	f.StringVar(&opt.TempDir, "tmp", "", "directory of the temporary text spill file (default: --out)")
	f.BoolVar(&quiet, "quiet", false, "do not print the timing line")
	return c
}
