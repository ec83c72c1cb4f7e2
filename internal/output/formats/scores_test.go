package formats_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/output/formats"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/stats"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// resultA: 10 cases (5 vul, 5 ben); verdicts ok 7, failed 1 (a vul case), error 1, missing 1.
// tp 3, fn 2 (one failed), fp 1, tn 2: accuracy 5/8 = 62.5%, precision 3/4 = 75.0%,
// recall 3/5 = 60.0%, F1 6/(6+1+2) = 66.7%, FPR 1/3 = 33.3%, FNR 2/5 = 40.0%, TNR 2/3 = 66.7%.
func resultA() *score.Result {
	return &score.Result{
		N:      10,
		Status: score.StatusCounts{OK: 7, Failed: 1, Error: 1, Missing: 1},
		Binary: score.Binary{TP: 3, FP: 1, TN: 2, FN: 2, FailedVul: 1,
			Accuracy: 0.625, Precision: 0.75, Recall: 0.6, F1: 2.0 / 3, FPR: 1.0 / 3, FNR: 0.4, TNR: 2.0 / 3},
		Pairwise: &score.Pairwise{Pairs: 4, Incomplete: 1, PC: 0.5, PV: 0.25, PR: 0.25, PAcc: 0.5},
		VDS: &score.VDS{FPRTolerance: 0.005, FNR: 1, Degenerate: true, N: 8,
			Source: score.SourceMixed, Sources: map[string]int{score.SourceLabel: 5, score.SourceStated: 2}},
		ByCWE: map[string]score.CWEScore{
			"CWE-20":  {N: 4, TP: 2, FP: 1, TN: 1, Recall: 1, F1: 0.8, Pairs: 2, PAcc: 0.5},
			"CWE-119": {N: 2, TP: 1, FN: 1, Recall: 0.5, F1: 2.0 / 3, Pairs: 1, PAcc: 1},
			"CWE-787": {N: 1, FN: 1},
		},
	}
}

// aggBC aggregates two repeats with continuous scores and one CWE.
func aggBC() *score.Aggregated {
	b := score.Result{
		N:        10,
		Status:   score.StatusCounts{OK: 10},
		Binary:   score.Binary{TP: 4, FP: 2, TN: 3, FN: 1, Accuracy: 0.7, Precision: 2.0 / 3, Recall: 0.8, F1: 8.0 / 11, FPR: 0.4, FNR: 0.2, TNR: 0.6},
		Pairwise: &score.Pairwise{Pairs: 5, PC: 0.4, PV: 0.4, PB: 0.2, PAcc: 0.4},
		VDS:      &score.VDS{FPRTolerance: 0.005, FNR: 0.6, Threshold: verdict.Float(0.62), N: 10, Source: score.SourceLogprob},
		ByCWE:    map[string]score.CWEScore{"CWE-20": {N: 4, TP: 2, TN: 2, Recall: 1, F1: 1, Pairs: 2, PAcc: 1}},
	}
	c := score.Result{
		N:        10,
		Status:   score.StatusCounts{OK: 9, Error: 1},
		Binary:   score.Binary{TP: 3, FP: 1, TN: 4, FN: 1, Accuracy: 7.0 / 9, Precision: 0.75, Recall: 0.75, F1: 0.75, FPR: 0.2, FNR: 0.25, TNR: 0.8},
		Pairwise: &score.Pairwise{Pairs: 4, Incomplete: 1, PC: 0.5, PV: 0.25, PB: 0.25, PAcc: 0.5},
		VDS:      &score.VDS{FPRTolerance: 0.005, FNR: 0.8, Threshold: verdict.Float(0.71), N: 9, Source: score.SourceLogprob},
		ByCWE:    map[string]score.CWEScore{"CWE-20": {N: 4, TP: 1, FN: 1, TN: 2, Recall: 0.5, F1: 2.0 / 3, Pairs: 2, PAcc: 0.5}},
	}
	a := score.Aggregate([]score.Result{b, c})
	return &a
}

