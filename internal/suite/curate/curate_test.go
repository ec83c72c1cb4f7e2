package curate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// fn is one raw line; nil before/after pointers are JSON null.
func fn(project, commit, date, desc, file, name string, before, after *string) string {
	b, err := json.Marshal(Raw{Project: project, CommitID: commit, CommitDate: date, CVE: "CVE-2020-" + commit,
		CWE: []string{"CWE-787"}, CVEDesc: desc, File: file, Function: name, Before: before, After: after})
	if err != nil {
		panic(err)
	}
	return string(b)
}

func s(x string) *string { return &x }

// body is a distinct function text.
func body(name string, v int) string {
	return fmt.Sprintf("int %s(int n) {\n\tint r = n * %d;\n\treturn r + %d;\n}\n", name, v, v*7)
}

// got is what a test checks of one output case.
type got struct {
	Function, Version, Label, Rule, Split string
	Paired                                bool
}

func run(t *testing.T, lines []string, opt Options) (*Report, []got, string) {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "raw.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	rep, err := Curate(context.Background(), in, out, opt)
	if err != nil {
		t.Fatal(err)
	}
	var gs []got
	for _, name := range suite.Splits {
		_, problems, err := suite.Scan(filepath.Join(out, name+".jsonl"), nil, true, func(c *suite.Case, _ int) error {
			if c.Split != name {
				t.Errorf("case %s in %s.jsonl has split %q", c.ID, name, c.Split)
			}
			gs = append(gs, got{c.Source["function"].(string), c.Source["version"].(string), string(c.Label),
				c.Meta["rule"].(string), c.Split, c.Pair != ""})
			return nil
		})
		if err != nil || len(problems) > 0 {
			t.Fatalf("%s: %v %v", name, err, problems)
		}
		_, problems, err = suite.Scan(filepath.Join(out, name+"_paired.jsonl"), nil, true, nil)
		if err != nil || len(problems) > 0 {
			t.Fatalf("%s_paired: %v %v", name, err, problems)
		}
	}
	sort.Slice(gs, func(i, j int) bool { return fmt.Sprint(gs[i]) < fmt.Sprint(gs[j]) })
	return rep, gs, out
}

