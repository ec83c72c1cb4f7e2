package store_test

import (
	"errors"
	"testing"
	"time"

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

// TestBatchIntents: a chunk's intent is kept until the batch created under it is stored (in
// the same transaction) or it is dropped; BatchStored knows the batches of every run.
func TestBatchIntents(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		newRun(t, st, "r1")
		newRun(t, st, "r2")
		at := time.Date(2026, 12, 2, 10, 0, 0, 123456789, time.UTC)
		for i, in := range []store.BatchIntent{
			{RunID: "r1", Nonce: "n1", Provider: "anthropic", CustomIDs: []string{"a", "b"}, CreatedAt: at},
			{RunID: "r1", Nonce: "n2", Provider: "anthropic", CustomIDs: []string{"c"}, CreatedAt: at.Add(time.Second)},
			{RunID: "r1", Nonce: "n3", Provider: "anthropic", CustomIDs: []string{"d"}, CreatedAt: at.Add(2 * time.Second)},
			{RunID: "r2", Nonce: "n1", Provider: "openai", CustomIDs: []string{"a"}, CreatedAt: at},
		} {
			if err := st.PutBatchIntent(ctx, in); err != nil {
				t.Fatalf("intent %d: %v", i, err)
			}
		}
		if err := st.PutBatchIntent(ctx, store.BatchIntent{RunID: "r1", Nonce: "n1", Provider: "anthropic", CustomIDs: []string{"x"}, CreatedAt: at}); err == nil {
			t.Error("an intent was recorded twice")
		}
		if err := st.PutBatch(ctx, store.Batch{RunID: "r1", ID: "msgbatch_1", Provider: "anthropic", CustomIDs: []string{"c"}, State: "in_progress", Nonce: "n2"}); err != nil {
			t.Fatal(err)
		}
		if err := st.DropBatchIntent(ctx, "r1", "n3"); err != nil {
			t.Fatal(err)
		}
		got, err := st.BatchIntents(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		want := []store.BatchIntent{{RunID: "r1", Nonce: "n1", Provider: "anthropic", CustomIDs: []string{"a", "b"}, CreatedAt: at}}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("r1's intents (-want +got):\n%s", d)
		}
		if other, err := st.BatchIntents(ctx, "r2"); err != nil || len(other) != 1 {
			t.Errorf("r2's intents: %v, %v: want its one", other, err)
		}
		for _, c := range []struct {
			provider, id string
			want         bool
		}{{"anthropic", "msgbatch_1", true}, {"openai", "msgbatch_1", false}, {"anthropic", "msgbatch_2", false}} {
			if got, err := st.BatchStored(ctx, c.provider, c.id); err != nil || got != c.want {
				t.Errorf("BatchStored(%s, %s) = %v, %v; want %v", c.provider, c.id, got, err, c.want)
			}
		}
	})
}

// TestCacheBatches: batches made for the response cache are listed per provider and host until
// collected; collecting one writes the answers put before it in the same transaction (another
// store on the same database sees them at once, while the cache's own timer waits an hour).
func TestCacheBatches(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		store.SetCacheDelay(st, time.Hour)
		for _, b := range []store.CacheBatch{
			{Provider: "openai", BaseHost: "h:1", ID: "batch_1", Keys: []string{"k1", "k2"}, State: "validating"},
			{Provider: "openai", BaseHost: "h:1", ID: "batch_2", Keys: []string{"k3"}, State: "validating"},
			{Provider: "openai", BaseHost: "h:2", ID: "batch_1", Keys: []string{"k9"}, State: "validating"},
		} {
			if err := st.PutCacheBatch(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.PutCacheBatch(ctx, store.CacheBatch{Provider: "openai", BaseHost: "h:1", ID: "batch_1", Keys: []string{"x"}}); err == nil {
			t.Error("a batch was recorded twice")
		}
		if err := st.SetCacheBatchState(ctx, "openai", "h:1", "batch_2", "in_progress"); err != nil {
			t.Fatal(err)
		}
		if err := st.SetCacheBatchState(ctx, "anthropic", "h:1", "batch_2", "ended"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another provider's batch: %v, want ErrNotFound", err)
		}
		if err := st.PutResponse(ctx, "k1", "openai", "m", []byte(`{"text":"a"}`)); err != nil {
			t.Fatal(err)
		}
		if err := st.CollectCacheBatch(ctx, "openai", "h:1", "batch_1", "completed"); err != nil {
			t.Fatal(err)
		}
		other := store.OpenT(t, dsn)
		if b, ok, err := other.GetResponse(ctx, "k1"); err != nil || !ok || string(b) != `{"text":"a"}` {
			t.Errorf("the collected batch's answer in another store: %q, %v, %v", b, ok, err)
		}
		type row struct {
			ID, State string
			Keys      []string
		}
		for host, want := range map[string][]row{"h:1": {{"batch_2", "in_progress", []string{"k3"}}}, "h:2": {{"batch_1", "validating", []string{"k9"}}}} {
			got, err := st.PendingCacheBatches(ctx, "openai", host)
			if err != nil {
				t.Fatal(err)
			}
			var rows []row
			for _, b := range got {
				rows = append(rows, row{b.ID, b.State, b.Keys})
			}
			if d := cmp.Diff(want, rows); d != "" {
				t.Errorf("pending batches at %s (-want +got):\n%s", host, d)
			}
		}
	})
}
