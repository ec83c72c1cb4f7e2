package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newMigrateCmd(e *env) *cobra.Command {
	var db string
	c := &cobra.Command{
		Use:   "migrate --db DB",
		Short: "Bring a store's schema up to this binary's",
		Long: `Migrates an existing store to the schema this binary expects. Commands that write (run, worker,
stop, cancel) migrate a store when they open it; the read commands (score, report, export, serve,
runs) never write, so a store of an older schema is refused by them until it is migrated.`,
		Example: `  vulnbench migrate --db vulnbench.db`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openExisting(cmd.Context(), db)
			if err != nil {
				return err
			}
			defer st.Close()
			have, _, err := st.SchemaVersion(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "store %s: schema v%d\n", st.DSN(), have)
			return nil
		},
	}
	c.Flags().StringVar(&db, "db", "vulnbench.db", "store to migrate")
	return c
}
