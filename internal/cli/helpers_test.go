package cli_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/store"
)

// buildBinary builds the real vulnbench into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "vulnbench")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/vulnbench").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// storedUnits counts the units of a run in a store that another process is writing.
func storedUnits(db, runID string) int {
	st, err := store.Open(context.Background(), db)
	if err != nil {
		return 0
	}
	defer st.Close()
	n := 0
	st.Units(context.Background(), runID, func(store.UnitState) { n++ })
	return n
}

// killAfter waits (polling the store, the way a user would watch it) until cmd has stored at
// least n units of runID, then kills it with SIGKILL, and returns how many units were stored. The
// store is opened once: opening it for every look (a migration check, a Postgres connection)
// could take longer than the run.
func killAfter(t *testing.T, cmd *exec.Cmd, db, runID string, n int) int {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(60 * time.Second)
	var st *store.Store
	for {
		if st == nil {
			st, _ = store.Open(ctx, db) // nil until the run's process has created it
		}
		stored := 0
		if st != nil {
			st.Units(ctx, runID, func(store.UnitState) { stored++ })
		}
		if stored >= n {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("fewer than %d units stored after 60 s", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill() // SIGKILL: no chance to clean up
	cmd.Wait()
	st.Close()
	return storedUnits(db, runID)
}

// spentOf is a run's summed cost (store.Spend.Cost).
func spentOf(st *store.Store, ctx context.Context, runID string) (float64, error) {
	sp, err := st.RunSpend(ctx, runID)
	return sp.Cost, err
}
