package cli

import (
	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
)

func newCompareCmd(e *env) *cobra.Command {
	// compare has no --vds-fpr: the options keep score's default, not a 0 read as "FPR == 0".
	sf := scoreFlags{vdsFPR: score.DefaultVDSFPR}
	var (
		suitePath   string
		db          string
		runs, preds []string
	)
	c := &cobra.Command{
		Use:   "compare (--run A --run B [--run C...] | --suite SUITE --predictions A --predictions B [--predictions C...]) [--suite SUITE]",
		Short: "Tell two subjects apart on one suite: McNemar, paired bootstrap, per-CWE Youden",
		Long: `Compares two runs (or two predictions files) on the same suite, case by case:
  - McNemar's exact test on paired correctness: b counts cases only A got right, c cases only B
    got right; p = min(1, 2 P(X <= min(b, c))), X ~ Binomial(b + c, 1/2). Cases where either has
    an error or no verdict are left out; failed verdicts count per --unparsed-as.
  - A paired bootstrap of the differences A - B in F1, pAcc and accuracy: each resample draws the
    same units for both (projects when the suite names at least 10, else pairs, else cases), and
    the interval is the 2.5 and 97.5 percentiles (--resamples, --seed).
  - The Youden index TPR - FPR per CWE, averaged over the CWEs that have vul and ben cases, as
    the OWASP Benchmark scorecards do.
With more than two runs (or predictions files), compare says instead what they find together:
for each and for each pair, the vul cases only one finds, the recall of their union (over every
vul case) and each one's marginal contribution (the union's recall minus that of the others').
With repeats, repeat 0 of each run is compared. As with score, stored runs bring their own
suite, and --suite must be the file they judged.`,
		Example: `  vulnbench compare --suite test.jsonl --run RUN_A --run RUN_B
  vulnbench compare --suite test.jsonl --predictions a.jsonl --predictions b.jsonl --format json`,
		Args: exactArgs(0, "no arguments (use two --run, or --suite with two --predictions)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(sf.format, output.Comparison{}); err != nil {
				return err
			}
			format := sf.format
			if err := sf.validate(); err != nil {
				return err
			}
			if !((len(runs) >= 2 && len(preds) == 0) || (len(preds) >= 2 && len(runs) == 0 && suitePath != "")) {
				return usageErr("compare needs two or more --run IDs or --predictions FILEs (with --suite SUITE)")
			}
			rep, err := buildReport(cmd.Context(), e, db, report.Request{Reading: e.reading, Runs: runs, Predictions: preds, Suite: suitePath,
				Keep: sf.after.keeper(), Score: sf.options()}, &sf.after)
			if err != nil {
				return err
			}
			if len(rep.Runs) > 2 {
				u, err := rep.Union()
				if err != nil {
					return err
				}
				printNotes(e.stderr, u.Notes)
				return present(e.stdout, format, output.Union{Report: rep, U: u})
			}
			cmp, err := rep.Compare(0, 1, score.CIOptions{Resamples: sf.resamples, Seed: sf.ciSeed})
			if err != nil {
				return err
			}
			printNotes(e.stderr, cmp.Notes)
			return present(e.stdout, format, output.Comparison{Report: rep, Cmp: cmp})
		},
	}
	f := c.Flags()
	f.StringVar(&suitePath, "suite", "", "suite file holding the ground truth (default: the runs' own)")
	f.StringArrayVar(&runs, "run", nil, "run id (give two, or more to see what they find together)")
	f.StringArrayVar(&preds, "predictions", nil, "predictions file (give two, or more to see what they find together)")
	f.StringVar(&db, "db", "vulnbench.db", "store holding the runs")
	f.StringVar(&sf.format, "format", "text", formatUsage(output.Comparison{}))
	f.StringVar(&sf.unparsedAs, "unparsed-as", "", "how failed (unparseable) verdicts count: failed (wrong) or ben; default: ben on suites with jit cases, failed otherwise")
	f.IntVar(&sf.resamples, "resamples", score.DefaultResamples, "paired bootstrap resamples")
	f.Uint64Var(&sf.ciSeed, "seed", 1, "seed of the bootstrap resamples")
	sf.after.add(f)
	return c
}
