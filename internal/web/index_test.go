package web

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// The index's filters, sorts and pages against a brute-force count over the synthetic store.
func TestIndexQueries(t *testing.T) {
	ctx := context.Background()
	const n = 1000
	a, err := buildIndex(ctx, synthetic{n: n, flip: 3}, "a")
	if err != nil {
		t.Fatal(err)
	}
	o, err := buildIndex(ctx, synthetic{n: n, flip: 7}, "b")
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
