package suite_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/schema"
)

const (
	okVul = `{"id":"a","kind":"function","label":"vul","pair":"p1","code":"int f(void){return 0;}","cwe":["CWE-787"]}`
	okBen = `{"id":"b","kind":"function","label":"ben","pair":"p1","code":"int f(void){return 1;}","cwe":["CWE-787"]}`
)

func messages(errs []error) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestScanAndValidateReportEveryProblem(t *testing.T) {
	sch, err := schema.CompileCase()
	if err != nil {
		t.Fatal(err)
	}
	big := `{"id":"big","kind":"function","label":"vul","code":"` + strings.Repeat("x", 10<<20) + `"}`
	tests := []struct {
		name     string
		in       string
		scan     []string // problems from Scan (the fast reader run and score use)
		validate []string // problems from Validate (schema first); nil means same as scan
		cases    int      // cases Scan hands on
	}{
		{name: "clean pair", in: okVul + "\n" + okBen + "\n", scan: []string{}, cases: 2},
		{name: "CRLF line endings and blank lines", in: okVul + "\r\n\r\n" + okBen + "\r\n", scan: []string{}, cases: 2},
		{name: "last line without newline", in: okVul + "\n" + okBen, scan: []string{}, cases: 2},
		{name: "bad JSON", in: okVul + "\n{\"id\": x}\n" + okBen + "\n",
			scan: []string{"s.jsonl:2: invalid JSON at column 8: invalid character 'x' looking for beginning of value"}, cases: 2},
		{name: "a stray closing brace or bracket after the object", in: okVul + "}\n" + okBen + "]\n",
			scan: []string{"s.jsonl:1: more than one JSON value on the line", "s.jsonl:2: more than one JSON value on the line"},
			validate: []string{"s.jsonl:1: invalid JSON at column 105: invalid character '}' after top-level value",
				"s.jsonl:2: invalid JSON at column 105: invalid character ']' after top-level value"}},
		{name: "truncated last line", in: okVul + "\n" + okBen + "\n" + `{"id":"c","kind":"func`,
			scan: []string{"s.jsonl:3: invalid JSON: the line ends before the object does (truncated?)"}, cases: 2},
		{name: "missing field", in: `{"id":"a","kind":"function","code":"x"}` + "\n",
			scan:     []string{`s.jsonl:1: case "a": missing field "label"`},
			validate: []string{"s.jsonl:1: schema: at /: missing property 'label'"}},
		{name: "unknown field (typo)", in: `{"id":"a","kind":"function","label":"vul","code":"x","cwes":[]}` + "\n",
			scan:     []string{`s.jsonl:1: invalid case: unknown field "cwes"`},
			validate: []string{"s.jsonl:1: schema: at /: additional properties 'cwes' not allowed"}},
		{name: "bad enum and CWE", in: `{"id":"a","kind":"function","label":"maybe","code":"x","cwe":["787"]}` + "\n",
			scan: []string{`s.jsonl:1: case "a": label "maybe" is not vul or ben`},
			validate: []string{
				`s.jsonl:1: schema: at /cwe/0: '787' does not match pattern '^(CWE-[0-9]+|NVD-CWE-Other|NVD-CWE-noinfo)$'`,
				`s.jsonl:1: schema: at /label: value must be one of 'vul', 'ben'`}},
		{name: "duplicate id", in: okVul + "\n" + okBen + "\n" + strings.Replace(okBen, `"pair":"p1"`, `"pair":"p2"`, 1) + "\n",
			scan: []string{`s.jsonl:3: duplicate id "b" (first on line 2)`, `s.jsonl:3: pair "p2" has one case: its vul twin is missing`}, cases: 3},
		{name: "pair of two vul", in: okVul + "\n" + strings.Replace(okBen, `"label":"ben"`, `"label":"vul"`, 1) + "\n",
			scan: []string{`s.jsonl:1: pair "p1" has 2 vul and 0 ben cases (lines 1, 2): a pair is one vul and one ben case`}, cases: 2},
		{name: "pair mixing kinds", in: okVul + "\n" + strings.Replace(okBen, `"kind":"function"`, `"kind":"appsec"`, 1) + "\n",
			scan: []string{`s.jsonl:1: pair "p1" mixes kinds (lines 1, 2): both cases of a pair have one kind`}, cases: 2},
		{name: "10 MB line", in: okVul + "\n" + big + "\n" + okBen + "\n",
			scan: []string{"s.jsonl:2: line is 10.0 MiB, over the 8 MiB limit for one record"}, cases: 2},
		{name: "jit without target", in: `{"id":"j","kind":"jit","label":"vul"}` + "\n",
			scan:     []string{`s.jsonl:1: case "j": a jit case needs "target.function"`},
			validate: []string{"s.jsonl:1: schema: at /: missing property 'target'"}},
		{name: "bad date", in: `{"id":"a","kind":"vex","label":"ben","cve":"CVE-2024-1","date":"yesterday"}` + "\n",
			scan:     []string{`s.jsonl:1: case "a": date "yesterday" is not RFC 3339 (like 2024-05-01T12:00:00Z)`},
			validate: []string{"s.jsonl:1: schema: at /date: 'yesterday' is not valid date-time: less than 20 characters long"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			_, problems, err := suite.ScanReader(strings.NewReader(tt.in), "s.jsonl", nil, true, func(*suite.Case, int) error { n++; return nil })
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.scan, messages(problems)); d != "" {
				t.Errorf("Scan problems (-want +got):\n%s", d)
			}
			if n != tt.cases {
				t.Errorf("Scan handed on %d cases, want %d", n, tt.cases)
			}
			want := tt.validate
			if want == nil {
				want = tt.scan
			}
			_, vp, err := suite.Validate(strings.NewReader(tt.in), "s.jsonl", nil, sch)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, messages(vp)); d != "" {
				t.Errorf("Validate problems (-want +got):\n%s", d)
			}
		})
	}
}

