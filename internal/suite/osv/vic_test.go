package osv_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/osv"
)

func TestStudy(t *testing.T) {
	fx := newFixture(t)
	db, err := advisory.Open(fx.advisories)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := osv.NewBuilder(osv.Options{Kind: suite.KindJIT})
	defer b.Close()
	st, problems, err := b.Study(context.Background(), db, fx.repos)
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	c := fx.c
	type rec struct {
		Checked, HarnessOnly bool
		Why                  string
		Pairs                []osv.VICPair
	}
	got := map[string]rec{}
	for _, r := range st.Records {
		got[r.ID] = rec{r.Checked, r.HarnessOnly, r.Why, r.Pairs}
	}
	want := map[string]rec{
		// bisected c0, the rule's commit cIntro (where decode's f_vul text first appears): later by one commit
		"OSV-2024-1": {Checked: true, Pairs: []osv.VICPair{{Function: "decode", Rule: c["cIntro"], Stop: "text first appears", Outcome: osv.VICLater, Distance: 1}}},
		// f3 never changed before the fix: the rule stops at the file's creation, c0, the bisected commit
		"OSV-2024-10": {Checked: true, Pairs: []osv.VICPair{{Function: "f3", Rule: c["c0"], Stop: "file added", Outcome: osv.VICExact}}},
		// bisected cIntro, the rule's c0: earlier by one commit
		"OSV-2024-11": {Checked: true, Pairs: []osv.VICPair{{Function: "f4", Rule: c["c0"], Stop: "file added", Outcome: osv.VICEarlier, Distance: 1}}},
		// bisected at a commit that only touched the harness and a test: counted apart, not compared
		"OSV-2024-12": {Checked: true, HarnessOnly: true},
		"OSV-2024-2":  {Checked: true}, // a duplicate: no jit case of its own
		"OSV-2024-3":  {Checked: true},
		// bisected to the range c0..cCrash; the rule's cCrash is inside it
		"OSV-2024-4": {Checked: true, Pairs: []osv.VICPair{{Function: "parse_header", Rule: c["cCrash"], Stop: "text first appears", Outcome: osv.VICInRange}}},
		"OSV-2024-5": {Checked: true},
		"OSV-2024-7": {Why: "repository missing"},
		"OSV-2024-8": {Checked: true},
		"OSV-2024-9": {Checked: true},
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	wantTotal := osv.VICRow{Project: "all", Records: 11, Checked: 10, HarnessOnly: 1, Compared: 4, Exact: 1, Earlier: 1, Later: 1, InRange: 1,
		EarlierMedian: 1, LaterMedian: 1}
	if d := cmp.Diff(wantTotal, st.Total, cmpopts.IgnoreUnexported(osv.VICRow{})); d != "" {
		t.Errorf("total (-want +got):\n%s", d)
	}
	if len(st.Projects) != 1 || st.Projects[0].Project != "acme/clib" || st.Projects[0].Records != 10 || st.Projects[0].Checked != 10 {
		t.Errorf("projects %+v", st.Projects)
	}
	if st.Unchecked.Project != "(1 projects not checked)" || st.Unchecked.Records != 1 {
		t.Errorf("unchecked %+v", st.Unchecked)
	}
}
