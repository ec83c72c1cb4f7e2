package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Finding (issue 31): a Postgres password was given in --db on the command line, where ps shows
// it to every user; the store's address now comes from VULNBENCH_DB when --db is not given, and a
// password in --db is warned about.
func TestStoreAddressFromTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(goodSuite), 0o644)
	t.Setenv("VULNBENCH_DB", filepath.Join(dir, "elsewhere.db"))
	if code, _, errOut := run(t, dir, "run", "--suite", "s.jsonl", "--subject", "random", "--run-id", "from-env", "--no-score"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "vulnbench.db")); err == nil {
		t.Error("the run went to vulnbench.db, not VULNBENCH_DB's store")
	}
	code, out, errOut := run(t, dir, "runs")
	if code != 0 || !strings.Contains(out, "from-env") {
		t.Errorf("runs with VULNBENCH_DB: exit %d\n%s%s", code, out, errOut)
	}
	// --db given wins.
	if code, out, _ := run(t, dir, "runs", "--db", filepath.Join(dir, "other.db")); code == 0 && strings.Contains(out, "from-env") {
		t.Errorf("runs --db other.db listed VULNBENCH_DB's runs:\n%s", out)
	}

	t.Setenv("VULNBENCH_DB", "")
	_, _, errOut = run(t, dir, "runs", "--db", "postgres://vb:s3cret-pw@127.0.0.1:1/vulnbench?connect_timeout=1")
	if !strings.Contains(errOut, "warning: --db holds a password, which ps shows to every user of this machine") || strings.Contains(errOut, "s3cret-pw") {
		t.Errorf("a password in --db: no warning, or the password shown:\n%s", errOut)
	}
	_, _, errOut = run(t, dir, "runs", "--db", "postgres://vb@127.0.0.1:1/vulnbench?connect_timeout=1")
	if strings.Contains(errOut, "warning: --db holds a password") {
		t.Errorf("warned of a password the address does not hold:\n%s", errOut)
	}
}
