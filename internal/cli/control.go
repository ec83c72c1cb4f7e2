package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/runner"
)

// newControlCmd is `vulnbench stop` or `vulnbench cancel`.
func newControlCmd(e *env, name, short, long string, act func(context.Context, runner.Controller, string) error) *cobra.Command {
	var db string
	c := &cobra.Command{
		Use:     name + " RUN_ID",
		Short:   short,
		Long:    long,
		Example: fmt.Sprintf("  vulnbench %s 20261129T201500-3f9a --db vulnbench.db", name),
		Args:    exactArgs(1, "the run id (list them with: vulnbench runs)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openExisting(cmd.Context(), db)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := act(cmd.Context(), st, args[0]); err != nil {
				return &exitError{code: ExitFail, err: err}
			}
			fmt.Fprintf(e.stdout, "run %s: asked to %s; its process sees it within a second\n", args[0], name)
			return nil
		},
	}
	c.Flags().StringVar(&db, "db", "vulnbench.db", "store of the run: a SQLite file path, or a postgres:// URL")
	return c
}

func newStopCmd(e *env) *cobra.Command {
	return newControlCmd(e, "stop", "Stop a running run: nothing new starts, what is in flight finishes",
		`Asks a run, from any shell or host that reaches its store, to start no new unit and finish those
in flight, as Ctrl-C once does. The run ends as interrupted; resume it with vulnbench run --resume.`, runner.Stop)
}

func newCancelCmd(e *env) *cobra.Command {
	return newControlCmd(e, "cancel", "Cancel a running run: units in flight are abandoned too",
		`Asks a run, from any shell or host that reaches its store, to stop at once: units in flight are
abandoned (not stored, as Ctrl-C twice does). The run ends as cancelled; what it stored is kept, and
vulnbench run --resume still does what is left.`, runner.Cancel)
}
