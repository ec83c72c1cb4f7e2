package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCompareSeveral: with three predictions files, compare says what they find together (the
// suite has three vul cases: x finds a1 and b1, y finds b1, z finds c1 and says vul on a ben
// case); with two it still prints McNemar; with one it is a usage error.
func TestCompareSeveral(t *testing.T) {
	dir := t.TempDir()
	suitePath, err := filepath.Abs("testdata/predictions/suite.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"x.jsonl": `{"case_id":"a1","label":"vul"}` + "\n" + `{"case_id":"b1","label":"vul"}` + "\n" + `{"case_id":"c1","label":"ben"}` + "\n",
		"y.jsonl": `{"case_id":"a1","label":"ben"}` + "\n" + `{"case_id":"b1","label":"vul"}` + "\n" + `{"case_id":"c1","status":"error","reason":"timeout"}` + "\n",
		"z.jsonl": `{"case_id":"c1","label":"vul"}` + "\n" + `{"case_id":"c2","label":"vul"}` + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"compare", "--suite", suitePath, "--predictions", "x.jsonl", "--predictions", "y.jsonl", "--predictions", "z.jsonl"}
	code, out, stderr := run(t, dir, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	type runPart struct {
		Run       string   `json:"run"`
		Found     int      `json:"found"`
		Only      int      `json:"only"`
		OnlyCases []string `json:"only_cases"`
		Marginal  float64  `json:"marginal"`
	}
	type pair struct {
		A      string  `json:"a"`
		B      string  `json:"b"`
		OnlyA  int     `json:"only_a"`
		OnlyB  int     `json:"only_b"`
		Both   int     `json:"both"`
		Recall float64 `json:"recall"`
	}
	var got struct {
		Vul    int       `json:"vul"`
		Found  int       `json:"found"`
		Recall float64   `json:"recall"`
		Runs   []runPart `json:"runs"`
		Pairs  []pair    `json:"pairs"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := got
	want.Vul, want.Found, want.Recall = 3, 3, 1
	want.Runs = []runPart{
		{Run: "x.jsonl", Found: 2, Only: 1, OnlyCases: []string{"a1"}, Marginal: 1.0 / 3},
		{Run: "y.jsonl", Found: 1, OnlyCases: []string{}},
		{Run: "z.jsonl", Found: 1, Only: 1, OnlyCases: []string{"c1"}, Marginal: 1.0 / 3},
	}
	want.Pairs = []pair{
		{A: "x.jsonl", B: "y.jsonl", OnlyA: 1, Both: 1, Recall: 2.0 / 3},
		{A: "x.jsonl", B: "z.jsonl", OnlyA: 2, OnlyB: 1, Recall: 1},
		{A: "y.jsonl", B: "z.jsonl", OnlyA: 1, OnlyB: 1, Recall: 2.0 / 3},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("compare --format json (-want +got):\n%s", d)
	}
	for _, format := range []string{"text", "md"} {
		code, out, stderr := run(t, dir, append(args, "--format", format)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		for _, s := range []string{"only x.jsonl finds: a1", "only z.jsonl finds: c1", "x.jsonl + z.jsonl", "all together", "100.0%", "33.3"} {
			if !strings.Contains(out, s) {
				t.Errorf("%s output lacks %q:\n%s", format, s, out)
			}
		}
	}
	code, out, stderr = run(t, dir, "compare", "--suite", suitePath, "--predictions", "x.jsonl", "--predictions", "y.jsonl")
	if code != 0 || !strings.Contains(out, "McNemar exact") || strings.Contains(out, "all together") {
		t.Errorf("two runs: exit %d, stderr %s, output:\n%s", code, stderr, out)
	}
	if code, _, _ := run(t, dir, "compare", "--suite", suitePath, "--predictions", "x.jsonl"); code != 2 {
		t.Errorf("one predictions file: exit %d, want 2", code)
	}
}