// runA is a run of one repeat, runB one of two repeats (an aggregate).
func runA() *report.Run {
	return &report.Run{ID: "run-a", Name: "run-a", Subject: "llm", Model: "openai:gpt-4o", Results: []score.Result{*resultA()}}
}

func runB() *report.Run {
	return &report.Run{ID: "run-b", Name: "run-b", Subject: "random", Agg: aggBC()}
}

// runCI is run-a with bootstrap intervals.
func runCI() *report.Run {
	r := runA()
	r.Results[0].CI = &score.CI{Level: 0.95, Resamples: 200, Requested: 1000, Seed: 1 << 60, By: score.ByPair, Units: 4,
		F1: [2]float64{0.5, 0.8}, PAcc: &stats.Interval{0.25, 0.75}, Accuracy: [2]float64{0.5, 0.75}}
	return r
}

// runMatched is run-a made by a subject that matched findings to cases: its manifest names the
// matcher's version, which every format shows, and it has scores per CWE tier. Of its 4 vul
// answers (tp 3, fp 1), 4 were matched: at exact 1 tp stays (fn 4 with the failed one), at
// related 2 tp and the fp stay.
func runMatched() *report.Run {
	r := runA()
	r.ID, r.Name, r.Subject, r.Model = "run-m", "run-m", "sarif:codeql.sarif", ""
	r.Manifest = &manifest.Manifest{Describe: map[string]any{"matcher": float64(1)}}
	r.Tiers = []report.TierScore{{Matched: 4, Binary: [3]score.Binary{
		{TP: 1, TN: 3, FN: 4, FailedVul: 1, Accuracy: 0.5, Precision: 1, Recall: 0.2, F1: 1.0 / 3, FNR: 0.8, TNR: 1},
		{TP: 2, FP: 1, TN: 2, FN: 3, FailedVul: 1, Accuracy: 0.5, Precision: 2.0 / 3, Recall: 0.4, F1: 0.5, FPR: 1.0 / 3, FNR: 0.6, TNR: 2.0 / 3},
		resultA().Binary,
	}}}
	return r
}

// runScanned is run-a made by a scanner whose manifest names the matcher but which scanned
// function cases alone, matching nothing: no matcher row, no tiers.
func runScanned() *report.Run {
	r := runA()
	r.ID, r.Name, r.Subject, r.Model = "run-f", "run-f", "cppcheck", ""
	r.Manifest = &manifest.Manifest{Describe: map[string]any{"matcher": float64(1), "tool": "cppcheck"}}
	return r
}

func rep(runs ...*report.Run) *report.Report {
	return &report.Report{Scorer: score.Version, Vulnbench: "v0.2.0 (abc1234)", Runs: runs}
}

func fixtures() map[string]*report.Report {
	return map[string]*report.Report{
		"one":    rep(runA()),
		"agg":    rep(runB()),
		"two":    rep(runA(), runB()),
		"ci":     rep(runCI()),
		"vex":    rep(runVEX(1)),
		"vexagg": rep(runVEX(2)),
		// A matcher-made run beside one that is not and a scanner run that matched nothing: the
		// matcher row names the first's version, the CWE tier table has the first's scores.
		"matcher": rep(runMatched(), runB(), runScanned()),
		// AppSecBench without a judge (judged parts "not graded") and with one beside it.
		"appsec": rep(runAppSec("run-s", nil), runAppSec("run-j", &score.JudgeInfo{Model: "openai:gpt-4o", PromptVersion: 1,
			Rho: 0.91, MAE: 0.08, BandAgreement: 0.84, Calls: 72, CacheHits: 64, CostUSD: verdict.Float(0.0123)})),
	}
}

