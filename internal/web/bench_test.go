package web

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// synthetic is an index store of n paired cases over 10 CWEs, answered by a pattern.
type synthetic struct {
	n    int
	flip int // the answer changes on every flip-th case
	// go, when positive, is the one case in Go (the others are C); cweOff shifts the CWEs.
	goCase, cweOff int
}

func (s synthetic) id(i int) string { return fmt.Sprintf("case-%07d", i) }

func (s synthetic) CaseRows(_ context.Context, _ string, fn func(store.CaseRow) error) error {
	for i := range s.n {
		l := suite.Vul
		if i%2 == 1 {
			l = suite.Ben
		}
		lang := "c"
		if i == s.goCase && i > 0 {
			lang = "go"
		}
		if err := fn(store.CaseRow{Ordinal: i, ID: s.id(i), Kind: suite.KindFunction, Label: l, Pair: fmt.Sprint("p", i/2), Language: lang}); err != nil {
			return err
		}
	}
	return nil
}

func (s synthetic) CaseCWEs(_ context.Context, _ string, fn func(string, string) error) error {
	for w := range 10 {
		for i := w; i < s.n; i += 10 {
			if err := fn(s.id(i), fmt.Sprintf("CWE-%d", 100+(w+s.cweOff)%10)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s synthetic) Labels(_ context.Context, _ string, fn func(verdict.Verdict) error) error {
	for i := range s.n { // ids are zero-padded: suite order is id order
		l := suite.Vul
		if (i/s.flip)%2 == 1 {
			l = suite.Ben
		}
		if err := fn(verdict.Verdict{CaseID: s.id(i), Status: verdict.OK, Label: l}); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkCasesPage times one cases page over a million cases: filtered, sorted and
// flipped against a second run, as the viewer answers it once the indexes exist; and the
// index's memory.
func BenchmarkCasesPage(b *testing.B) {
	ctx := context.Background()
	const n = 1_000_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	a, err := buildIndex(ctx, synthetic{n: n, flip: 3}, "a", nil)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	o, err := buildIndex(ctx, synthetic{n: n, flip: 7}, "b", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("the index of %d cases holds %.1f MiB", n, float64(after.HeapAlloc-before.HeapAlloc)/(1<<20))
	a.order("outcome")
	for _, tc := range []struct {
		name string
		f    filter
	}{
		{"all", filter{lang: -1, limit: 50}},
		{"deep page", filter{lang: -1, limit: 50, offset: 900_000}},
		{"label+cwe", filter{label: labVul + 1, cwe: "CWE-104", lang: -1, limit: 50}},
		{"sorted by outcome, desc", filter{lang: -1, sort: "outcome", desc: true, limit: 50}},
		{"flipped", filter{lang: -1, flip: o, limit: 50}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				f := tc.f
				if page, total := a.query(&f); len(page) == 0 || total == 0 {
					b.Fatalf("%s: %d rows of %d", tc.name, len(page), total)
				}
			}
		})
	}
}
