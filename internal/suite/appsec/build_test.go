package appsec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/suite"
)

func TestAutoPerCell(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		cells, target, limit int
		want                 int
	}{
		{"defaults, full catalog", 85, 0, 0, 5},
		{"defaults, exact", 58, 0, 0, 7},
		{"defaults, few cells hit the cap", 26, 0, 0, DefaultMaxPerCell},
		{"no cells", 0, 0, 0, 1},
		{"target below cells", 50, 10, 0, 1},
		{"explicit target and cap", 10, 100, 20, 10},
		{"explicit cap", 10, 100, 3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := autoPerCell(tc.cells, tc.target, tc.limit); got != tc.want {
				t.Errorf("autoPerCell(%d, %d, %d) = %d, want %d", tc.cells, tc.target, tc.limit, got, tc.want)
			}
		})
	}
}

// testGen is a generator of a real catalog target whose code uses every identifier.
func testGen(t *testing.T, arch, lang, fw string, levels ...Difficulty) Generator {
	t.Helper()
	return Generator{Archetype: arch, Language: lang, Framework: fw, Levels: levels,
		FilePath: "x", Vulnerable: "{{.Func}} {{.Field}} {{.Param}} {{.Prefix}} {{.Host}} " + VulnMarker + "\n",
		Secure: "safe\n", Explanation: "e", Exploit: "x", Fix: "f", Remediation: []string{"r"}, Preconditions: []string{"p"}}
}

// twoTargets returns two (language, framework) targets of one archetype, and a target of another.
func twoTargets(t *testing.T, cat *Catalog) (arch string, a, b [2]string, other string, c [2]string) {
	t.Helper()
	targets := func(x *Archetype) [][2]string {
		var out [][2]string
		for _, l := range x.Languages() {
			for _, fw := range cat.Frameworks() {
				if x.Realistic(l, fw) {
					out = append(out, [2]string{l, fw})
				}
			}
		}
		return out
	}
	for i := range cat.Archetypes {
		x := &cat.Archetypes[i]
		if ts := targets(x); arch == "" && len(ts) >= 2 {
			arch, a, b = x.ID, ts[0], ts[1]
		} else if other == "" && len(ts) >= 1 && x.ID != arch {
			other, c = x.ID, ts[0]
		}
	}
	if arch == "" || other == "" {
		t.Skip("the catalog has no archetype with two targets")
	}
	return
}

func TestPlan(t *testing.T) {
	cat, err := LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	arch, ta, tb, other, tc := twoTargets(t, cat)
	x := testGen(t, arch, ta[0], ta[1], Expert, Beginner) // levels out of order
	y := testGen(t, arch, tb[0], tb[1], Expert)
	z := testGen(t, other, tc[0], tc[1], Advanced)
	first, second := x.Name(), y.Name()
	if second < first {
		first, second = second, first
	}
	type row struct {
		Cell string
		Gens []string
		N    int
	}
	beginner, expert, advanced := arch+"/beginner", arch+"/expert", other+"/advanced"
	byName := func(rows ...row) []row {
		slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.Cell, b.Cell) })
		return rows
	}
	for _, c := range []struct {
		name string
		opt  BuildOptions
		want []row
	}{
		{"per cell 3", BuildOptions{PerCell: 3}, byName(
			row{beginner, []string{x.Name()}, 3}, row{expert, []string{first, second}, 3}, row{advanced, []string{z.Name()}, 3})},
		{"auto: 10 over 3 cells", BuildOptions{MinRecords: 10}, byName(
			row{beginner, []string{x.Name()}, 4}, row{expert, []string{first, second}, 4}, row{advanced, []string{z.Name()}, 4})},
		{"auto: capped", BuildOptions{MinRecords: 100, MaxPerCell: 2}, byName(
			row{beginner, []string{x.Name()}, 2}, row{expert, []string{first, second}, 2}, row{advanced, []string{z.Name()}, 2})},
	} {
		t.Run(c.name, func(t *testing.T) {
			cells, err := plan(cat, []Generator{z, y, x}, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []row
			for _, cl := range cells {
				r := row{Cell: cl.archetype + "/" + string(cl.level), N: cl.n}
				for _, g := range cl.gens {
					r.Gens = append(r.Gens, g.Name())
				}
				got = append(got, r)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
		})
	}
	for _, bad := range []struct {
		name string
		gens []Generator
		opt  BuildOptions
	}{
		{"defined twice", []Generator{x, x}, BuildOptions{}},
		{"negative count", []Generator{x}, BuildOptions{PerCell: -1}},
		{"unknown level", []Generator{testGen(t, arch, ta[0], ta[1], "legendary")}, BuildOptions{}},
		{"unrealistic target", []Generator{testGen(t, arch, "cobol", "cics", Beginner)}, BuildOptions{}},
	} {
		if _, err := plan(cat, bad.gens, bad.opt); err == nil {
			t.Errorf("%s: accepted", bad.name)
		}
	}
}

// TestBuildSharesACell checks that a cell's generators take turns, and that one whose identifier
// variations run out leaves its turns to the others.
func TestBuildSharesACell(t *testing.T) {
	cat, err := LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	arch, ta, tb, _, _ := twoTargets(t, cat)
	x := testGen(t, arch, ta[0], ta[1], Advanced)
	y := testGen(t, arch, tb[0], tb[1], Advanced)
	y.Vulnerable = "fixed " + VulnMarker + "\n" // one variation only
	recs, err := BuildWith(BuildOptions{Seed: 3, Generators: []Generator{x, y}, PerCell: 5})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, r := range recs {
		got[r.Metadata.Generator]++
	}
	if d := cmp.Diff(map[string]int{x.Name(): 4, y.Name(): 1}, got); d != "" {
		t.Errorf("records per generator (-want +got):\n%s", d)
	}
}

// TestBuildCountPolicy checks the default policy on the generators present: every
// (archetype × difficulty) cell gets the same count, the smallest that reaches 406 records
// within the cap, so the full generator set yields at least 406.
func TestBuildCountPolicy(t *testing.T) {
	recs, err := Build(42)
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]int{}
	for _, r := range recs {
		cells[r.Metadata.Archetype+"/"+string(r.Difficulty)]++
	}
	per := autoPerCell(len(cells), 0, 0)
	short := 0
	for c, n := range cells {
		if n > per {
			t.Errorf("cell %s has %d records, more than %d", c, n, per)
		}
		if n < per {
			short += per - n
			t.Logf("cell %s has %d records, not %d: its generators ran out of identifier variations", c, n, per)
		}
	}
	if len(cells)*DefaultMaxPerCell >= DefaultMinRecords && short == 0 && len(recs) < DefaultMinRecords {
		t.Errorf("%d records from %d cells, want at least %d", len(recs), len(cells), DefaultMinRecords)
	}
	gens := map[string]bool{}
	for _, r := range recs {
		gens[r.Metadata.Generator] = true
	}
	all, err := Generators()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range all {
		if !gens[g.Name()] {
			t.Errorf("generator %s made no record", g.Name())
		}
	}
	t.Logf("%d generators, %d cells, %d per cell, %d short: %d records", len(all), len(cells), per, short, len(recs))
}