// runAppSec is run-a on two AppSecBench records; with a judge, every part is graded.
func runAppSec(name string, j *score.JudgeInfo) *report.Run {
	r := runA()
	r.ID, r.Name = name, name
	a := &score.AppSec{Records: 2, MeanScore: 0.4, PassRate: 0, GradedMax: 50, MeanGraded: 0.8, PassRateGraded: 0.5,
		Parts:        map[string]float64{"detection": 1, "cwe": 0.75, "owasp": 0.5, "severity": 0.75, "false_positive_avoidance": 0.5},
		CVSS:         &score.CVSSScore{N: 1, Invalid: 1, FieldsWrong: 2, ScoreMAE: 1.3},
		Fix:          &score.FixChecks{Proposed: 2, SyntaxOK: 1, SyntaxError: 1, ScannerClean: 1, ScannerNot: 1},
		ByDifficulty: map[string]score.Group{"expert": {N: 1, MeanScore: 0.5, MeanGraded: 1}, "beginner": {N: 1, MeanScore: 0.3, MeanGraded: 0.6}},
		ByLanguage:   map[string]score.Group{"python": {N: 2, MeanScore: 0.4, MeanGraded: 0.8}},
		ByArchetype:  map[string]score.Group{"sql-injection": {N: 2, MeanScore: 0.4, MeanGraded: 0.8}}}
	if j != nil {
		a.Judge, a.GradedMax, a.MeanScore, a.PassRate, a.MeanGraded = j, 100, 0.72, 0.5, 0.72
		for k, v := range map[string]float64{"exploit": 0.6, "fix": 0.8, "code_quality": 0.5, "explanation": 0.9} {
			a.Parts[k] = v
		}
		a.JudgeFailed = map[string]int{"fix": 1}
	}
	r.Results[0].AppSec = a
	return r
}

// runVEX scores a small VEX suite over n repeats: 4 cases, answers that differ by repeat.
func runVEX(n int) *report.Run {
	cat := func(c string) int8 { return score.VEXCategory(c) }
	cases := []score.Case{{ID: "a", Vul: true, VEX: cat("vulnerable")}, {ID: "b", VEX: cat("code_not_reachable")},
		{ID: "c", VEX: cat("code_not_present")}, {ID: "d", VEX: cat("code_not_reachable")}}
	answers := [][]string{{"vulnerable", "code_not_reachable", "vulnerable", "uncertain"}, {"code_not_present", "code_not_reachable", "code_not_present", ""}}
	var rs []score.Result
	for k := 0; k < n; k++ {
		vs := map[string]verdict.Verdict{}
		for i, a := range answers[k] {
			v := verdict.Verdict{CaseID: cases[i].ID, Status: verdict.Failed}
			if a != "" {
				l := "ben"
				if a == "vulnerable" {
					l = "vul"
				}
				v = verdict.Verdict{CaseID: cases[i].ID, Status: verdict.OK, Label: suite.Label(l), VEX: &verdict.VEX{Category: a}}
			}
			vs[v.CaseID] = v
		}
		rs = append(rs, score.Compute(cases, score.Answers(cases, vs), score.Options{}))
	}
	r := &report.Run{ID: "run-vex", Name: "run-vex", Subject: "sca", Results: rs}
	if n > 1 {
		a := score.Aggregate(rs)
		r.Agg = &a
	}
	return r
}

func TestWriteScoresGolden(t *testing.T) {
	for name, r := range fixtures() {
		for _, format := range []string{"text", "md", "json", "csv"} {
			t.Run(name+"."+format, func(t *testing.T) {
				var b bytes.Buffer
				if err := formats.All().Present(&b, format, r); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join("testdata", name+"."+format+".golden")
				if *update {
					if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test -update to create it)", err)
				}
				if diff := cmp.Diff(string(want), b.String()); diff != "" {
					t.Errorf("%s (-want +got):\n%s", path, diff)
				}
			})
		}
	}
}

