package store_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// A fact learnt about a stored case goes into its meta, the rest of it as it was.
func TestSetCaseMeta(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		newRun(t, st, "r1")
		cs := []suite.Case{
			{ID: "a", Kind: suite.KindJIT, Label: suite.Vul, Pair: "p", Code: "int f();", Meta: map[string]any{"summary": "s"}},
			{ID: "b", Kind: suite.KindJIT, Label: suite.Ben, Pair: "p"},
		}
		if err := st.PutCases(ctx, "r1", 0, cs); err != nil {
			t.Fatal(err)
		}
		for id, size := range map[string]int64{"a": 1234, "b": 99} {
			if err := st.SetCaseMeta(ctx, "r1", id, "repo_size", size); err != nil {
				t.Fatal(err)
			}
		}
		var got []suite.Case
		if err := st.Cases(ctx, "r1", func(c *suite.Case) error { got = append(got, *c); return nil }); err != nil {
			t.Fatal(err)
		}
		cs[0].Meta = map[string]any{"summary": "s", "repo_size": float64(1234)}
		cs[1].Meta = map[string]any{"repo_size": float64(99)}
		if d := cmp.Diff(cs, got); d != "" {
			t.Errorf("cases (-want +got):\n%s", d)
		}
		if err := st.SetCaseMeta(ctx, "r1", "nope", "repo_size", 1); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("an unknown case: %v", err)
		}
	})
}
