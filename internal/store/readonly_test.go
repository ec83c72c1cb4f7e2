package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/store/pgtest"
)

// OpenReadOnly on both backends: the store's runs are read, a write is refused by the database
// itself, and a schema older than the binary's is refused with what to do.
func TestOpenReadOnly(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dsn := filepath.Join(t.TempDir(), "v.db")
			if backend == "postgres" {
				dsn = pgtest.DSN(t)
			}
			ctx := context.Background()
			w, err := store.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.CreateRun(ctx, &store.Run{ID: "r", CreatedAt: time.Now(), State: store.StateDone, Repeats: 1, Units: 1}); err != nil {
				t.Fatal(err)
			}
			r, err := store.OpenReadOnly(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			if run, err := r.GetRun(ctx, "r"); err != nil || run.State != store.StateDone {
				t.Errorf("read-only GetRun: %+v, %v", run, err)
			}
			if err := r.SetState(ctx, "r", store.StateRunning); err == nil {
				t.Error("a write through a read-only store succeeded")
			}
			r.Close()
			if _, err := w.DB().Exec(`DELETE FROM goose_db_version WHERE version_id = (SELECT MAX(version_id) FROM goose_db_version)`); err != nil {
				t.Fatal(err)
			}
			w.Close()
			_, err = store.OpenReadOnly(ctx, dsn)
			if !errors.Is(err, store.ErrSchema) || !strings.Contains(err.Error(), "vulnbench migrate --db") {
				t.Errorf("read-only open of an older schema: %v, want ErrSchema saying how to migrate", err)
			}
		})
	}
}
