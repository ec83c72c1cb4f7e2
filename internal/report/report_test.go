package report_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

const suiteText = `{"id":"a1","kind":"function","label":"vul","pair":"a","code":"x","cwe":["CWE-787"],"date":"2024-01-01T00:00:00Z"}
{"id":"a2","kind":"function","label":"ben","pair":"a","code":"y","cwe":["CWE-787"],"date":"2024-01-01T00:00:00Z"}
{"id":"b1","kind":"function","label":"vul","pair":"b","code":"z","cwe":["CWE-476"]}
{"id":"b2","kind":"function","label":"ben","pair":"b","code":"w","cwe":["CWE-476"]}
`

// fakeStore is a Store of runs held in memory; with cases it is a CaseStore too (caseStore).
type fakeStore struct {
	runs     map[string]*store.Run
	verdicts map[string][]verdict.Verdict
}

func (f *fakeStore) GetRun(_ context.Context, id string) (*store.Run, error) {
	r, ok := f.runs[id]
	if !ok {
		return nil, store.ErrNotFound
	}
	return r, nil
}

func (f *fakeStore) Labels(_ context.Context, id string, fn func(verdict.Verdict) error) error {
	for _, v := range f.verdicts[id] {
		if err := fn(verdict.Verdict{CaseID: v.CaseID, Repeat: v.Repeat, Status: v.Status, Label: v.Label,
			Score: v.Score, ScoreSource: v.ScoreSource, Confidence: v.Confidence}); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeStore) Verdicts(_ context.Context, id string, fn func(verdict.Verdict) error) error {
	for _, v := range f.verdicts[id] {
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
}

type caseStore struct {
	*fakeStore
	cases map[string][]suite.Case
}

func (c *caseStore) Cases(_ context.Context, id string, fn func(*suite.Case) error) error {
	for i := range c.cases[id] {
		if err := fn(&c.cases[id][i]); err != nil {
			return err
		}
	}
	return nil
}

func ok(id string, l suite.Label, repeat int) verdict.Verdict {
	return verdict.Verdict{CaseID: id, Repeat: repeat, Status: verdict.OK, Label: l}
}

// setup writes the suite and returns a store of two runs of it: "good" (right on every case,
// with stated confidences, an llm run) and "twice" (two repeats of constant:vul, one verdict
// about a case the suite lacks).
func setup(t *testing.T) (dir string, st *fakeStore) {
	t.Helper()
	dir = t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(suiteText), 0o644); err != nil {
		t.Fatal(err)
	}
	hash, _, err := suite.Scan(path, nil, false, func(*suite.Case, int) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	conf := func(v verdict.Verdict, c float64) verdict.Verdict { v.Confidence = verdict.Float(c); return v }
	st = &fakeStore{
		runs: map[string]*store.Run{
			"good": {ID: "good", SuitePath: path, SuiteHash: hash, Subject: "llm", Repeats: 1,
				Manifest: json.RawMessage(`{"vulnbench_version":"v0.2.0 (abc1234)","subject":"llm","flags":{"model":"openai:m"}}`)},
			"twice": {ID: "twice", SuitePath: path, SuiteHash: hash, Subject: "constant:vul", Repeats: 2, Manifest: json.RawMessage(`{}`)},
		},
		verdicts: map[string][]verdict.Verdict{
			"good": {conf(ok("a1", suite.Vul, 0), 0.9), conf(ok("a2", suite.Ben, 0), 0.8),
				conf(ok("b1", suite.Vul, 0), 0.7), conf(ok("b2", suite.Ben, 0), 0.6)},
			"twice": {ok("a1", suite.Vul, 0), ok("a1", suite.Vul, 1), ok("a2", suite.Vul, 0), ok("a2", suite.Vul, 1),
				ok("b1", suite.Vul, 0), ok("b2", suite.Vul, 1), ok("zz", suite.Vul, 0)},
		},
	}
	return dir, st
}

type runSummary struct {
	Name, Subject, Model string
	Repeats              []int
	Agg                  bool
	F1                   float64 // of the first repeat
	Source               string
	Notes                []report.Note
}

func summarize(rep *report.Report) []runSummary {
	var out []runSummary
	for _, r := range rep.Runs {
		s := runSummary{Name: r.Name, Subject: r.Subject, Model: r.Model, Repeats: r.Repeats, Agg: r.Agg != nil,
			F1: r.Results[0].Binary.F1, Notes: r.Notes}
		if v := r.Results[0].VDS; v != nil {
			s.Source = v.Source
		}
		out = append(out, s)
	}
	return out
}

func TestBuild(t *testing.T) {
	dir, st := setup(t)
	path := filepath.Join(dir, "s.jsonl")
	preds := filepath.Join(dir, "p.jsonl")
	if err := os.WriteFile(preds, []byte(`{"case_id":"a1","label":"ben"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "d")
	os.Mkdir(sub, 0o755)
	if err := os.WriteFile(filepath.Join(sub, "p.jsonl"), []byte(`{"case_id":"a1","label":"vul"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := runSummary{Name: "good", Subject: "llm", Model: "openai:m", Repeats: []int{0}, F1: 1, Source: score.SourceStated}
	twice := runSummary{Name: "twice", Subject: "constant:vul", Repeats: []int{0, 1}, Agg: true, F1: 0.8, Source: score.SourceLabel, // repeat 0: tp a1 b1, fp a2, b2 missing
		Notes: []report.Note{{Warning: true, Text: "run twice has 1 verdicts for cases not in " + path + " (ignored)"}}}
	tests := []struct {
		name  string
		st    report.Store
		req   report.Request
		want  []runSummary
		truth string // Truth.Source
	}{
		{name: "from the manifest's suite file", st: st, req: report.Request{Runs: []string{"good", "twice"}},
			want: []runSummary{good, twice}, truth: path},
		{name: "an explicit suite", st: st, req: report.Request{Runs: []string{"good"}, Suite: path},
			want: []runSummary{good}, truth: path},
		{name: "predictions with one base name are named by path", req: report.Request{Suite: path, Predictions: []string{preds, filepath.Join(sub, "p.jsonl")}},
			want: []runSummary{
				// one verdict each, about a vul case: no VD-S (it needs a ben case too)
				{Name: preds, Subject: "predictions:" + preds, Repeats: []int{0}, F1: 0},
				{Name: filepath.Join(sub, "p.jsonl"), Subject: "predictions:" + filepath.Join(sub, "p.jsonl"), Repeats: []int{0}, F1: 1},
			}, truth: path},
		{name: "cases from the store when it keeps them", st: &caseStore{fakeStore: st, cases: map[string][]suite.Case{
			"good": {{ID: "a1", Label: suite.Vul, Pair: "a"}, {ID: "a2", Label: suite.Ben, Pair: "a"}, {ID: "b1", Label: suite.Vul}, {ID: "b2", Label: suite.Ben}}}},
			req: report.Request{Runs: []string{"good"}}, want: []runSummary{good}, truth: "run good in the store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := report.Build(context.Background(), tt.st, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summarize(rep)); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.truth, rep.Truth.Source); diff != "" {
				t.Errorf("truth source (-want +got):\n%s", diff)
			}
			if rep.Scorer != score.Version || rep.Vulnbench == "" {
				t.Errorf("scorer %d, vulnbench %q", rep.Scorer, rep.Vulnbench)
			}
		})
	}
}

func TestBuildKeep(t *testing.T) {
	_, st := setup(t)
	keep := func(c *suite.Case) bool { return c.Date != "" }
	rep, err := report.Build(context.Background(), st, report.Request{Runs: []string{"twice"}, Keep: keep})
	if err != nil {
		t.Fatal(err)
	}
	got := []int{len(rep.Truth.Cases), rep.Truth.Total, rep.Truth.Undated, rep.Runs[0].Unknown}
	// b1, b2 are undated: left out, and their verdicts ignored silently; zz is unknown.
	if diff := cmp.Diff([]int{2, 4, 2, 1}, got); diff != "" {
		t.Errorf("kept, total, undated, unknown (-want +got):\n%s", diff)
	}
}

func TestBuildErrors(t *testing.T) {
	dir, st := setup(t)
	other := filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(other, []byte(`{"id":"x","kind":"function","label":"vul","code":"q"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	moved := &fakeStore{runs: map[string]*store.Run{"m": {ID: "m", SuitePath: filepath.Join(dir, "gone.jsonl"), SuiteHash: "x"}}}
	tests := []struct {
		name string
		st   report.Store
		req  report.Request
		want string
	}{
		{"nothing", st, report.Request{}, "report: no run and no predictions file"},
		{"a run twice", st, report.Request{Runs: []string{"good", "good"}}, "report: run good is named twice"},
		{"predictions without a suite", nil, report.Request{Predictions: []string{"p.jsonl"}}, "report: predictions files need a suite file for their ground truth"},
		{"another suite", st, report.Request{Runs: []string{"good"}, Suite: other}, other + " (sha256 "},
		{"the suite file is gone", moved, report.Request{Runs: []string{"m"}}, "run m judged the suite " + filepath.Join(dir, "gone.jsonl") + ": ground truth: "},
		{"no such run", st, report.Request{Runs: []string{"nosuch"}}, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := report.Build(context.Background(), tt.st, tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	_, st := setup(t)
	rep, err := report.Build(context.Background(), st, report.Request{Runs: []string{"good", "twice"}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := rep.Compare(0, 1, score.CIOptions{Resamples: 50, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Repeat 0 of twice: a1 vul (both right), a2 vul (only good right), b1 vul (both right), b2
	// missing (left out). b = 1, c = 0: p = 1.
	got := []any{c.A, c.B, c.N, c.McNemar, len(rep.Comparisons), c.Notes}
	want := []any{"good (llm, openai:m)", "twice (constant:vul)", 4, report.McNemar{N: 3, B: 1, C: 0, PValue: 1}, 1,
		[]report.Note{{Text: "twice has 2 repeats: comparing repeat 0"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("comparison (-want +got):\n%s", diff)
	}
}

func TestVerdictsSorted(t *testing.T) {
	st := &fakeStore{verdicts: map[string][]verdict.Verdict{"r": {ok("b", suite.Vul, 1), ok("a", suite.Vul, 1), ok("b", suite.Vul, 0)}}}
	vs, err := report.Verdicts(context.Background(), st, "r")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.CaseID+string(rune('0'+v.Repeat)))
	}
	if diff := cmp.Diff([]string{"a1", "b0", "b1"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestMetrics checks the table itself: keys unique, sections known, every JSON leaf distinct.
func TestMetrics(t *testing.T) {
	sections := map[string]bool{}
	for _, s := range report.Sections() {
		sections[s.Name] = true
	}
	seen := map[string]bool{}
	for _, m := range report.Metrics() {
		k := m.CSVKey("X")
		if seen[k] {
			t.Errorf("metric %s defined twice", k)
		}
		seen[k] = true
		if !sections[m.Section] {
			t.Errorf("metric %s: unknown section %q", k, m.Section)
		}
		if m.Get == nil || m.Format == 0 {
			t.Errorf("metric %s: no getter or format", k)
		}
	}
}

// TestTiers: a run whose verdicts were matched is scored per CWE tier from the tier each
// finding records (read whole from the store, which Labels alone would not give), an unmatched
// vul answer counts at any only, and only such a run names the matcher; a run whose manifest
// names a matcher but whose verdicts never went through it has neither.
func TestTiers(t *testing.T) {
	dir, st := setup(t)
	hash := st.runs["good"].SuiteHash
	path := filepath.Join(dir, "s.jsonl")
	manifest := json.RawMessage(`{"subject":"sarif:x.sarif","subject_describe":{"matcher":1}}`)
	st.runs["m"] = &store.Run{ID: "m", SuitePath: path, SuiteHash: hash, Subject: "sarif:x.sarif", Repeats: 1, Manifest: manifest}
	st.runs["f"] = &store.Run{ID: "f", SuitePath: path, SuiteHash: hash, Subject: "cppcheck", Repeats: 1, Manifest: manifest}
	found := func(v verdict.Verdict, tier string) verdict.Verdict {
		v.Findings = []verdict.Finding{{File: "x.c", StartLine: 1, Tier: verdict.TierUnrelated}, {File: "x.c", StartLine: 2, Tier: tier}}
		return v
	}
	st.verdicts["m"] = []verdict.Verdict{
		found(ok("a1", suite.Vul, 0), verdict.TierExact),     // tp at every tier
		found(ok("a2", suite.Vul, 0), verdict.TierUnrelated), // fp at any only
		found(ok("b1", suite.Vul, 0), verdict.TierRelated),   // tp at related and any, fn at exact
		ok("b2", suite.Vul, 0),                               // not matched: fp at any only
	}
	st.verdicts["f"] = []verdict.Verdict{ok("a1", suite.Vul, 0), ok("a2", suite.Ben, 0), ok("b1", suite.Vul, 0), ok("b2", suite.Vul, 0)}
	rep, err := report.Build(context.Background(), st, report.Request{Runs: []string{"m", "f"}})
	if err != nil {
		t.Fatal(err)
	}
	type conf struct{ TP, FP, TN, FN int }
	type got struct {
		Matcher int
		Matched int
		Tiers   []conf
	}
	want := []got{
		{Matcher: 1, Matched: 3, Tiers: []conf{{TP: 1, TN: 2, FN: 1}, {TP: 2, TN: 2}, {TP: 2, FP: 2}}},
		{},
	}
	var gots []got
	for _, r := range rep.Runs {
		f, err := r.Figures()
		if err != nil {
			t.Fatal(err)
		}
		g := got{Matcher: f.Matcher}
		if len(r.Tiers) > 0 {
			g.Matched = r.Tiers[0].Matched
			for _, b := range r.Tiers[0].Binary {
				g.Tiers = append(g.Tiers, conf{b.TP, b.FP, b.TN, b.FN})
			}
		}
		if (f.Tiers != nil) != (r.Tiers != nil) {
			t.Errorf("%s: figures have tiers %v, run %v", r.Name, f.Tiers != nil, r.Tiers != nil)
		}
		gots = append(gots, g)
	}
	if d := cmp.Diff(want, gots); d != "" {
		t.Errorf("tiers (-want +got):\n%s", d)
	}
	if b := rep.Runs[0].Results[0].Binary; b.TP != 2 || b.FP != 2 {
		t.Errorf("the plain score changed: %+v", b)
	}
}

// TestUnion: of the suite's two vul cases, x and z find a1 and y finds b1 (y also says vul on a
// ben case, which finds nothing): only y adds a case of its own.
func TestUnion(t *testing.T) {
	dir, st := setup(t)
	for _, id := range []string{"x", "y", "z"} {
		st.runs[id] = &store.Run{ID: id, SuitePath: filepath.Join(dir, "s.jsonl"), SuiteHash: st.runs["good"].SuiteHash, Subject: "s-" + id, Repeats: 1, Manifest: json.RawMessage(`{}`)}
	}
	st.verdicts["x"] = []verdict.Verdict{ok("a1", suite.Vul, 0), ok("b1", suite.Ben, 0)}
	st.verdicts["y"] = []verdict.Verdict{ok("a1", suite.Ben, 0), ok("b1", suite.Vul, 0), ok("b2", suite.Vul, 0)}
	st.verdicts["z"] = []verdict.Verdict{ok("a1", suite.Vul, 0), {CaseID: "b1", Status: verdict.Error}}
	rep, err := report.Build(context.Background(), st, report.Request{Runs: []string{"x", "y", "z"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := rep.Union()
	if err != nil {
		t.Fatal(err)
	}
	want := &report.Union{Vul: 2, Found: 2, Recall: 1,
		Runs: []report.UnionRun{
			{Run: "x (s-x)", Found: 1, Recall: 0.5, OnlyCases: []string{}},
			{Run: "y (s-y)", Found: 1, Recall: 0.5, Only: 1, OnlyCases: []string{"b1"}, Marginal: 0.5},
			{Run: "z (s-z)", Found: 1, Recall: 0.5, OnlyCases: []string{}},
		},
		Pairs: []report.UnionPair{
			{A: "x", B: "y", RunA: "x (s-x)", RunB: "y (s-y)", OnlyA: 1, OnlyB: 1, Recall: 1},
			{A: "x", B: "z", RunA: "x (s-x)", RunB: "z (s-z)", Both: 1, Recall: 0.5},
			{A: "y", B: "z", RunA: "y (s-y)", RunB: "z (s-z)", OnlyA: 1, OnlyB: 1, Recall: 1},
		}}
	if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(report.Union{})); d != "" {
		t.Errorf("union (-want +got):\n%s", d)
	}
	one := report.New(rep.Truth, score.Options{}, rep.Runs[0])
	if _, err := one.Union(); err == nil {
		t.Error("a union of one run")
	}
}

// A stored run of a VEX suite is scored from the verdicts' VEX answers, which Labels does not
// carry: the report reads them whole.
func TestBuildVEXFromStore(t *testing.T) {
	cases := []suite.Case{
		{ID: "v1", Kind: suite.KindVEX, Label: suite.Vul, CVE: "CVE-2024-1", VEX: &suite.VEX{Category: "vulnerable"}},
		{ID: "v2", Kind: suite.KindVEX, Label: suite.Ben, CVE: "CVE-2024-2", VEX: &suite.VEX{Category: "code_not_reachable"}},
	}
	vex := func(id, cat string, l suite.Label) verdict.Verdict {
		v := ok(id, l, 0)
		v.VEX = &verdict.VEX{Category: cat}
		return v
	}
	st := &caseStore{fakeStore: &fakeStore{
		runs:     map[string]*store.Run{"r": {ID: "r", SuiteHash: "h", Subject: "sca", Repeats: 1, Manifest: json.RawMessage(`{}`)}},
		verdicts: map[string][]verdict.Verdict{"r": {vex("v1", "vulnerable", suite.Vul), vex("v2", "code_not_present", suite.Ben)}},
	}, cases: map[string][]suite.Case{"r": cases}}
	rep, err := report.Build(context.Background(), st, report.Request{Runs: []string{"r"}})
	if err != nil {
		t.Fatal(err)
	}
	x := rep.Runs[0].Results[0].VEX
	if x == nil {
		t.Fatal("no VEX section")
	}
	got := []float64{x.StatusF1, x.JustificationAccuracy, x.CompletionRate}
	if d := cmp.Diff([]float64{1, 0.5, 1}, got); d != "" {
		t.Errorf("status F1, justification accuracy, completion (-want +got):\n%s", d)
	}
}

// A run whose subject could not read some advisory files (its manifest's subject_describe says
// so) is scored with a warning that counts them and names the first (issue 25, finding 8).
func TestNotesUnreadableAdvisories(t *testing.T) {
	_, st := setup(t)
	st.runs["twice"].Manifest = json.RawMessage(`{"subject":"sca","subject_describe":{"advisories":"adv",` +
		`"advisories_unreadable":"2 advisory files could not be read (first: adv/GHSA-x.json: not a valid OSV record: EOF)"}}`)
	rep, err := report.Build(context.Background(), st, report.Request{Runs: []string{"twice"}})
	if err != nil {
		t.Fatal(err)
	}
	want := report.Note{Warning: true, Text: "run twice: 2 advisory files could not be read (first: adv/GHSA-x.json: not a valid OSV record: EOF)"}
	if !slices.Contains(rep.Notes(), want) {
		t.Errorf("Notes() = %+v; want %+v among them", rep.Notes(), want)
	}
}