func TestScanHashesTheBytes(t *testing.T) {
	a, _, _ := suite.ScanReader(strings.NewReader(okVul+"\n"+okBen+"\n"), "s", nil, false, nil)
	b, _, _ := suite.ScanReader(strings.NewReader(okVul+"\n"+okBen+"\n\n"), "s", nil, false, nil)
	if a == b || len(a) != 64 {
		t.Errorf("hashes %q and %q: want two different sha256 hex digests", a, b)
	}
}

func TestWriterRoundTrip(t *testing.T) {
	in := []*suite.Case{
		{ID: "x<1>", Kind: suite.KindFunction, Label: suite.Vul, Code: "a && b\n", CWE: []string{"CWE-1"}, Source: map[string]any{"idx": float64(12)}},
		{ID: "y", Kind: suite.KindJIT, Label: suite.Ben, Target: &suite.Target{Function: "f", Line: 3}},
	}
	var buf bytes.Buffer
	w := suite.NewWriter(&buf)
	for _, c := range in {
		if err := w.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `\u003c`) {
		t.Errorf("writer escapes HTML: %s", buf.String())
	}
	var got []*suite.Case
	_, problems, err := suite.ScanReader(&buf, "w", nil, true, func(c *suite.Case, _ int) error { got = append(got, c); return nil })
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	if d := cmp.Diff(in, got); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	if idx, ok := got[0].SourceIdx(); !ok || idx != "12" {
		t.Errorf("SourceIdx = %q, %v; want 12", idx, ok)
	}
}

func TestStats(t *testing.T) {
	st := suite.NewStats()
	for _, c := range []suite.Case{
		{ID: "1", Kind: suite.KindFunction, Label: suite.Vul, Pair: "p", CWE: []string{"CWE-787", "CWE-119"}, Language: "c"},
		{ID: "2", Kind: suite.KindFunction, Label: suite.Ben, Pair: "p", CWE: []string{"CWE-787"}, Language: "c"},
		{ID: "3", Kind: suite.KindVEX, Label: suite.Ben, Split: "test", Project: "x", VEX: &suite.VEX{Category: "code_not_reachable"}},
		{ID: "4", Kind: suite.KindVEX, Label: suite.Vul, Project: "x", VEX: &suite.VEX{Category: "vulnerable"}},
		{ID: "5", Kind: suite.KindVEX, Label: suite.Ben, Project: "x"},
	} {
		st.Add(&c)
	}
	got := fmt.Sprint(st.Dimensions())
	want := "[{kind [{vex 3} {function 2}]} {label [{ben 3} {vul 2}]} {split [{(none) 4} {test 1}]} {language [{(none) 3} {c 2}]} " +
		"{cwe [{(none) 3} {CWE-787 2} {CWE-119 1}]} {project [{x 3} {(none) 2}]} " +
		"{status [{not_exploitable 2} {exploitable 1}]} {category [{(none) 1} {code_not_reachable 1} {vulnerable 1}]}]"
	if got != want || st.Cases != 5 || st.Pairs != 1 {
		t.Errorf("stats = %d cases, %d pairs, %s\nwant 5 cases, 1 pair, %s", st.Cases, st.Pairs, got, want)
	}
}

// A suite with dates is counted by year too; undated cases before and after the first dated
// one count as (none).
func TestStatsYear(t *testing.T) {
	st := suite.NewStats()
	for _, d := range []string{"", "2023-05-01T00:00:00Z", "2024-01-02T00:00:00Z", "", "2024-12-31T23:59:59Z"} {
		st.Add(&suite.Case{ID: "x", Kind: suite.KindFunction, Label: suite.Vul, Date: d})
	}
	var year []suite.Count
	for _, d := range st.Dimensions() {
		if d.Name == "year" {
			year = d.Counts
		}
	}
	if got, want := fmt.Sprint(year), "[{(none) 2} {2024 2} {2023 1}]"; got != want {
		t.Errorf("year = %s, want %s", got, want)
	}
}

func TestCheckVEX(t *testing.T) {
	for _, tc := range []struct {
		c    suite.Case
		want string
	}{
		{suite.Case{ID: "a", Kind: suite.KindVEX, Label: suite.Ben}, `case "a": a vex case needs "cve"`},
		{suite.Case{ID: "a", Kind: suite.KindVEX, Label: suite.Ben, CVE: "CVE-1", VEX: &suite.VEX{Category: "nope"}},
			`case "a": vex.category "nope" is not one of VEX-Bench's twelve categories`},
		{suite.Case{ID: "a", Kind: suite.KindVEX, Label: suite.Ben, CVE: "CVE-1", VEX: &suite.VEX{Category: "vulnerable"}},
			`case "a": vex.category "vulnerable" contradicts label "ben" (only "vulnerable" is vul)`},
		{suite.Case{ID: "a", Kind: suite.KindVEX, Label: suite.Vul, CVE: "CVE-1", VEX: &suite.VEX{Category: "uncertain"}},
			`case "a": vex.category "uncertain" contradicts label "vul" (only "vulnerable" is vul)`},
		{suite.Case{ID: "a", Kind: suite.KindVEX, Label: suite.Vul, CVE: "CVE-1", VEX: &suite.VEX{Category: "vulnerable"}}, `<nil>`},
	} {
		if got := fmt.Sprint(tc.c.Check()); got != tc.want {
			t.Errorf("Check(%+v) = %s; want %s", tc.c, got, tc.want)
		}
	}
}
