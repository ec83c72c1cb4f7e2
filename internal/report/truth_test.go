package report_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Find looks ids up in a sorted index, not a map: cases out of id order, a duplicate id (the last
// one read counts, as it always did) and a case keep left out.
func TestTruthFind(t *testing.T) {
	ids := []string{"m", "b", "zz", "a", "b", "out", "c10", "c9"}
	cs := &caseStore{cases: map[string][]suite.Case{"r": nil}}
	for _, id := range ids {
		cs.cases["r"] = append(cs.cases["r"], suite.Case{ID: id, Kind: suite.KindFunction, Label: suite.Vul, Code: "x"})
	}
	keep := func(c *suite.Case) bool { return c.ID != "out" }
	tr, err := report.StoredTruth(context.Background(), cs, &store.Run{ID: "r"}, keep)
	if err != nil {
		t.Fatal(err)
	}
	type found struct {
		I            int
		OK, Excluded bool
	}
	got := map[string]found{}
	for _, id := range append(ids, "", "0", "b0", "zzz") {
		i, ok, ex := tr.Find(id)
		got[id] = found{i, ok, ex}
	}
	want := map[string]found{
		"m": {0, true, false}, "b": {4, true, false}, "zz": {2, true, false}, "a": {3, true, false},
		"out": {0, false, true}, "c10": {5, true, false}, "c9": {6, true, false},
		"": {}, "0": {}, "b0": {}, "zzz": {},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Find (-want +got):\n%s", diff)
	}
	for id, f := range want {
		if f.OK && tr.Cases[f.I].ID != id {
			t.Errorf("Cases[%d] is %s, want %s", f.I, tr.Cases[f.I].ID, id)
		}
	}
}
