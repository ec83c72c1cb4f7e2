package web

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The index's filters, sorts and pages against a brute-force count over the synthetic store.
func TestIndexQueries(t *testing.T) {
	ctx := context.Background()
	const n = 1000
	a, err := buildIndex(ctx, synthetic{n: n, flip: 3}, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := buildIndex(ctx, synthetic{n: n, flip: 7}, "b", nil)
	if err != nil {
		t.Fatal(err)
	}
	pred := func(i, flip int) uint8 { // what the synthetic run answered on case i
		if (i/flip)%2 == 1 {
			return labBen
		}
		return labVul
	}
	truth := func(i int) uint8 {
		if i%2 == 1 {
			return labBen
		}
		return labVul
	}
	for _, tc := range []struct {
		name string
		f    filter
		want func(i int) bool
	}{
		{"all", filter{lang: -1}, func(int) bool { return true }},
		{"vul", filter{label: labVul + 1, lang: -1}, func(i int) bool { return truth(i) == labVul }},
		{"tp", filter{outcome: 2, lang: -1}, func(i int) bool { return truth(i) == labVul && pred(i, 3) == labVul }},
		{"fp", filter{outcome: 3, lang: -1}, func(i int) bool { return truth(i) == labBen && pred(i, 3) == labVul }},
		{"CWE-104", filter{cwe: "CWE-104", lang: -1}, func(i int) bool { return i%10 == 4 }},
		{"flipped", filter{flip: o, lang: -1}, func(i int) bool { return (pred(i, 3) == truth(i)) != (pred(i, 7) == truth(i)) }},
		{"flipped ben CWE-101", filter{flip: o, label: labBen + 1, cwe: "CWE-101", lang: -1}, func(i int) bool {
			return truth(i) == labBen && i%10 == 1 && (pred(i, 3) == truth(i)) != (pred(i, 7) == truth(i))
		}},
	} {
		var want []uint32
		for i := range n {
			if tc.want(i) {
				want = append(want, uint32(i))
			}
		}
		for _, off := range []int{0, 7, len(want) - 1} {
			f := tc.f
			f.offset, f.limit = max(off, 0), 5
			page, total := a.query(&f)
			if total != len(want) {
				t.Errorf("%s: %d cases, want %d", tc.name, total, len(want))
			}
			end := min(f.offset+5, len(want))
			if f.offset > end {
				end = f.offset
			}
			if got, w := page, want[min(f.offset, len(want)):end]; !slices.Equal(got, w) && !(len(got) == 0 && len(w) == 0) {
				t.Errorf("%s from %d: %v, want %v", tc.name, f.offset, got, w)
			}
		}
	}
	// Sorted by id, descending: the last case first.
	f := filter{lang: -1, sort: "id", desc: true, limit: 3}
	if page, _ := a.query(&f); fmt.Sprint(page) != fmt.Sprint([]uint32{n - 1, n - 2, n - 3}) {
		t.Errorf("by id descending: %v", page)
	}
	if got := a.cwes; !slices.Equal(got, []string{"CWE-100", "CWE-101", "CWE-102", "CWE-103", "CWE-104", "CWE-105", "CWE-106", "CWE-107", "CWE-108", "CWE-109"}) {
		t.Errorf("CWEs %v", got)
	}
}

// indexView is what an index shows of its cases, for comparing two indexes.
type indexView struct {
	IDs, Langs, CWEs []string
	Labels, Status   []uint8
	ByID             []uint32
	All              []string
}

func viewOf(ix *caseIndex) indexView {
	v := indexView{All: ix.cwes, ByID: ix.byID}
	for i := range uint32(ix.n) {
		v.IDs = append(v.IDs, ix.id(i))
		v.Langs = append(v.Langs, ix.langs[ix.lang[i]])
		v.CWEs = append(v.CWEs, fmt.Sprint(ix.cweLists[ix.cwe[i]]))
		v.Labels = append(v.Labels, ix.label[i])
		v.Status = append(v.Status, ix.outcome(i))
	}
	return v
}

// A run of the same cases as an indexed one shares its case columns; a run whose cases differ
// anywhere (fewer, more, one language, the CWEs) gets its own, equal to an index built alone.
func TestIndexSharesCases(t *testing.T) {
	ctx := context.Background()
	base, err := buildIndex(ctx, synthetic{n: 1000, flip: 3}, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		st    synthetic
		share bool
	}{
		"same cases":      {synthetic{n: 1000, flip: 7}, true},
		"fewer":           {synthetic{n: 999, flip: 7}, false},
		"more":            {synthetic{n: 1001, flip: 7}, false},
		"a language":      {synthetic{n: 1000, flip: 7, goCase: 500}, false},
		"the last one":    {synthetic{n: 1000, flip: 7, goCase: 999}, false},
		"other CWEs":      {synthetic{n: 1000, flip: 7, cweOff: 1}, false},
		"CWEs and length": {synthetic{n: 10, flip: 7, cweOff: 1}, false},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := buildIndex(ctx, tc.st, "b", base.caseCols)
			if err != nil {
				t.Fatal(err)
			}
			if shared := got.caseCols == base.caseCols; shared != tc.share {
				t.Errorf("shared %v, want %v", shared, tc.share)
			}
			alone, err := buildIndex(ctx, tc.st, "b", nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(viewOf(alone), viewOf(got)); diff != "" {
				t.Errorf("index built with another run's columns (-alone +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff(viewOf(base), viewOf(mustIndex(t, synthetic{n: 1000, flip: 3}))); diff != "" {
		t.Errorf("the first index changed (-now +alone):\n%s", diff)
	}
}

func mustIndex(t *testing.T, st synthetic) *caseIndex {
	t.Helper()
	ix, err := buildIndex(context.Background(), st, "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}
