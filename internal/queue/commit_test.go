package queue_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/queue"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// A group commit in which one attempt was already stored by another try of its unit: that one
// alone is refused (store.ErrExists, one attempt, not two), the others of the group are stored.
func TestGroupCommitRefusesOnlyTheStoredAttempt(t *testing.T) {
	onBothBackends(t, func(t *testing.T, st *store.Store, _ string) {
		ctx := context.Background()
		if _, err := start(ctx, st, plan(t, "g"), nil); err != nil { // every unit's attempt 0 stored
			t.Fatal(err)
		}
		now := time.Now()
		at := func(id string, repeat, attempt int) store.Attempt {
			return store.Attempt{Verdict: verdict.Verdict{CaseID: id, Repeat: repeat, Attempt: attempt, Status: verdict.OK,
				Label: "vul", CWE: []string{"CWE-787"}, Explanation: "group " + id}, Started: now, Finished: now}
		}
		group := []store.Attempt{at("demo-01-vul", 1, 1), at("demo-01-vul", 0, 0), at("demo-01-ben", 0, 1)}
		errs := queue.GroupCommit(st, "g", group)
		if !errors.Is(errs[1], store.ErrExists) || errs[0] != nil || errs[2] != nil {
			t.Fatalf("errors %v, want only the second to be store.ErrExists", errs)
		}
		for _, u := range []struct {
			id            string
			repeat, count int
		}{{"demo-01-vul", 1, 2}, {"demo-01-vul", 0, 1}, {"demo-01-ben", 0, 2}} {
			vs, err := st.Attempts(ctx, "g", u.id, u.repeat)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, v := range vs {
				got = append(got, v.Attempt)
			}
			want := []int{0, 1}[:u.count]
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("attempts of %s repeat %d (-want +got):\n%s", u.id, u.repeat, diff)
			}
		}
	})
}
