package label_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/label"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
)

var ctx = context.Background()

// minedSuite writes n unlabelled vex cases, as suite mine vex writes them.
func minedSuite(t *testing.T, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mined.jsonl")
	var b bytes.Buffer
	w := suite.NewWriter(&b)
	for i := 0; i < n; i++ {
		c := &suite.Case{ID: "acme-app-000000" + string(rune('a'+i)) + "-CVE-2024-9001", Kind: suite.KindVEX, CVE: "CVE-2024-9001",
			Repo: &suite.Repo{URL: "https://github.com/acme/app", Commit: "0000000000000000000000000000000000000000"},
			VEX:  &suite.VEX{Package: "example.com/parser", Ecosystem: "Go", Advisory: "GO-2024-9001"},
			Meta: map[string]any{"mined": map[string]any{"fix_commit": "1111111111111111111111111111111111111111"}}}
		if err := w.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "vb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func vex(cat string, alts ...string) label.Answer {
	return label.Answer{Category: cat, Alternatives: alts, Confidence: 4}
}

// A project over six mined cases: two calibration cases for all three annotators, four with an
// overlap of two, balanced; the calibration comes first; only assigned cases, complete answers
// and the latest row are accepted; disagreements are adjudicated with a reason; the export
// carries the settled category, the alternatives and meta.annotation.
func TestProject(t *testing.T) {
	st := openStore(t)
	path := minedSuite(t, 6)
	db, err := advisory.Open(filepath.Join("testdata", "advisories"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	links, problems, err := label.Init(ctx, st, label.Spec{ID: "p1", SuitePath: path, Annotators: []string{"ann", "bo", "cy"},
		Adjudicators: []string{"dee"}, Overlap: 2, Calibration: 2, Seed: 1, Advisories: db})
	if err != nil || problems != nil {
		t.Fatal(err, problems)
	}
	if len(links) != 4 || !links[3].Adjudicator || len(links[0].Token) < 40 {
		t.Fatalf("links %+v", links)
	}
	if a, err := label.Authenticate(ctx, st, "p1", links[1].Token); err != nil || a.Name != "bo" {
		t.Errorf("bo's link: %+v, %v", a, err)
	}
	if _, err := label.Authenticate(ctx, st, "p1", links[1].Token+"x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a wrong secret: %v", err)
	}
	p, err := label.Load(ctx, st, "p1")
	if err != nil {
		t.Fatal(err)
	}
	var cal, assigned []string
	load := map[string]int{}
	for _, c := range p.Cases {
		if c.Calibration {
			cal = append(cal, c.ID)
			if len(c.Assigned) != 3 {
				t.Errorf("calibration case %s assigned to %v", c.ID, c.Assigned)
			}
			continue
		}
		assigned = append(assigned, c.ID)
		for _, a := range c.Assigned {
			load[a]++
		}
		if len(c.Assigned) != 2 {
			t.Errorf("case %s assigned to %v, want 2 annotators", c.ID, c.Assigned)
		}
	}
	if len(cal) != 2 || len(assigned) != 4 || load["ann"] < 2 || load["bo"] < 2 || load["cy"] < 2 || load["dee"] != 0 {
		t.Fatalf("calibration %v, assigned %v, load %v", cal, assigned, load)
	}
	if got := p.Cases[0].Context.Advisories; len(got) != 1 || got[0].ID != "GO-2024-9001" || got[0].Affected[0].Ranges[0] != "SEMVER: introduced 0, fixed 1.3.0" {
		t.Errorf("context: %+v", got)
	}

	// Calibration first.
	first := p.Queue("ann")
	if !first[0].Calibration || !first[1].Calibration || first[2].Calibration {
		t.Errorf("ann's queue does not start with the calibration set")
	}
	if _, err := p.Submit(ctx, st, "ann", first[2].ID, vex("code_not_reachable"), 0, "cli"); !errors.Is(err, label.ErrCalibration) {
		t.Errorf("a case before the calibration: %v", err)
	}
	var other string
	for _, c := range p.Cases {
		if !c.Calibration && !c.IsAssigned("ann") {
			other = c.ID
		}
	}
	if _, err := p.Submit(ctx, st, "ann", other, vex("vulnerable"), 0, "cli"); !errors.Is(err, label.ErrNotAssigned) {
		t.Errorf("another's case: %v", err)
	}
	if _, err := p.Submit(ctx, st, "ann", cal[0], label.Answer{Category: "vulnerable", Status: label.NotExploitable}, 0, "cli"); !errors.Is(err, label.ErrInvalid) {
		t.Errorf("a status contradicting the category: %v", err)
	}
	if _, err := p.Submit(ctx, st, "ann", cal[0], label.Answer{Category: "code_not_reachable", Alternatives: []string{"code_not_reachable"}}, 0, "cli"); !errors.Is(err, label.ErrInvalid) {
		t.Errorf("the category as its own alternative: %v", err)
	}
	// Everyone labels the calibration cases; ann revises hers.
	submit := func(who, id string, a label.Answer, prev int64) label.Row {
		t.Helper()
		r, err := p.Submit(ctx, st, who, id, a, prev, "cli")
		if err != nil {
			t.Fatalf("%s labels %s: %v", who, id, err)
		}
		return r
	}
	r := submit("ann", cal[0], vex("vulnerable"), 0)
	submit("bo", cal[0], vex("code_not_reachable", "requires_configuration"), 0)
	submit("cy", cal[0], vex("code_not_reachable"), 0)
	submit("ann", cal[0], vex("code_not_reachable"), r.ID)
	if _, err := p.Submit(ctx, st, "ann", cal[0], vex("vulnerable"), r.ID, "cli"); !errors.Is(err, store.ErrConflict) {
		t.Errorf("a form older than the latest label: %v", err)
	}
	for _, who := range []string{"ann", "bo", "cy"} {
		submit(who, cal[1], vex("vulnerable"), 0)
	}
	if !p.CalibrationComplete() {
		t.Fatal("calibration not complete")
	}
	// The assigned cases: the first pair agrees, the others disagree.
	for i, id := range assigned {
		c := p.Case(id)
		cats := []string{"code_not_present", "code_not_present"}
		if i > 0 {
			cats = []string{"code_not_reachable", "requires_environment"}
		}
		for j, who := range c.Assigned {
			submit(who, id, vex(cats[j]), 0)
		}
	}
	if got := len(p.Disagreements(false)); got != 3 {
		t.Errorf("%d disagreements, want 3", got)
	}
	if _, err := p.Adjudicate(ctx, st, "ann", assigned[1], label.Answer{Category: "code_not_reachable", Reason: "x"}, 0, "cli"); !errors.Is(err, label.ErrNotAdjudicator) {
		t.Errorf("an annotator adjudicating: %v", err)
	}
	if _, err := p.Adjudicate(ctx, st, "dee", assigned[1], label.Answer{Category: "code_not_reachable"}, 0, "cli"); !errors.Is(err, label.ErrInvalid) {
		t.Errorf("an adjudication without a reason: %v", err)
	}
	if _, err := p.Adjudicate(ctx, st, "dee", assigned[1], label.Answer{Category: "code_not_reachable", Alternatives: []string{"requires_environment"},
		Reason: "the parser is imported but no path reaches Parse"}, 0, "viewer"); err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	if _, err := p.Export(&out, false); err == nil || !strings.Contains(err.Error(), "2 of 6 cases are not settled") {
		t.Errorf("export with disagreements: %v", err)
	}
	out.Reset()
	rep, err := p.Export(&out, true)
	if err != nil || rep.Written != 4 {
		t.Fatalf("partial export: %+v, %v", rep, err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		c, err := suite.DecodeCase([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Check(); err != nil {
			t.Errorf("exported case: %v", err)
		}
		ann := c.Meta["annotation"].(map[string]any)
		got[c.ID] = string(c.Label) + " " + c.VEX.Category + " " + strings.Join(c.VEX.Alternatives, ",") + " " + ann["settled"].(string)
	}
	want := map[string]string{
		cal[0]:      "ben code_not_reachable requires_configuration unanimous",
		cal[1]:      "vul vulnerable  unanimous",
		assigned[0]: "ben code_not_present  unanimous",
		assigned[1]: "ben code_not_reachable requires_environment adjudicated",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("exported (-want +got):\n%s", diff)
	}

	// The report: initial labels (ann's first was vulnerable on cal[0]) against current ones.
	report := p.BuildReport()
	if report.CalibrationAgreement == nil || report.Initial.Cases != 6 || report.Revised != 1 {
		t.Errorf("report: calibration %v, initial over %d cases, %d revised", report.CalibrationAgreement, report.Initial.Cases, report.Revised)
	}
	// First labels of the four settled cases: cal[0] 2 of 3 (ann's first was vulnerable),
	// cal[1] 3 of 3, assigned[0] 2 of 2, assigned[1] 1 of 2 (the adjudicated category's).
	if diff := cmp.Diff(label.Share{Count: 8, Of: 10, Share: 0.8}, report.Confirmed); diff != "" {
		t.Errorf("confirmed without revision (-want +got):\n%s", diff)
	}
	if report.Settled[label.SettledDisagreed] != 2 || report.Settled[label.SettledAdjudicated] != 1 {
		t.Errorf("settled %v", report.Settled)
	}
	var md bytes.Buffer
	if err := report.WriteMarkdown(&md); err != nil || !strings.Contains(md.String(), "8 of 10 first labels confirmed without revision (80.0 %)") {
		t.Errorf("markdown: %v\n%s", err, md.String())
	}

	// Every row, the revision naming the row it revised; read again, the same rows.
	var rows bytes.Buffer
	if err := p.WriteRows(&rows); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(rows.String(), "\n"); n != len(p.Rows) || !strings.Contains(rows.String(), `"previous":`+strconv.FormatInt(r.ID, 10)) {
		t.Errorf("%d rows written of %d; revision of %d:\n%s", n, len(p.Rows), r.ID, rows.String())
	}
	again, err := label.Load(ctx, st, "p1")
	if err != nil || len(again.Rows) != len(p.Rows) {
		t.Fatalf("reloaded: %d rows, %v", len(again.Rows), err)
	}
}

// Labels made elsewhere come in through the viewer's checks: one bad line and nothing is
// written; the rows label export --rows writes come back in as they were.
func TestImport(t *testing.T) {
	st := openStore(t)
	path := minedSuite(t, 3)
	if _, _, err := label.Init(ctx, st, label.Spec{ID: "p", SuitePath: path, Annotators: []string{"ann", "bo"}, Adjudicators: []string{"bo"}, Overlap: 2}); err != nil {
		t.Fatal(err)
	}
	p, err := label.Load(ctx, st, "p")
	if err != nil {
		t.Fatal(err)
	}
	c0, c1 := p.Cases[0].ID, p.Cases[1].ID
	bad := `{"case":"` + c0 + `","annotator":"ann","answer":{"category":"code_not_reachable","evidence":[{"file":"go.mod","line":5}]}}
{"case":"` + c1 + `","annotator":"ann","answer":{"category":"nonsense"}}
{"case":"nope","annotator":"ann","answer":{"category":"vulnerable"}}
{"case":"` + c1 + `","annotator":"zed","answer":{"category":"vulnerable"}}
{"case":"` + c1 + `","annotator":"ann","kind":"adjudication","answer":{"category":"vulnerable","reason":"r"}}
{"case":"` + c1 + `","annotator":"ann","answer":{"category":"vulnerable"},"extra":1}
`
	n, problems, err := p.Import(ctx, st, strings.NewReader(bad), "rows.jsonl", nil)
	var msgs []string
	for _, e := range problems {
		msgs = append(msgs, e.Error())
	}
	want := []string{
		`rows.jsonl:2: the label is not complete: category "nonsense" is not one of VEX-Bench's twelve`,
		`rows.jsonl:3: case "nope" is not in project p`,
		`rows.jsonl:4: annotator "zed" is not in project p`,
		`rows.jsonl:5: ann: only an adjudicator adjudicates`,
		`rows.jsonl:6: invalid label row: unknown field "extra"`,
	}
	if diff := cmp.Diff(want, msgs); err != nil || n != 0 || diff != "" {
		t.Errorf("bad import: %d rows, %v (-want +got):\n%s", n, err, diff)
	}
	if rows, _ := st.LabelRows(ctx, "p"); len(rows) != 0 {
		t.Errorf("%d rows written by a refused import", len(rows))
	}
	good := `{"case":"` + c0 + `","annotator":"ann","answer":{"category":"code_not_reachable","confidence":3,"evidence":[{"file":"go.mod","line":5,"text":"require example.com/parser v1.2.0"}]}}
{"case":"` + c0 + `","annotator":"bo","answer":{"category":"vulnerable"}}
{"case":"` + c0 + `","annotator":"bo","kind":"adjudication","answer":{"category":"code_not_reachable","reason":"no call of Parse"}}
`
	if n, problems, err := p.Import(ctx, st, strings.NewReader(good), "rows.jsonl", nil); n != 3 || problems != nil || err != nil {
		t.Fatalf("import: %d, %v, %v", n, problems, err)
	}
	var rows bytes.Buffer
	if err := p.WriteRows(&rows); err != nil {
		t.Fatal(err)
	}
	// The written rows go back into a second project over the same suite, checked again.
	if _, _, err := label.Init(ctx, st, label.Spec{ID: "q", SuitePath: path, Annotators: []string{"ann", "bo"}, Adjudicators: []string{"bo"}, Overlap: 2}); err != nil {
		t.Fatal(err)
	}
	q, err := label.Load(ctx, st, "q")
	if err != nil {
		t.Fatal(err)
	}
	if n, problems, err := q.Import(ctx, st, bytes.NewReader(rows.Bytes()), "p-rows.jsonl", nil); n != 3 || problems != nil || err != nil {
		t.Fatalf("re-import: %d, %v, %v", n, problems, err)
	}
	res := q.Resolve(q.Case(c0))
	if res.Settled != label.SettledAdjudicated || res.Value != "code_not_reachable" || res.Labels["ann"].Evidence[0].Text != "require example.com/parser v1.2.0" {
		t.Errorf("re-imported: %+v", res)
	}
}

// Audit mode (PrimeVul's Table I): a sample of a labelled suite, every annotator judging each
// ground truth; the accuracy of the settled judgements with its Wilson interval.
func TestAudit(t *testing.T) {
	st := openStore(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var b bytes.Buffer
	w := suite.NewWriter(&b)
	for i := 0; i < 10; i++ {
		w.Write(&suite.Case{ID: "f" + strconv.Itoa(i), Kind: suite.KindFunction, Label: suite.Vul, Code: "int f(void) { return 0; }"})
	}
	w.Flush()
	os.WriteFile(path, b.Bytes(), 0o644)
	if _, _, err := label.Init(ctx, st, label.Spec{ID: "a", SuitePath: path, Annotators: []string{"x", "y", "z"}, Audit: 5, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	p, err := label.Load(ctx, st, "a")
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != label.ModeAudit || len(p.Cases) != 5 || len(p.Cases[0].Assigned) != 3 {
		t.Fatalf("audit of %d cases, %v", len(p.Cases), p.Cases[0].Assigned)
	}
	if _, err := p.Submit(ctx, st, "x", p.Cases[0].ID, label.Answer{Category: "vulnerable"}, 0, "cli"); !errors.Is(err, label.ErrInvalid) {
		t.Errorf("a category in an audit: %v", err)
	}
	// Judgements: cases 0-2 right by all; case 3 wrong by two (ben), right by one; case 4 split.
	plan := [][3]string{{"right", "right", "right"}, {"right", "right", "right"}, {"right", "right", "right"}, {"wrong", "wrong", "right"}, {"right", "wrong", "unsure"}}
	for i, js := range plan {
		for j, who := range []string{"x", "y", "z"} {
			a := label.Answer{Judgement: js[j]}
			if js[j] == "wrong" {
				a.Correct = "ben"
			}
			if _, err := p.Submit(ctx, st, who, p.Cases[i].ID, a, 0, "cli"); err != nil {
				t.Fatal(err)
			}
		}
	}
	f := p.BuildReport().Audit
	// Settled: 3 right (unanimous), 1 wrong (majority, correct ben), 1 unsettled: accuracy 3/4.
	if f.Right != 3 || f.Wrong != 1 || f.Unsettled != 1 || f.Accuracy != 0.75 || f.CI != label.Wilson(3, 4) || f.Corrections["ben"] != 1 {
		t.Errorf("audit figures %+v", f)
	}
	var out bytes.Buffer
	if _, err := p.Export(&out, true); err != nil || !strings.Contains(out.String(), `"judgement":"wrong","correct":"ben"`) {
		t.Errorf("audit export: %v\n%s", err, out.String())
	}
}
