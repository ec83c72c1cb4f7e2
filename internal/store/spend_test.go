package store_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// A run's spend sums every attempt, errors and retries too; an attempt that used a model and
// has no cost makes the run unpriced; one that used no model (a scanner) makes it neither.
func TestRunSpend(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		unpriced := attempt("c", 0, 0, verdict.OK, 0)
		unpriced.Verdict.Usage = verdict.Usage{InputTokens: 100, OutputTokens: 20, Calls: 1}
		scanner := attempt("d", 0, 0, verdict.OK, 0)
		scanner.Verdict.Usage = verdict.Usage{}
		for _, tc := range []struct {
			run  string
			as   []store.Attempt
			want store.Spend
			kn   bool
		}{
			{"priced", []store.Attempt{attempt("a", 0, 0, verdict.Error, 0.25), attempt("a", 0, 1, verdict.OK, 0.5), attempt("b", 0, 0, verdict.OK, 0)},
				store.Spend{Attempts: 3, Priced: 3, Cost: 0.75}, true},
			{"unpriced", []store.Attempt{attempt("a", 0, 0, verdict.OK, 0.5), unpriced}, store.Spend{Attempts: 2, Tokens: 120, Priced: 1, Unpriced: 1, Cost: 0.5}, false},
			{"scanner", []store.Attempt{scanner}, store.Spend{Attempts: 1}, false},
			{"empty", nil, store.Spend{}, false},
		} {
			newRun(t, st, tc.run)
			if len(tc.as) > 0 {
				if err := st.PutAttempts(ctx, tc.run, tc.as); err != nil {
					t.Fatal(err)
				}
			}
			got, err := st.RunSpend(ctx, tc.run)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" || got.Known() != tc.kn {
				t.Errorf("%s: known %v (-want +got):\n%s", tc.run, got.Known(), d)
			}
		}
	})
}
