package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/grade/fixcheck"
	"github.com/vulnbench/vulnbench/internal/store"
)

func newGradeCmd(e *env) *cobra.Command {
	var (
		db      string
		runs    []string
		workers int
	)
	c := &cobra.Command{
		Use:   "grade --run ID [--run ID ...]",
		Short: "Check the fixes an AppSecBench run's answers propose, once, and store the checks",
		Long: `Checks the secure code each scored answer of an AppSecBench run proposes (its syntax with the
language's parser; the scanners on PATH that flag the vulnerable snippet and not the record's own
secure version must not flag it), --concurrency at a time, every scan in the sandbox, the Go
scanners over one build cache prepared once. Each check is stored with its attempt as soon as it
is made, so a killed grade loses only the checks in flight. score, report, board and the viewer
read the stored checks and never make them.

run does this at the end of every AppSecBench run (unless --fix-checks=false); grade is for runs
made before checks were stored, or without them. An attempt whose check is stored is not checked
again (unless the checks' version changed).`,
		Example: `  vulnbench grade --run 20261201T140000-ab12
  vulnbench grade --db postgres://host/vb --run r1 --run r2 --concurrency 4`,
		Args: exactArgs(0, "no arguments (use --run)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(runs) == 0 {
				return usageErr("grade needs at least one --run ID (list them with: vulnbench runs --db %s)", db)
			}
			if workers < 0 {
				return usageErr("--concurrency %d cannot be negative (0: one per CPU)", workers)
			}
			st, err := openExisting(cmd.Context(), db)
			if err != nil {
				return err
			}
			defer st.Close()
			for _, id := range runs {
				if _, err := st.GetRun(cmd.Context(), id); err != nil {
					return &exitError{code: ExitFail, err: err}
				}
				if err := checkFixes(cmd.Context(), e, st, id, workers); err != nil {
					return &exitError{code: ExitFail, err: err}
				}
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&db, "db", "vulnbench.db", "store holding the runs")
	f.StringArrayVar(&runs, "run", nil, "run id to grade (repeatable)")
	f.IntVar(&workers, "concurrency", 0, "fixes checked at once (0: one per CPU)")
	return c
}

// checkFixes makes and stores the fix checks a run's attempts lack (fixcheck.Fill) and says on
// stderr what it did; a run without AppSecBench answers proposing a fix says nothing.
func checkFixes(ctx context.Context, e *env, st *store.Store, runID string, workers int) error {
	fc := fixcheck.Default()
	defer fc.Close()
	start := time.Now()
	f, err := fixcheck.Fill(ctx, st, runID, fc, workers, nil)
	if err != nil {
		return err
	}
	if f.Proposed > 0 {
		fmt.Fprintf(e.stderr, "run %s: fix checks: %d proposed fixes, %d checked now in %s, %d stored before\n",
			runID, f.Proposed, f.Checked, time.Since(start).Round(time.Millisecond), f.Stored)
	}
	return nil
}
