package cli

import (
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"
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
	if dsnHasPassword(f.Value.String()) {
		fmt.Fprintf(e.stderr, "vulnbench: warning: --db holds a password, which ps shows to every user of this machine: put the address in %s, or the password in PGPASSWORD or a ~/.pgpass file (PGPASSFILE), which Postgres reads itself\n", DBEnv)
	}
}

// dsnHasPassword reports whether a Postgres address carries a password: postgres://USER:PASS@...,
// or password=... in its parameters or a key=value string.
func dsnHasPassword(dsn string) bool {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return strings.Contains(dsn, "password")
		}
		if _, ok := u.User.Password(); ok {
			return true
		}
		return u.Query().Has("password")
	}
	for _, kv := range strings.Fields(dsn) {
		if strings.HasPrefix(kv, "password=") {
			return true
		}
	}
	return false
}
