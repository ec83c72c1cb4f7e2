package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/store"
)

// ago says how long ago t was, to the second.
func ago(t time.Time) string {
	return time.Since(t).Round(time.Second).String() + " ago"
}

// openExisting opens a store that must already exist, for a command that writes to it.
func openExisting(ctx context.Context, db string) (*store.Store, error) {
	if err := mustExist(db); err != nil {
		return nil, err
	}
	return store.Open(ctx, db)
}

// openRead opens a store that must already exist for reading only (score, report, export,
// serve, runs): no migration, no write, so an archived store a user cannot write opens too.
func openRead(ctx context.Context, db string) (*store.Store, error) {
	if err := mustExist(db); err != nil {
		return nil, err
	}
	st, err := store.OpenReadOnly(ctx, db)
	if err != nil {
		return nil, &exitError{code: ExitFail, err: err}
	}
	return st, nil
}

// mustExist refuses a SQLite path with no store: reading commands never create one.
func mustExist(db string) error {
	if _, err := os.Stat(db); err != nil && !strings.Contains(db, "://") {
		return &exitError{code: ExitFail, err: fmt.Errorf("no store at %s (runs are stored there by: vulnbench run --db %s)", db, db)}
	}
	return nil
}

func newRunsCmd(e *env) *cobra.Command {
	var db string
	c := &cobra.Command{
		Use:   "runs",
		Short: "List the runs in a store, with their state and progress",
		Long: `Lists every run of a store, oldest first: state, units done of all, units whose attempts are all
errors, attempts stored. A run on the local pool whose process has not beaten for 10 s (it died:
kill -9, a lost host) shows as stale: run --resume takes it over. A run queued on River (run
--queue river) is followed by one line per worker that took its units: host and pid, its state
(dead: the other workers saw its heartbeat stop for 10 s and made its units available again),
attempts it stored (errors), units in flight, and when its heartbeat was last seen. A run made with --batch is followed by one line per provider
batch: its id, the provider's state as last polled, the units it holds, and whether its results
are in.`,
		Example: `  vulnbench runs --db vulnbench.db
  vulnbench runs --db 'postgres://vb@db.example/vulnbench'`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openRead(cmd.Context(), db)
			if err != nil {
				return err
			}
			defer st.Close()
			runs, err := runner.List(cmd.Context(), st)
			if err != nil {
				return err
			}
			// One aligned table of the runs; a run's workers on lines of their own under it,
			// indented, aligned among themselves (not under the run's columns).
			var b strings.Builder
			tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tCREATED\tSTATE\tDONE\tERRORS\tATTEMPTS\tSUBJECT\tSUITE")
			for _, r := range runs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%d\t%d\t%s\t%s\n", r.ID, r.CreatedAt.Local().Format(time.DateTime), r.Shown(time.Now()),
					r.Done, r.Units, r.Errors, r.Tries, r.Subject, r.SuitePath)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			lines := strings.SplitAfter(b.String(), "\n")
			fmt.Fprint(e.stdout, lines[0])
			// Under each run, its workers and then its batches (local runs' and workers' alike).
			for i, r := range runs {
				fmt.Fprint(e.stdout, lines[i+1])
				ww := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				for _, w := range r.Workers {
					fmt.Fprintf(ww, "    worker %s:%d\t%s\t%s\tseen %s\tstored %d (%d errors)\t%d in flight\n", w.Host, w.PID, w.ID, w.State, ago(w.RunSeen), w.Done, w.Errors, w.InFlight)
				}
				if err := writeBatches(cmd.Context(), ww, st, r.ID); err != nil {
					return err
				}
				if err := ww.Flush(); err != nil {
					return err
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&db, "db", "vulnbench.db", "store to list")
	return c
}
