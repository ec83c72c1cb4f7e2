package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/vulnbench/vulnbench/internal/store"
)

// DBEnv is the environment variable that gives every command's --db when the flag is not given:
// a store's address (a Postgres URL with its password) stays out of the command line, where ps
// shows it to every user of the machine.
const DBEnv = "VULNBENCH_DB"

// storeAddress applies to a command that has --db: $VULNBENCH_DB when --db is not given, and a
// warning on stderr when --db holds a password.
func (e *env) storeAddress(cmd *cobra.Command) {
	f := cmd.Flags().Lookup("db")
	if f == nil {
		return
	}
	if !f.Changed {
		if v := os.Getenv(DBEnv); v != "" {
			_ = f.Value.Set(v) // the flag stays "not given"
		}
		return
	}
	if store.HasPassword(f.Value.String()) {
		fmt.Fprintf(e.stderr, "vulnbench: warning: --db holds a password, which ps shows to every user of this machine: put the address in %s, or the password in PGPASSWORD or a ~/.pgpass file (PGPASSFILE), which Postgres reads itself\n", DBEnv)
	}
}
