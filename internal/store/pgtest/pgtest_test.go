package pgtest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/vulnbench/vulnbench/internal/store/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// Each test gets its own empty database on one cluster, reachable from a child process too.
func TestFreshDatabasePerTest(t *testing.T) {
	ctx := context.Background()
	var dsns []string
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			dsn := pgtest.DSN(t)
			dsns = append(dsns, dsn)
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			// An empty database: the table made by the first subtest is not in the second's.
			if _, err := conn.Exec(ctx, `CREATE TABLE t (x int)`); err != nil {
				t.Fatal(err)
			}
			var collate string
			if err := conn.QueryRow(ctx, `SELECT datlocprovider::text FROM pg_database WHERE datname = current_database()`).Scan(&collate); err != nil {
				t.Fatal(err)
			}
			if collate != "i" {
				t.Errorf("locale provider = %q, want i (ICU): the store's byte-order sorting must be tested against a non-C collation", collate)
			}
		})
	}
	if len(dsns) == 2 && dsns[0] == dsns[1] {
		t.Errorf("two tests got the same database: %s", dsns[0])
	}
	if psql, err := exec.LookPath("psql"); err == nil && len(dsns) > 0 {
		dsn := pgtest.DSN(t)
		out, err := exec.Command(psql, dsn, "-Atc", "SELECT 40 + 2").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "42" {
			t.Errorf("psql %s: %v: %s", dsn, err, out)
		}
	}
}

// Without the binaries a test skips, saying to run make test; with CI set it fails instead.
func TestMissingBinaries(t *testing.T) {
	if os.Getenv("PGTEST_CHILD") != "" {
		pgtest.DSN(t)
		t.Fatal("DSN returned without Postgres binaries")
	}
	for _, tc := range []struct {
		name     string
		env      []string
		wantFail bool
		want     string
	}{
		{"skips", []string{"CI=", "VULNBENCH_REQUIRE_POSTGRES="}, false, "--- SKIP: TestMissingBinaries"},
		{"fails in CI", []string{"CI=true", "VULNBENCH_REQUIRE_POSTGRES="}, true, "--- FAIL: TestMissingBinaries"},
		{"fails when required", []string{"CI=", "VULNBENCH_REQUIRE_POSTGRES=1"}, true, "--- FAIL: TestMissingBinaries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestMissingBinaries$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), append(tc.env, "PGTEST_CHILD=1", "VULNBENCH_PGBIN="+t.TempDir())...)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != tc.wantFail {
				t.Errorf("failed = %v, want %v:\n%s", failed, tc.wantFail, out)
			}
			if !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), "run `make test`") {
				t.Errorf("output lacks %q and the make test hint:\n%s", tc.want, out)
			}
		})
	}
}
