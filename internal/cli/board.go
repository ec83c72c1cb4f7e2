package cli

import (
	"math"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/board"
	"github.com/vulnbench/vulnbench/internal/score"
)

func newBoardCmd(e *env) *cobra.Command {
	var (
		db, suitePath, format, sortBy, unparsedAs string
		vdsFPR                                    float64
		ci                                        bool
		resamples                                 int
		seed                                      uint64
		jf                                        judgeFlags
	)
	c := &cobra.Command{
		Use:   "board [--suite S] [--sort COL]",
		Short: "The leaderboard: one row per run of a suite, with its headline figures",
		Long: `Prints one table per suite of the store (or of --suite: its path as runs recorded it, its base
name, or a prefix of its sha256), one row per run: subject, model, prompt, harness and repeats,
the suite kind's headline figures, and cost and tokens per case (every attempt summed, over
cases × repeats). PrimeVul (function cases): F1, pAcc and VD-S; JitVul (jit cases): F1, pAcc and
tool calls per vul and ben case; VEX-Bench: status F1 and justification macro-F1; AppSecBench:
mean points (of 100) and pass rate. Each headline figure has its 95% bootstrap interval (--ci, on
by default: resampling projects, pairs or cases, and a run's repeats), and a run of several repeats
its mean ± std over them; cost is "unpriced" where a model's price is not known, never $0.

Each row is scored exactly as 'vulnbench score --run ID' scores it (same options), so the figures
are the same. Rows are sorted by --sort (a column key: f1, pacc, vds, tool_calls_vul,
tool_calls_ben, status_f1, justification_macro_f1, mean_points, pass_rate, cost_per_case,
tokens_per_case, or run), best first; the rank is 1 + the number of runs whose interval of that
figure lies wholly better, so runs whose intervals overlap share a rank (written =N). 'vulnbench
serve' shows the same board, ranks and intervals on its runs page.`,
		Example: `  vulnbench board --db vulnbench.db
  vulnbench board --db vulnbench.db --suite primevul-test.jsonl --sort pacc --format md`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format, (*board.Board)(nil)); err != nil {
				return err
			}
			if resamples < 1 {
				return usageErr("--resamples %d must be at least 1", resamples)
			}
			r := vdsFPR
			if r == 0 {
				r = math.SmallestNonzeroFloat64 // as score: FPR <= the smallest float is FPR == 0
			}
			opt := board.DefaultOptions() // the viewer's runs page shows the board of these
			opt.Suite, opt.Sort, opt.Score = suitePath, sortBy, score.Options{VDSFPR: r, UnparsedAs: unparsedAs}
			if err := opt.Score.Validate(); err != nil {
				return usageErr("%v", err)
			}
			opt.CI = nil
			if ci {
				opt.CI = &score.CIOptions{Resamples: resamples, Seed: seed}
			}
			st, err := openExisting(cmd.Context(), db)
			if err != nil {
				return err
			}
			defer st.Close()
			g, done, closeFix, err := appsecGrader(e, &jf, true, st)
			if closeFix != nil {
				defer closeFix()
			}
			if err != nil {
				return err
			}
			opt.AppSec = g
			b, err := board.Build(cmd.Context(), st, opt)
			if err != nil {
				return refusedJudge(err)
			}
			done()
			printNotes(e.stderr, b.Notes)
			return present(e.stdout, format, b)
		},
	}
	f := c.Flags()
	f.StringVar(&db, "db", "vulnbench.db", "store holding the runs")
	f.StringVar(&suitePath, "suite", "", "only the runs of this suite (recorded path, base name, or sha256 prefix of at least 6 digits)")
	f.StringVar(&format, "format", "text", formatUsage((*board.Board)(nil)))
	f.StringVar(&sortBy, "sort", "", "column key to sort and rank by (default: the suite kind's first figure)")
	f.Float64Var(&vdsFPR, "vds-fpr", score.DefaultVDSFPR, "VD-S: the tolerated false-positive rate r")
	f.StringVar(&unparsedAs, "unparsed-as", "", "how failed verdicts count: failed or ben (default as score)")
	f.BoolVar(&ci, "ci", true, "95% bootstrap intervals of every headline figure, over cases and repeats (seeded by --seed)")
	f.IntVar(&resamples, "resamples", score.DefaultResamples, "bootstrap resamples for --ci")
	f.Uint64Var(&seed, "seed", 1, "seed of the bootstrap resamples")
	jf.add(f, true)
	return c
}
