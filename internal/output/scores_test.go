package output_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/score"
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
		VDS:      &score.VDS{FPRTolerance: 0.005, FNR: 1, Degenerate: true, N: 8},
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
		VDS:      &score.VDS{FPRTolerance: 0.005, FNR: 0.6, Threshold: verdict.Float(0.62), N: 10},
		ByCWE:    map[string]score.CWEScore{"CWE-20": {N: 4, TP: 2, TN: 2, Recall: 1, F1: 1, Pairs: 2, PAcc: 1}},
	}
	c := score.Result{
		N:        10,
		Status:   score.StatusCounts{OK: 9, Error: 1},
		Binary:   score.Binary{TP: 3, FP: 1, TN: 4, FN: 1, Accuracy: 7.0 / 9, Precision: 0.75, Recall: 0.75, F1: 0.75, FPR: 0.2, FNR: 0.25, TNR: 0.8},
		Pairwise: &score.Pairwise{Pairs: 4, Incomplete: 1, PC: 0.5, PV: 0.25, PB: 0.25, PAcc: 0.5},
		VDS:      &score.VDS{FPRTolerance: 0.005, FNR: 0.8, Threshold: verdict.Float(0.71), N: 9},
		ByCWE:    map[string]score.CWEScore{"CWE-20": {N: 4, TP: 1, FN: 1, TN: 2, Recall: 0.5, F1: 2.0 / 3, Pairs: 2, PAcc: 0.5}},
	}
	a := score.Aggregate([]score.Result{b, c})
	return &a
}

func fixtures() map[string][]output.Column {
	return map[string][]output.Column{
		"one": {{Name: "run-a", Result: resultA()}},
		"agg": {{Name: "run-b", Agg: aggBC()}},
		"two": {{Name: "run-a", Result: resultA()}, {Name: "run-b", Agg: aggBC()}},
	}
}

func TestWriteScoresGolden(t *testing.T) {
	for name, cols := range fixtures() {
		for _, format := range []string{"text", "md", "json", "csv"} {
			t.Run(name+"."+format, func(t *testing.T) {
				var b bytes.Buffer
				if err := output.WriteScores(&b, format, cols); err != nil {
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

func write(t *testing.T, format string, cols []output.Column) string {
	t.Helper()
	var b bytes.Buffer
	if err := output.WriteScores(&b, format, cols); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestTextFigures checks, independently of the golden files, the figures of resultA as the text and
// Markdown tables show them (percentages worked out in resultA's comment).
func TestTextFigures(t *testing.T) {
	cols := []output.Column{{Name: "run-a", Result: resultA()}}

	cellSep := regexp.MustCompile(`\s{2,}`) // tabwriter pads cells with at least two spaces
	rows := map[string][]string{}
	var notes []string
	for _, line := range strings.Split(write(t, "text", cols), "\n") {
		f := cellSep.Split(line, -1)
		switch {
		case strings.HasPrefix(line, "random guessing"):
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
	}
	for k, v := range want {
		if diff := cmp.Diff(v, rows[k]); diff != "" {
			t.Errorf("text row %q (-want +got):\n%s", k, diff)
		}
	}
	if diff := cmp.Diff([]string{"random guessing: P-C = 25.0%"}, notes); diff != "" {
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
	cols := []output.Column{{Name: "run-a", Result: resultA()}, {Name: "run-b", Agg: aggBC()}}
	recs, err := csv.NewReader(strings.NewReader(write(t, "csv", cols))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range recs[1:] {
		got[r[0]+" "+r[1]] = r[2:]
	}
	want := map[string][]string{
		"run-a binary:accuracy":  {"0.625", ""},
		"run-a cwe:CWE-119:f1":   {"0.6666666666666666", ""},
		"run-a vds:degenerate":   {"true", ""},
		"run-a vds:threshold":    nil, // infinite: no row
		"run-b repeats":          {"2", ""},
		"run-b binary:tp":        {"3.5", "0.7071067811865476"},    // 4, 3: mean 3.5, std 1/sqrt(2)
		"run-b vds:threshold":    {"0.665", "0.06363961030678926"}, // 0.62, 0.71: std 0.09/sqrt(2)
		"run-b cwe:CWE-20:pairs": {"2", "0"},
	}
	for k, v := range want {
		if diff := cmp.Diff(v, got[k]); diff != "" {
			t.Errorf("csv %q (-want +got):\n%s", k, diff)
		}
	}
	if diff := cmp.Diff([]string{"subject", "metric", "value", "std"}, recs[0]); diff != "" {
		t.Errorf("csv header (-want +got):\n%s", diff)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	a := resultA()
	var got score.Result
	if err := json.Unmarshal([]byte(write(t, "json", []output.Column{{Result: a}})), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*a, got); diff != "" {
		t.Errorf("one column (-want +got):\n%s", diff)
	}

	var two map[string]json.RawMessage
	if err := json.Unmarshal([]byte(write(t, "json", fixtures()["two"])), &two); err != nil {
		t.Fatal(err)
	}
	var gotA score.Result
	var gotB score.Aggregated
	if err := json.Unmarshal(two["run-a"], &gotA); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(two["run-b"], &gotB); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*a, gotA); diff != "" {
		t.Errorf("two columns, run-a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(*aggBC(), gotB); diff != "" {
		t.Errorf("two columns, run-b (-want +got):\n%s", diff)
	}
}

func TestWriteScoresErrors(t *testing.T) {
	r := resultA()
	tests := []struct {
		name    string
		format  string
		cols    []output.Column
		wantErr string
	}{
		{"unknown format", "html", []output.Column{{Result: r}}, `unknown score format "html": use one of text, md, json, csv`},
		{"no column", "text", nil, "write scores: no column to write"},
		{"neither result nor aggregate", "text", []output.Column{{Name: "x"}}, `write scores: column 1 ("x") needs exactly one of a result and an aggregate`},
		{"both", "json", []output.Column{{Name: "x", Result: r, Agg: aggBC()}}, `write scores: column 1 ("x") needs exactly one of a result and an aggregate`},
		{"unnamed among several", "csv", []output.Column{{Name: "a", Result: r}, {Result: r}}, "write scores: column 2 has no name (needed with several columns)"},
		{"same name twice", "md", []output.Column{{Name: "a", Result: r}, {Name: "a", Result: r}}, `write scores: two columns are named "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := output.WriteScores(&bytes.Buffer{}, tt.format, tt.cols)
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