func TestLabelRules(t *testing.T) {
	const d1, d2, d3, d4 = "2020-01-01T00:00:00Z", "2020-02-01T00:00:00Z", "2020-03-01T00:00:00Z", "2020-04-01T00:00:00Z"
	lines := []string{
		// ONEFUNC: f is the only function c1 changes; g is unchanged.
		fn("p", "c1", d1, "a flaw", "a.c", "f", s(body("f", 1)), s(body("f", 1)+"/*fix*/")),
		fn("p", "c1", d1, "a flaw", "a.c", "g", s(body("g", 2)), s(body("g", 2))),
		// NVDCHECK by name: c2 changes two functions; the description names parse_hdr.
		fn("p", "c2", d2, "overflow in the parse_hdr function in x.c", "x.c", "parse_hdr", s(body("parse_hdr", 3)), s(body("parse_hdr", 4))),
		fn("p", "c2", d2, "overflow in the parse_hdr function in x.c", "x.c", "other", s(body("other", 5)), s(body("other", 6))),
		// NVDCHECK by file: c3 names src/lex.c, where only lex_next changed; y.c's change is unlabelled.
		fn("p", "c3", d3, "crafted input to src/lex.c crashes", "src/lex.c", "lex_next", s(body("lex_next", 7)), s(body("lex_next", 8))),
		fn("p", "c3", d3, "crafted input to src/lex.c crashes", "src/y.c", "yy", s(body("yy", 9)), s(body("yy", 10))),
		// The file is named but two functions changed in it: neither rule applies; commit dropped.
		fn("p", "c4", d3, "bug in z.c", "z.c", "z1", s(body("z1", 11)), s(body("z1", 12))),
		fn("p", "c4", d3, "bug in z.c", "z.c", "z2", s(body("z2", 13)), s(body("z2", 14))),
		// A duplicate across projects: q's commit repeats c1's change (reformatted).
		fn("q", "c5", d4, "a flaw", "a.c", "f", s(strings.ReplaceAll(body("f", 1), "\t", "    ")), s(body("f", 1)+"\n/*fix*/")),
		// An added function is never vulnerable.
		fn("p", "c2", d2, "overflow in the parse_hdr function in x.c", "x.c", "newf", nil, s(body("newf", 15))),
	}
	rep, gs, _ := run(t, lines, Options{})
	want := []got{
		{"f", "after", "ben", "patched", "train", true},
		{"f", "before", "vul", "onefunc", "train", true},
		{"g", "before", "ben", "unchanged", "train", false},
		{"lex_next", "after", "ben", "patched", "train", true},
		{"lex_next", "before", "vul", "nvdcheck_file", "train", true},
		{"parse_hdr", "after", "ben", "patched", "train", true},
		{"parse_hdr", "before", "vul", "nvdcheck_function", "train", true},
	}
	if diff := cmp.Diff(want, gs); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	removed := map[string]int{}
	for _, st := range rep.Steps {
		for _, r := range st.Removed {
			removed[st.Step+": "+r.Reason] = r.Count
		}
	}
	wantRemoved := map[string]int{
		"dedup_before_label: same normalised before and after text (MD5) as an earlier function": 1,
		"label: in a commit where no function is labelled vulnerable by ONEFUNC or NVDCHECK":     2,
		"label: changed function that neither rule labels vulnerable":                            2,
		"label: function added by the fix (no vulnerable version)":                               1,
	}
	if diff := cmp.Diff(wantRemoved, removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
}

// commitOf returns the lines of a commit with k cases: one vulnerable function deleted by the
// fix (ONEFUNC, no patched version) and k-1 unchanged functions.
func commitOf(id, date string, k int) []string {
	ls := []string{fn("p", id, date, "", "a.c", id+"_vul", s(body(id+"_vul", 1)), nil)}
	for i := 1; i < k; i++ {
		name := fmt.Sprintf("%s_u%d", id, i)
		ls = append(ls, fn("p", id, date, "", "a.c", name, s(body(name, i)), s(body(name, i))))
	}
	return ls
}

func TestSplitBoundary(t *testing.T) {
	// 10 cases in commits of 6, 2, 1, 1 (given out of order). The second commit holds cases 7
	// and 8: it starts below the 80 % mark and stays whole in train.
	var lines []string
	lines = append(lines, commitOf("d", "2021-04-01T00:00:00Z", 1)...)
	lines = append(lines, commitOf("b", "2021-02-01T00:00:00Z", 2)...)
	lines = append(lines, commitOf("a", "2021-01-01T00:00:00Z", 6)...)
	lines = append(lines, commitOf("c", "2021-03-01T00:00:00+02:00", 1)...)
	rep, gs, _ := run(t, lines, Options{})
	split := map[string]string{}
	for _, g := range gs {
		split[strings.SplitN(g.Function, "_", 2)[0]] = g.Split
	}
	if diff := cmp.Diff(map[string]string{"a": "train", "b": "train", "c": "valid", "d": "test"}, split); diff != "" {
		t.Errorf("splits (-want +got):\n%s", diff)
	}
	counts := []int{}
	for _, sr := range rep.Splits {
		counts = append(counts, sr.Cases, sr.Commits)
	}
	if diff := cmp.Diff([]int{8, 2, 1, 1, 1, 1}, counts); diff != "" {
		t.Errorf("split counts (-want +got):\n%s", diff)
	}
	if rep.Splits[0].From != "2021-01-01T00:00:00Z" || rep.Splits[1].To != "2021-03-01T00:00:00+02:00" {
		t.Errorf("split dates: %+v", rep.Splits)
	}
}

func TestPairSimilarity(t *testing.T) {
	lines := []string{
		fn("p", "c81", "2020-01-01T00:00:00Z", "", "a.c", "f81", s(words(100, 0)), s(words(100, 19))),
		fn("p", "c79", "2020-01-02T00:00:00Z", "", "a.c", "f79", s("q "+words(100, 0)), s("q "+words(100, 21))),
	}
	// f79's texts have 101 tokens each, 21 replaced: 1 - 42/202 = 0.792.
	rep, gs, out := run(t, lines, Options{})
	want := []got{
		{"f79", "after", "ben", "patched", "train", false},
		{"f79", "before", "vul", "onefunc", "train", false},
		{"f81", "after", "ben", "patched", "train", true},
		{"f81", "before", "vul", "onefunc", "train", true},
	}
	if diff := cmp.Diff(want, gs); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	last := rep.Steps[len(rep.Steps)-1]
	if last.Step != "pair" || last.In != 2 || last.Out != 1 || len(last.Removed) != 1 || last.Removed[0].Count != 1 {
		t.Errorf("pair step: %+v", last)
	}
	b, err := os.ReadFile(filepath.Join(out, "train_paired.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 2 || !strings.Contains(string(b), `"f81"`) {
		t.Errorf("train_paired.jsonl has %d lines:\n%s", n, b)
	}
}

func TestDedupAfterMerge(t *testing.T) {
	lines := []string{
		// c1's patched f equals c2's unchanged h: the later copy goes.
		fn("p", "c1", "2020-01-01T00:00:00Z", "", "a.c", "f", s(body("f", 1)), s(body("f", 2))),
		fn("p", "c2", "2020-01-02T00:00:00Z", "", "a.c", "k", s(body("k", 1)), s(body("k", 3))),
		fn("p", "c2", "2020-01-02T00:00:00Z", "", "a.c", "h", s(body("f", 2)), s(body("f", 2))),
		// c3's unchanged u has the text of c2's vulnerable k: labelled both ways, every copy goes.
		fn("p", "c3", "2020-01-03T00:00:00Z", "", "a.c", "m", s(body("m", 1)), s(body("m", 5))),
		fn("p", "c3", "2020-01-03T00:00:00Z", "", "a.c", "u", s(body("k", 1)), s(body("k", 1))),
	}
	rep, gs, _ := run(t, lines, Options{})
	want := []got{
		{"f", "after", "ben", "patched", "train", true},
		{"f", "before", "vul", "onefunc", "train", true},
		{"k", "after", "ben", "patched", "train", false},
		{"m", "after", "ben", "patched", "train", true},
		{"m", "before", "vul", "onefunc", "train", true},
	}
	if diff := cmp.Diff(want, gs); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	st := rep.Steps[3]
	if diff := cmp.Diff(Step{Step: "dedup_after_merge", Unit: "cases", In: 8, Out: 5, Removed: []Removal{
		{Reason: "same normalised text (MD5) as an earlier case", Count: 1},
		{Reason: "same normalised text labelled both vul and ben (every copy)", Count: 2}}}, st); diff != "" {
		t.Errorf("step (-want +got):\n%s", diff)
	}
}

func TestDecodeLineProblems(t *testing.T) {
	tests := []struct{ line, want string }{
		{`{"project": "p", "commit_id": `, "invalid JSON: the line ends before the object does (truncated?)"},
		{`{"project": "p" "commit_id": "c"}`, "invalid JSON at column 17: invalid character '\"' after object key:value pair"},
		{`[1, 2]`, "invalid record: expected a JSON object, got array"},
		{`{"project": 3}`, `field "project": expected string, got JSON number`},
		{fn("p", "c", "2020-01-01T00:00:00Z", "", "a.c", "f", nil, nil), `"before" and "after" are both null`},
	}
	for _, tt := range tests {
		got := "<nil>"
		if d := decodeLine([]byte(tt.line), 1); d.err != nil {
			got = d.err.Error()
		}
		if got != tt.want {
			t.Errorf("decodeLine(%s) = %s, want %s", tt.line, got, tt.want)
		}
	}
}

func TestMalformedAndDeterminism(t *testing.T) {
	lines := []string{
		fn("p", "c1", "2020-01-01T00:00:00Z", "", "a.c", "f", s(body("f", 1)), s(body("f", 2))),
		`{"project": "p", "commit_id": `,
		fn("p", "c2", "yesterday", "", "a.c", "g", s(body("g", 1)), s(body("g", 2))),
		fn("p", "c3", "2020-01-03T00:00:00Z", "", "a.c", "h", nil, nil),
		fn("p", "c4", "2020-01-04T00:00:00Z", "", "a.c", "k", s(body("k", 1)), s(body("k", 2))),
	}
	rep, _, out := run(t, lines, Options{Workers: 2})
	var probs []string
	for _, p := range rep.Problems {
		probs = append(probs, p[strings.LastIndex(p, "raw.jsonl:"):][:len("raw.jsonl:2")])
	}
	if diff := cmp.Diff([]string{"raw.jsonl:2", "raw.jsonl:3", "raw.jsonl:4"}, probs); diff != "" {
		t.Errorf("problems (-want +got):\n%s\n%v", diff, rep.Problems)
	}
	if rep.Malformed != 3 || rep.Records != 2 || rep.Lines != 5 {
		t.Errorf("report: malformed %d records %d lines %d", rep.Malformed, rep.Records, rep.Lines)
	}

	// Strict: the first malformed line is fatal, with its line number.
	dir := filepath.Dir(out)
	_, err := Curate(context.Background(), filepath.Join(dir, "raw.jsonl"), filepath.Join(dir, "strict"), Options{Strict: true})
	if err == nil || !strings.Contains(err.Error(), "raw.jsonl:2: invalid JSON") {
		t.Errorf("strict: err = %v", err)
	}

	// A re-run writes the same bytes.
	again := filepath.Join(dir, "again")
	if _, err := Curate(context.Background(), filepath.Join(dir, "raw.jsonl"), again, Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"train.jsonl", "valid.jsonl", "test.jsonl", "train_paired.jsonl", "test_paired.jsonl", "report.json"} {
		a, _ := os.ReadFile(filepath.Join(out, name))
		b, _ := os.ReadFile(filepath.Join(again, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between runs", name)
		}
	}
	ents, _ := os.ReadDir(again)
	if len(ents) != 7 {
		t.Errorf("output holds %d files, want 7 (no spill left behind)", len(ents))
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		desc, name string
		file, want bool
	}{
		{"overflow in the parse function", "parse", false, true},
		{"overflow in the parser function", "parse", false, false},
		{"overflow in Foo::bar()", "ns::Foo::bar", false, true},
		{"in lib/x.c, a crafted file", "src/lib/x.c", true, true},
		{"in libx.c, a crafted file", "x.c", true, false},
		{"in x.cc, a crafted file", "x.c", true, false},
		{"crafted file (x.c).", "x.c", true, true},
	}
	for _, tt := range tests {
		got := NamesFunction(tt.desc, tt.name)
		if tt.file {
			got = NamesFile(tt.desc, tt.name)
		}
		if got != tt.want {
			t.Errorf("%q names %q = %v, want %v", tt.desc, tt.name, got, tt.want)
		}
	}
}