func write(t *testing.T, format string, r *report.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := formats.All().Present(&b, format, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestTextFigures checks, independently of the golden files, the figures of resultA as the text and
// Markdown tables show them (percentages worked out in resultA's comment).
func TestTextFigures(t *testing.T) {
	cols := rep(runA())

	cellSep := regexp.MustCompile(`\s{2,}`) // tabwriter pads cells with at least two spaces
	rows := map[string][]string{}
	var notes []string
	for _, line := range strings.Split(write(t, "text", cols), "\n") {
		f := cellSep.Split(line, -1)
		switch {
		case strings.HasPrefix(line, "random guessing"), strings.HasPrefix(line, "scorer "):
			notes = append(notes, line)
		case line != "":
			rows[f[0]] = f[1:]
		}
	}
	want := map[string][]string{
		"accuracy": {"62.5%"}, "precision": {"75.0%"}, "recall": {"60.0%"}, "F1": {"66.7%"},
		"FPR": {"33.3%"}, "FNR": {"40.0%"}, "TNR": {"66.7%"},
		// pairwise shares of 4 pairs: 2, 1, 0, 1.
		"P-C": {"50.0%"}, "P-V": {"25.0%"}, "P-B": {"0.0%"}, "P-R": {"25.0%"},
		// CWE rows: n, recall, F1, pAcc; CWE-787 has no pair.
		"CWE-20": {"4", "100.0%", "80.0%", "50.0%"}, "CWE-119": {"2", "50.0%", "66.7%", "100.0%"},
		"CWE-787": {"1", "0.0%", "0.0%", "-"},
		// VD-S: nothing predicted vul at r, FNR 100%, scores 0/1.
		"FNR at FPR <= r": {"100.0% (degenerate: scores take <= 2 values)"}, "threshold": {"none"},
		"score source": {"mixed (label 5, stated 2)"},
		// the run's identity
		"metric": {"run-a"}, "subject": {"llm"}, "model": {"openai:gpt-4o"},
	}
	for k, v := range want {
		if diff := cmp.Diff(v, rows[k]); diff != "" {
			t.Errorf("text row %q (-want +got):\n%s", k, diff)
		}
	}
	if diff := cmp.Diff([]string{"random guessing: P-C = 25.0%", fmt.Sprintf("scorer %d, vulnbench v0.2.0 (abc1234)", score.Version)}, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}

	md := write(t, "md", cols)
	for _, line := range []string{"| accuracy | 62.5% |", "| CWE-787 | 1 | 0.0% | 0.0% | - |", "random guessing: P-C = 25.0%"} {
		if !strings.Contains(md, "\n"+line+"\n") {
			t.Errorf("markdown lacks line %q:\n%s", line, md)
		}
	}
}

func TestCSVFigures(t *testing.T) {
	cols := rep(runA(), runB())
	recs, err := csv.NewReader(strings.NewReader(write(t, "csv", cols))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range recs[1:] {
		got[r[0]+" "+r[3]] = append(r[1:3:3], r[4:]...)
	}
	want := map[string][]string{
		"run-a scorer":                  {"llm", "openai:gpt-4o", strconv.Itoa(score.Version), ""},
		"run-a vulnbench":               {"llm", "openai:gpt-4o", "v0.2.0 (abc1234)", ""},
		"run-a binary:accuracy":         {"llm", "openai:gpt-4o", "0.625", ""},
		"run-a cwe:CWE-119:f1":          {"llm", "openai:gpt-4o", "0.6666666666666666", ""},
		"run-a vds:degenerate":          {"llm", "openai:gpt-4o", "true", ""},
		"run-a vds:threshold":           nil, // infinite: no row
		"run-a vds:score_source":        {"llm", "openai:gpt-4o", "mixed", ""},
		"run-a vds:score_sources:label": {"llm", "openai:gpt-4o", "5", ""},
		"run-b repeats":                 {"random", "", "2", ""},
		"run-b binary:tp":               {"random", "", "3.5", "0.7071067811865476"},    // 4, 3: mean 3.5, std 1/sqrt(2)
		"run-b vds:threshold":           {"random", "", "0.665", "0.06363961030678926"}, // 0.62, 0.71: std 0.09/sqrt(2)
		"run-b cwe:CWE-20:pairs":        {"random", "", "2", "0"},
	}
	for k, v := range want {
		if diff := cmp.Diff(v, got[k]); diff != "" {
			t.Errorf("csv %q (-want +got):\n%s", k, diff)
		}
	}
	if diff := cmp.Diff([]string{"run", "subject", "model", "metric", "value", "std"}, recs[0]); diff != "" {
		t.Errorf("csv header (-want +got):\n%s", diff)
	}
}

// TestJSONRoundTrip: the JSON the metric table writes reads back into the score types whole,
// so no field of theirs is left out of the table.
func TestJSONRoundTrip(t *testing.T) {
	for _, r := range []*report.Run{runA(), runCI()} {
		want := r.Results[0]
		var got score.Result
		if err := json.Unmarshal([]byte(write(t, "json", rep(r))), &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("one run (-want +got):\n%s", diff)
		}
	}

	var two struct {
		Scorer    int               `json:"scorer"`
		Vulnbench string            `json:"vulnbench"`
		Runs      []json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal([]byte(write(t, "json", fixtures()["two"])), &two); err != nil {
		t.Fatal(err)
	}
	if two.Scorer != score.Version || two.Vulnbench != "v0.2.0 (abc1234)" {
		t.Errorf("scorer %d, vulnbench %q", two.Scorer, two.Vulnbench)
	}
	if diff := cmp.Diff(2, len(two.Runs)); diff != "" {
		t.Fatalf("runs (-want +got):\n%s", diff)
	}
	type id struct {
		Run     string `json:"run"`
		Subject string `json:"subject"`
		Model   string `json:"model"`
	}
	var ids [2]id
	var gotA score.Result
	var gotB score.Aggregated
	for i, dst := range []any{&gotA, &gotB} {
		if err := json.Unmarshal(two.Runs[i], &ids[i]); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(two.Runs[i], dst); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([2]id{{"run-a", "llm", "openai:gpt-4o"}, {"run-b", "random", ""}}, ids); diff != "" {
		t.Errorf("run ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(*resultA(), gotA); diff != "" {
		t.Errorf("two runs, run-a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(*aggBC(), gotB); diff != "" {
		t.Errorf("two runs, run-b (-want +got):\n%s", diff)
	}
}

func TestWriteScoresErrors(t *testing.T) {
	unnamed := runA()
	unnamed.Name = ""
	unscored := runA()
	unscored.Results = nil
	tests := []struct {
		name    string
		format  string
		rep     *report.Report
		wantErr string
	}{
		{"unknown format", "xml", rep(runA()), `unknown format "xml": use one of text, md, json, csv, html, tsv`},
		{"an export format", "sarif", rep(runA()), `format sarif does not write a scores document: use one of text, md, json, csv, html, tsv`},
		{"no run", "text", rep(), "write scores: no run to write"},
		{"not scored", "text", rep(unscored), `write scores: run "run-a" has 0 scored repeats and no aggregate`},
		{"unnamed among several", "csv", rep(runA(), unnamed), "write scores: run 2 has no name (needed with several runs)"},
		{"same name twice", "md", rep(runA(), runA()), `write scores: two runs are named "run-a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := formats.All().Present(&bytes.Buffer{}, tt.format, tt.rep)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.wantErr, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// The one registry has unique names and a presenter per name, in the order help texts show
// them; each document is offered the formats that write it; an unknown name is a typed error
// naming the known ones.
func TestRegistry(t *testing.T) {
	reg := formats.All()
	all := []string{"text", "md", "json", "csv", "html", "tsv", "sarif", "jsonl", "openvex"}
	if diff := cmp.Diff(all, reg.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	for _, n := range all {
		if p, err := reg.Lookup(n); err != nil || p.Name() != n {
			t.Errorf("Lookup(%q) = %v, %v", n, p, err)
		}
	}
	for _, tc := range []struct {
		doc  output.Document
		want []string
	}{
		{(*report.Report)(nil), all[:6]},
		{output.Export{}, all},
		{output.Stats{}, all[:6]},
	} {
		if diff := cmp.Diff(tc.want, reg.For(tc.doc)); diff != "" {
			t.Errorf("formats of %s (-want +got):\n%s", tc.doc.Kind(), diff)
		}
	}
	_, err := reg.Lookup("nope")
	var unknown *output.UnknownFormatError
	if !errors.As(err, &unknown) || unknown.Name != "nope" {
		t.Errorf("Lookup(nope) = %v, want an UnknownFormatError", err)
	}
	if _, err := output.NewRegistry(reg.Presenters()[0], reg.Presenters()[0]); err == nil {
		t.Errorf("a registry took one name twice")
	}
}
