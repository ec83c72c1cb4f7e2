package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/board"
	"github.com/vulnbench/vulnbench/internal/output/html"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/suite"
)

func newReportCmd(e *env) *cobra.Command {
	var (
		db, dir, suitePath string
		runs               []string
		sf                 = scoreFlags{vdsFPR: score.DefaultVDSFPR}
		jf                 judgeFlags
		fixChecks          bool
	)
	c := &cobra.Command{
		Use:   "report --run ID [--run ID ...] --html DIR",
		Short: "Write a static, self-contained HTML report of stored runs",
		Long: `Writes DIR/index.html, one self-contained page: no script, nothing fetched from anywhere
(open it from file://, mail it, publish it), built from the same report model as score:
  - the score tables with their 95% bootstrap intervals, and what random guessing scores here;
  - F1 and pAcc per run, pairwise outcomes (P-C, P-V, P-B, P-R) as stacked bars;
  - the ROC curve of each run with its VD-S point (or "degenerate" when the scores take two
    values at most: a label, not a ranking);
  - F1 and pAcc by CWE as a heat map, the VEX confusion matrix of VEX runs;
  - tool calls per vul and ben case for agents, and each run's cost against F1 and pAcc.
On AppSecBench runs every rubric part is shown: the automatic ones always, the judged ones
(exploit, fix, code quality, explanation) with --judge-model, with the judge's calibration
figures. The judge answers through the store's response cache: answers 'score --judge-model'
already judged are read from it, not judged again (no call, no cost).
The same store gives the same bytes (the only times shown are the runs' own).
To look at single cases, traces and flips between runs, use: vulnbench serve --db DSN`,
		Example: `  vulnbench report --run r1 --run r2 --html report/
  vulnbench report --db postgres://host/vb --run r1 --html out/ --resamples 2000`,
		Args: exactArgs(0, "no arguments (use --run and --html)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(runs) == 0 {
				return usageErr("report needs at least one --run ID (list them with: vulnbench runs --db %s)", db)
			}
			if dir == "" {
				return usageErr("report needs --html DIR, the directory to write index.html into")
			}
			sf.format = "text"
			if err := sf.validate(); err != nil {
				return err
			}
			ctx := cmd.Context()
			open := openRead
			if jf.model != "" { // the judge's answers are cached in the store
				open = openExisting
			}
			st, err := open(ctx, db)
			if err != nil {
				return err
			}
			defer st.Close()
			g, done, closeFix, err := appsecGrader(e, &jf, fixChecks, st)
			if closeFix != nil {
				defer closeFix()
			}
			if err != nil {
				return err
			}
			rep, err := report.Build(ctx, st, report.Request{Reading: e.reading, Runs: runs, Suite: suitePath, Keep: sf.after.keeper(), Score: sf.options(),
				CI: &score.CIOptions{Resamples: sf.resamples, Seed: sf.ciSeed}, AppSec: g, Plots: true})
			if err != nil {
				return reportErr(e.stderr, refusedJudge(err))
			}
			done() // the judge's calibration figures, before anything is written
			if err := checkKept(rep.Truth, &sf.after, e.stderr); err != nil {
				return err
			}
			printNotes(e.stderr, rep.Notes())
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("html report: %w", err)
			}
			path := filepath.Join(dir, "index.html")
			page := html.Page{}
			if len(rep.Runs) > 1 { // ranked as the board ranks them
				t, err := board.TableOf(rep, "")
				if err != nil {
					return err
				}
				page.Ranking = t.Output()
			}
			if err := suite.WriteFileAtomic(path, func(w io.Writer) error { return page.Present(w, rep) }); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, path)
			return nil
		},
	}
	f := c.Flags()
	f.StringArrayVar(&runs, "run", nil, "run id to report (repeatable)")
	f.StringVar(&dir, "html", "", "directory to write index.html into (created)")
	f.StringVar(&db, "db", "vulnbench.db", "store holding the runs (SQLite file or postgres:// DSN)")
	f.StringVar(&suitePath, "suite", "", "suite file holding the ground truth (default: the runs' own)")
	f.Float64Var(&sf.vdsFPR, "vds-fpr", score.DefaultVDSFPR, "VD-S: the tolerated false-positive rate r")
	f.StringVar(&sf.unparsedAs, "unparsed-as", "", "how failed (unparseable) verdicts count: failed or ben; default: ben on suites with jit cases, failed otherwise")
	f.IntVar(&sf.resamples, "resamples", score.DefaultResamples, "bootstrap resamples of the intervals")
	f.Uint64Var(&sf.ciSeed, "seed", 1, "seed of the bootstrap resamples")
	sf.after.add(f)
	jf.add(f, true)
	f.BoolVar(&fixChecks, "fix-checks", true, "appsec suites: check each proposed fix's syntax and run the scanners on PATH on it")
	return c
}