func TestCases(t *testing.T) {
	recs, err := BuildWith(BuildOptions{Seed: 1, PerCell: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := recs[0]
	r.Split = "validation"
	cases, err := Cases([]Record{r})
	if err != nil {
		t.Fatal(err)
	}
	type brief struct {
		ID, Pair, Split, Project, Language, Code string
		Kind                                     suite.Kind
		Label                                    suite.Label
		CWE                                      []string
		Source                                   map[string]any
	}
	var got []brief
	for _, c := range cases {
		got = append(got, brief{c.ID, c.Pair, c.Split, c.Project, c.Language, c.Code, c.Kind, c.Label, c.CWE, c.Source})
		if err := c.Check(); err != nil {
			t.Error(err)
		}
		if c.AppSec["expected_cwe"] != r.ExpectedCWE || c.AppSec["benchmark_id"] != r.BenchmarkID {
			t.Errorf("%s: appsec ground truth %v", c.ID, c.AppSec)
		}
		if _, ok := c.AppSec["vulnerable_code"]; ok {
			t.Errorf("%s: appsec repeats the vulnerable code", c.ID)
		}
	}
	src := map[string]any{"benchmark_id": r.BenchmarkID}
	want := []brief{
		{r.BenchmarkID + "-vul", r.BenchmarkID, "valid", Project, r.Language, r.VulnerableCode, suite.KindAppSec, suite.Vul, []string{r.ExpectedCWE}, src},
		{r.BenchmarkID + "-ben", r.BenchmarkID, "valid", Project, r.Language, r.SecureCode, suite.KindAppSec, suite.Ben, []string{r.ExpectedCWE}, src},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Cases (-want +got):\n%s", d)
	}
}

func TestStats(t *testing.T) {
	recs := []Record{
		{Language: "go", Framework: "net/http", Difficulty: Expert, ExpectedSeverity: "High", Split: "test", Metadata: RecordMeta{Archetype: "a"}},
		{Language: "go", Framework: "gin", Difficulty: Beginner, ExpectedSeverity: "Critical", Split: "train", Metadata: RecordMeta{Archetype: "b"}},
		{Language: "c", Framework: "libc", Difficulty: Beginner, ExpectedSeverity: "High", Split: "train", Metadata: RecordMeta{Archetype: "a"}},
	}
	st := NewStats(recs)
	var got []string
	for _, d := range st.Dimensions() {
		for _, c := range d.Counts {
			got = append(got, fmt.Sprintf("%s %s %d", d.Name, c.Key, c.N))
		}
	}
	want := []string{"archetype a 2", "archetype b 1", "language c 1", "language go 2",
		"framework c/libc 1", "framework go/gin 1", "framework go/net/http 1",
		"difficulty beginner 2", "difficulty expert 1", "severity High 2", "severity Critical 1",
		"split train 2", "split test 1"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Dimensions (-want +got):\n%s", d)
	}
	var csvOut, md, js bytes.Buffer
	if err := st.WriteCSV(&csvOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csvOut.String(), "language,go,2,0.6667\n") {
		t.Errorf("csv:\n%s", csvOut.String())
	}
	if err := st.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| go | 2 | 66.7% |") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if err := st.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Stats
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(st, back); d != "" {
		t.Errorf("json round trip (-want +got):\n%s", d)
	}
}
