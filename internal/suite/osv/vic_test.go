package osv_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/output/formats"
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
	// The headline over records (issue 35 item 4): OSV-2024-10 (exact) and OSV-2024-4 (inside
	// its range) agree, OSV-2024-1 and OSV-2024-11 do not; every denominator named.
	h := st.Headline
	h.Text = ""
	wantH := osv.VICHeadline{Agree: 2, Comparable: 4, Share: 0.5, Records: 11, Checked: 10, HarnessOnly: 1, WithPairs: 4, CI: h.CI}
	if d := cmp.Diff(wantH, h); d != "" {
		t.Errorf("headline (-want +got):\n%s", d)
	}
	if !strings.HasPrefix(st.Headline.Text, "the rule agrees with bisection on 2 of 4 comparable records (50.0 %, 95 % CI [15.0, 85.0]); of 11 records with a bisected introducing commit, 10 checked") {
		t.Errorf("headline text: %s", st.Headline.Text)
	}
	for _, format := range []string{"text", "md", "json"} {
		var b strings.Builder
		if err := formats.All().Present(&b, format, st); err != nil {
			t.Fatal(err)
		}
		want := "the rule agrees with bisection on 2 of 4 comparable records (50.0 %, 95 % CI [15.0, 85.0])"
		if format == "json" {
			want = `"headline": {
    "agree": 2,
    "comparable": 4,
    "share": 0.5,
    "ci95": [
      0.1500`
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s output lacks the headline %q:\n%s", format, want, b.String())
		}
	}
}

// A record bisected to a range is placed against the range's nearest end (issue 35 item 4):
// a rule commit before the range by the commits up to its first one, after it by those from its
// last; a range bisection left open ("unknown:B") compares with nothing before B.
func TestStudyRangeDistances(t *testing.T) {
	fx, c := hopFixture(t)
	adv := filepath.Join(t.TempDir(), "adv")
	rec := func(id, fix, frame, introRange string) string {
		return fmt.Sprintf(`{"id":%q,"published":"2024-06-01T00:00:00Z","details":%q,"affected":[{"package":{"name":"hops","ecosystem":"OSS-Fuzz"},
"ranges":[{"type":"GIT","repo":"https://example.com/acme/hops","events":[{"introduced":%q},{"fixed":%q}]}],"ecosystem_specific":{"introduced_range":%q}}]}`,
			id, "```\nCrash type: Heap-buffer-overflow READ 1\nCrash state:\n"+frame+"\n```\n", strings.Split(introRange, ":")[1], fix, introRange)
	}
	gittest.WriteFiles(t, adv, map[string]string{
		// unrelated's f_vul was written at base (commit 1); bisected to decode_block..copy_out (3..5]
		"V-1.json": rec("V-1", c["unrelated"], "unrelated", c["decode_block"]+":"+c["copy_out"]),
		// u1 changes unrelated again: its f_vul was written at commit 4, after the range (1..2]
		"V-2.json": rec("V-2", c["u1"], "unrelated", c["base"]+":"+c["parse_chunk"]),
		// copy_out's f_vul is base's, before the end of an open range
		"V-3.json": rec("V-3", c["copy_out"], "copy_out", "unknown:"+c["decode_block"]),
	})
	db, err := advisory.Open(adv)
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
	got := map[string][]osv.VICPair{}
	for _, r := range st.Records {
		got[r.ID] = r.Pairs
	}
	want := map[string][]osv.VICPair{
		"V-1": {{Function: "unrelated", Rule: c["base"], Stop: "file added", Outcome: osv.VICEarlier, Distance: 3}},
		"V-2": {{Function: "unrelated", Rule: c["unrelated"], Stop: "text first appears", Outcome: osv.VICLater, Distance: 2}},
		"V-3": {{Function: "copy_out", Rule: c["base"], Stop: "file added", Outcome: osv.VICOpen}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pairs (-want +got):\n%s", d)
	}
	if h := st.Headline; h.Agree != 0 || h.Comparable != 2 || h.NotComparable != 1 || h.WithPairs != 3 {
		t.Errorf("headline %+v", h)
	}
}
