package store_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/store"
)

// TestBatches: a run's batches are kept in creation order with their units, their state as
// polled and whether they were collected; a batch is recorded once; another run sees none.
func TestBatches(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		newRun(t, st, "r1")
		newRun(t, st, "r2")
		for _, b := range []store.Batch{
			{RunID: "r1", ID: "batch_1", Provider: "openai", CustomIDs: []string{"a/0", "b/0"}, State: "validating"},
			{RunID: "r1", ID: "batch_2", Provider: "openai", CustomIDs: []string{"c/0"}, State: "validating"},
		} {
			if err := st.PutBatch(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.PutBatch(ctx, store.Batch{RunID: "r1", ID: "batch_1", Provider: "openai", CustomIDs: []string{"x"}}); err == nil {
			t.Error("a batch was recorded twice")
		}
		if err := st.SetBatchState(ctx, "r1", "batch_1", "completed", true); err != nil {
			t.Fatal(err)
		}
		if err := st.SetBatchState(ctx, "r2", "batch_1", "completed", true); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another run's batch: %v, want ErrNotFound", err)
		}
		got, err := st.Batches(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			ID, State string
			IDs       []string
			Collected bool
		}
		var rows []row
		for _, b := range got {
			rows = append(rows, row{b.ID, b.State, b.CustomIDs, b.Collected})
		}
		want := []row{{"batch_1", "completed", []string{"a/0", "b/0"}, true}, {"batch_2", "validating", []string{"c/0"}, false}}
		if d := cmp.Diff(want, rows); d != "" {
			t.Errorf("batches (-want +got):\n%s", d)
		}
		if none, err := st.Batches(ctx, "r2"); err != nil || len(none) != 0 {
			t.Errorf("r2's batches: %v, %v", none, err)
		}
	})
}
