package output_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
)

// A comparison of two VEX runs on a suite with alternatives shows the lenient justification
// macro-F1 beside the strict one, by hand: case a is code_not_present with code_not_reachable
// acceptable, case b vulnerable; A answers code_not_reachable and vulnerable (strict macro-F1
// 50 %, lenient 100 %), B code_not_present and vulnerable (100 % both). Without alternatives the
// row is not there.
func TestCompareVEXLenient(t *testing.T) {
	for _, alt := range []string{`,"alternatives":["code_not_reachable"]`, ""} {
		dir := t.TempDir()
		suitePath := filepath.Join(dir, "vex.jsonl")
		var s strings.Builder
		for i, c := range []string{"code_not_present", "vulnerable"} {
			label, more := "ben", ""
			if c == "vulnerable" {
				label = "vul"
			} else {
				more = alt
			}
			fmt.Fprintf(&s, `{"id":"%c","kind":"vex","label":%q,"cve":"CVE-2020-1000","language":"go","repo":{"url":"https://github.com/a/b","commit":"%040d"},"vex":{"category":%q%s}}`+"\n", 'a'+i, label, i, c, more)
		}
		write := func(name, body string) string {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
		write("vex.jsonl", s.String())
		a := write("A.jsonl", `{"case_id":"a","label":"ben","vex":{"category":"code_not_reachable"}}`+"\n"+`{"case_id":"b","label":"vul","vex":{"category":"vulnerable"}}`+"\n")
		b := write("B.jsonl", `{"case_id":"a","label":"ben","vex":{"category":"code_not_present"}}`+"\n"+`{"case_id":"b","label":"vul","vex":{"category":"vulnerable"}}`+"\n")
		rep, err := report.Build(t.Context(), nil, report.Request{Predictions: []string{a, b}, Suite: suitePath})
		if err != nil {
			t.Fatal(err)
		}
		cmp, err := rep.Compare(0, 1, score.CIOptions{Resamples: 200, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := (output.Comparison{Report: rep, Cmp: cmp}).WriteText(&out); err != nil {
			t.Fatal(err)
		}
		text := out.String()
		strict := lineOf(text, "VEX justification macro-F1 ")
		lenient := lineOf(text, "VEX justification macro-F1 (lenient)")
		if !strings.Contains(strict, "50.0%") || !strings.Contains(strict, "100.0%") {
			t.Errorf("strict row %q, want A 50.0%% and B 100.0%%", strict)
		}
		switch {
		case alt != "" && strings.Count(lenient, "100.0%") != 2:
			t.Errorf("lenient row %q, want A and B 100.0%%\n%s", lenient, text)
		case alt == "" && lenient != "":
			t.Errorf("a suite without alternatives has a lenient row %q", lenient)
		}
	}
}

// lineOf is the first line of text that starts with prefix, "" when none does.
func lineOf(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return l
		}
	}
	return ""
}
