package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/store"
)

// Many goroutines (standing for workers) reserve from one ledger at once: while the first call
// is in flight the others wait, then every call is estimated at the first one's cost, and what
// was granted never passes the cap.
func TestLedgerNeverOverspends(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := store.OpenT(t, dsn)
		if err := st.CreateRun(ctx, &store.Run{ID: "r", CreatedAt: time.Now(), State: store.StateRunning, Queue: store.QueueRiver}); err != nil {
			t.Fatal(err)
		}
		const cost, limit = 0.01, 0.505 // 50 calls fit
		if err := st.InTx(ctx, func(tx *store.Tx) error { return tx.OpenBudget(ctx, "r", limit, 0) }); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		granted, refused := 0, 0
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					est, outcome, err := st.Reserve(ctx, "r")
					if err != nil {
						t.Error(err)
						return
					}
					switch outcome {
					case store.Wait:
						time.Sleep(time.Millisecond)
						continue
					case store.Refused:
						mu.Lock()
						refused++
						mu.Unlock()
						return
					}
					mu.Lock()
					granted++
					mu.Unlock()
					c := cost
					if err := st.Settle(ctx, "r", est, &c); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		b, err := st.Budget(ctx, "r")
		if err != nil {
			t.Fatal(err)
		}
		if granted != 50 || refused != 8 || !b.Refused || b.InFlight != 0 || b.Calls != 50 || b.Spent > limit || b.Spent < limit-cost {
			t.Errorf("granted %d, refused %d, ledger %+v; want 50 calls spending within $%v under $%v", granted, refused, b, cost, limit)
		}
		// A resume reopens the ledger from what the attempts cost: reservations of dead workers go.
		if err := st.InTx(ctx, func(tx *store.Tx) error { return tx.OpenBudget(ctx, "r", 1, 0.5) }); err != nil {
			t.Fatal(err)
		}
		b, _ = st.Budget(ctx, "r")
		if diff := cmp.Diff(store.Budget{Cap: 1, Spent: 0.5}, b); diff != "" {
			t.Errorf("reopened ledger (-want +got):\n%s", diff)
		}
		if _, err := st.Budget(ctx, "none"); err == nil {
			t.Error("a run with no ledger has a budget")
		}
	})
}

// A run's rate windows admit exactly their limit per second, whoever asks.
func TestRateWindowsAdmitTheirLimit(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := store.OpenT(t, dsn)
		var mu sync.Mutex
		got := map[int64]int{}
		var wg sync.WaitGroup
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for w := int64(100); w < 103; w++ {
					for range 10 {
						_, ok, err := st.TakeRate(ctx, "r", w, 7)
						if err != nil {
							t.Error(err)
							return
						}
						if ok {
							mu.Lock()
							got[w]++
							mu.Unlock()
						}
					}
				}
			}()
		}
		wg.Wait()
		if diff := cmp.Diff(map[int64]int{100: 7, 101: 7, 102: 7}, got); diff != "" {
			t.Errorf("calls admitted per window (-want +got):\n%s", diff)
		}
	})
}

// Heartbeats record each worker once, with its progress per run.
func TestWorkerHeartbeats(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := store.OpenT(t, dsn)
		if err := st.CreateRun(ctx, &store.Run{ID: "r", CreatedAt: time.Now(), State: store.StateRunning}); err != nil {
			t.Fatal(err)
		}
		w := store.Worker{ID: "h-1", Host: "h", PID: 1, Concurrency: 4, Queues: "vulnbench", Started: time.Now(), State: "running"}
		for i := 1; i <= 2; i++ {
			if err := st.Beat(ctx, w, []store.WorkerRun{{RunID: "r", Done: i, Errors: 1, InFlight: 3}}); err != nil {
				t.Fatal(err)
			}
		}
		rs, err := st.WorkerRuns(ctx, "r")
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1 || rs[0].Done != 2 || rs[0].Errors != 1 || rs[0].InFlight != 3 || rs[0].Host != "h" || time.Since(rs[0].Seen) > time.Minute {
			t.Errorf("worker runs %+v", rs)
		}
		if n, err := st.LiveWorkers(ctx, time.Now().Add(-time.Minute)); err != nil || n != 1 {
			t.Errorf("%d live workers (%v), want 1", n, err)
		}
	})
}
