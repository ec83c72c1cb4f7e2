package store_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// The viewer's reads: case rows without their JSON, in suite order; CWEs by CWE and case; the
// attempt count that keys its cache.
func TestViewerReads(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		newRun(t, st, "r1")
		cases := []suite.Case{
			{ID: "z", Kind: suite.KindFunction, Label: suite.Vul, Pair: "p", Language: "c", CWE: []string{"CWE-787", "CWE-119"}},
			{ID: "a", Kind: suite.KindFunction, Label: suite.Ben, Pair: "p", Language: "c", CWE: []string{"CWE-787"}},
			{ID: "m", Kind: suite.KindJIT, Label: suite.Vul},
		}
		if err := st.PutCases(ctx, "r1", 0, cases); err != nil {
			t.Fatal(err)
		}
		var rows []store.CaseRow
		if err := st.CaseRows(ctx, "r1", func(r store.CaseRow) error { rows = append(rows, r); return nil }); err != nil {
			t.Fatal(err)
		}
		want := []store.CaseRow{
			{0, "z", suite.KindFunction, suite.Vul, "p", "c"},
			{1, "a", suite.KindFunction, suite.Ben, "p", "c"},
			{2, "m", suite.KindJIT, suite.Vul, "", ""},
		}
		if d := cmp.Diff(want, rows); d != "" {
			t.Errorf("case rows (-want +got):\n%s", d)
		}
		var cwes [][2]string
		if err := st.CaseCWEs(ctx, "r1", func(id, cwe string) error { cwes = append(cwes, [2]string{id, cwe}); return nil }); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([][2]string{{"z", "CWE-119"}, {"a", "CWE-787"}, {"z", "CWE-787"}}, cwes); d != "" {
			t.Errorf("case CWEs (-want +got):\n%s", d)
		}
		if n, err := st.AttemptCount(ctx, "r1"); err != nil || n != 0 {
			t.Errorf("AttemptCount before any = %d, %v; want 0", n, err)
		}
		if err := st.PutAttempts(ctx, "r1", []store.Attempt{
			attempt("z", 0, 0, verdict.Error, 0), attempt("z", 0, 1, verdict.OK, 0), attempt("a", 0, 0, verdict.OK, 0),
		}); err != nil {
			t.Fatal(err)
		}
		if n, err := st.AttemptCount(ctx, "r1"); err != nil || n != 3 {
			t.Errorf("AttemptCount = %d, %v; want 3 (errors count)", n, err)
		}
	})
}
