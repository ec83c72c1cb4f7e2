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
	tr, err := report.StoredTruth(context.Background(), cs, &store.Run{ID: "r"}, keep, nil)
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

// A truth numbers pairs in the order of their ids (cases without a pair get 0) and shares one
// Meta among the cases with the same CWE list and project.
func TestTruthPairsAndMeta(t *testing.T) {
	type c struct{ id, pair, project, cwe string }
	in := []c{{"a", "p9", "x", "CWE-787"}, {"b", "p10", "x", "CWE-787"}, {"c", "p9", "y", "CWE-787"},
		{"d", "", "", ""}, {"e", "p10", "x", "CWE-20"}, {"f", "q", "x", "CWE-787"}}
	cs := &caseStore{cases: map[string][]suite.Case{"r": nil}}
	for _, x := range in {
		sc := suite.Case{ID: x.id, Kind: suite.KindFunction, Label: suite.Vul, Code: "x", Pair: x.pair, Project: x.project}
		if x.cwe != "" {
			sc.CWE = []string{x.cwe}
		}
		cs.cases["r"] = append(cs.cases["r"], sc)
	}
	tr, err := report.StoredTruth(context.Background(), cs, &store.Run{ID: "r"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []int32
	for i := range tr.Cases {
		pairs = append(pairs, tr.Cases[i].Pair)
	}
	// p10 < p9 < q as bytes
	if diff := cmp.Diff([]int32{2, 1, 2, 0, 1, 3}, pairs); diff != "" {
		t.Errorf("pair numbers (-want +got):\n%s", diff)
	}
	m := tr.Cases
	if m[0].Meta != m[1].Meta || m[0].Meta == m[2].Meta || m[0].Meta == m[4].Meta || m[3].Meta != nil {
		t.Errorf("metas not shared as CWE list and project are: %p %p %p %p %p", m[0].Meta, m[1].Meta, m[2].Meta, m[3].Meta, m[4].Meta)
	}
	if m[2].Project() != "y" || m[4].CWE()[0] != "CWE-20" || m[3].Project() != "" || m[3].CWE() != nil {
		t.Errorf("meta read back wrong: %q %v %q %v", m[2].Project(), m[4].CWE(), m[3].Project(), m[3].CWE())
	}
}

// A suite in id order keeps no id index: Find searches the cases, the last of a duplicate id
// counting as in any other order.
func TestTruthFindSorted(t *testing.T) {
	cs := &caseStore{cases: map[string][]suite.Case{"r": nil}}
	for _, id := range []string{"a", "b", "b", "c"} {
		cs.cases["r"] = append(cs.cases["r"], suite.Case{ID: id, Kind: suite.KindFunction, Label: suite.Vul, Code: "x"})
	}
	tr, err := report.StoredTruth(context.Background(), cs, &store.Run{ID: "r"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, id := range []string{"a", "b", "c", "0", "bb", "d"} {
		if i, ok, _ := tr.Find(id); ok {
			got[id] = i
		}
	}
	if diff := cmp.Diff(map[string]int{"a": 0, "b": 2, "c": 3}, got); diff != "" {
		t.Errorf("Find (-want +got):\n%s", diff)
	}
}
