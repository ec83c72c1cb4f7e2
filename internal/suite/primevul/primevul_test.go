package primevul

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// brief is the part of a case the table tests compare.
type brief struct {
	ID, Label, Pair, Lang, CVE string
	CWE                        []string
}

func run(t *testing.T, data []byte, file string, opt Options) ([]brief, []*suite.Case, Report, []string, []byte) {
	t.Helper()
	var out bytes.Buffer
	w := suite.NewWriter(&out)
	rep, errs, err := Import(bytes.NewReader(data), file, w, opt)
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range errs {
		var le *suite.LineError
		if !errors.As(e, &le) {
			t.Errorf("problem %q is a %T, not a *suite.LineError", e, e)
		}
		msgs = append(msgs, e.Error())
	}
	if len(errs) > 0 {
		return nil, nil, rep, msgs, nil
	}
	// What Import writes must pass the suite checks, pairs included.
	var cases []*suite.Case
	var briefs []brief
	_, problems, err := suite.ScanReader(bytes.NewReader(out.Bytes()), "out.jsonl", nil, true, func(c *suite.Case, _ int) error {
		cases = append(cases, c)
		briefs = append(briefs, brief{ID: c.ID, Label: string(c.Label), Pair: c.Pair, Lang: c.Language, CVE: c.CVE, CWE: c.CWE})
		return nil
	})
	if err != nil || len(problems) > 0 {
		t.Fatalf("output fails the suite checks: %v %v", err, problems)
	}
	return briefs, cases, rep, nil, out.Bytes()
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestImportFixtures(t *testing.T) {
	originalCases := []brief{
		{ID: "primevul-0", Label: "vul", Lang: "c", CVE: "CVE-2019-10001", CWE: []string{"CWE-787"}},
		{ID: "primevul-1", Label: "ben", Lang: "c"},
		{ID: "primevul-2", Label: "ben", Lang: "c"},
		{ID: "primevul-3", Label: "vul", Lang: "c", CVE: "CVE-2020-20002", CWE: []string{"CWE-125"}},
	}
	withPair := func(cs []brief, pairs ...string) []brief {
		out := make([]brief, len(cs))
		copy(out, cs)
		for i := range out {
			out[i].Pair = pairs[i]
		}
		return out
	}
	v01Cases := []brief{
		{ID: "primevul-100", Label: "vul", Lang: "c", CVE: "CVE-2021-30001", CWE: []string{"CWE-787"}},
		{ID: "primevul-101", Label: "ben", Lang: "c", CVE: "CVE-2021-30001", CWE: []string{"CWE-787"}},
		{ID: "primevul-102", Label: "vul", Lang: "c", CVE: "CVE-2021-30002", CWE: []string{"CWE-120"}},
		{ID: "primevul-103", Label: "vul", Lang: "cpp", CVE: "CVE-2021-30002", CWE: []string{"CWE-120"}},
		{ID: "primevul-104", Label: "ben", Lang: "cpp", CVE: "CVE-2021-30002", CWE: []string{"CWE-120"}},
		{ID: "primevul-105", Label: "ben", Lang: "c", CVE: "CVE-2021-30002", CWE: []string{"CWE-120"}},
		{ID: "primevul-106", Label: "vul", Lang: "c"},
		{ID: "primevul-107", Label: "vul", Lang: "c", CVE: "CVE-2022-40004", CWE: []string{"NVD-CWE-Other"}},
		{ID: "primevul-108", Label: "ben", Lang: "c", CVE: "CVE-2022-40004", CWE: []string{"NVD-CWE-Other"}},
	}
	v01Dup := []DupIdx{{Idx: 106, Line: 8, First: 7}}
	tests := []struct {
		name       string
		fixture    string
		opt        Options
		wantCases  []brief
		wantReport Report
		wantErrs   []string
	}{
		{
			name:      "original, auto = unpaired",
			fixture:   "original.jsonl",
			wantCases: originalCases,
			// its two commits have one vul and one ben row each (the repeated idx dropped)
			wantReport: Report{Rows: 5, Cases: 4, Vul: 2, Ben: 2, Format: "original", LooksPaired: true,
				DuplicateIdx: []DupIdx{{Idx: 1, Line: 4, First: 2}}},
		},
		{
			// One vul and one ben row per commit make a pair, whatever their names.
			name:      "original, paired forced",
			fixture:   "original.jsonl",
			opt:       Options{Paired: "yes"},
			wantCases: withPair(originalCases, "primevul-pair-0", "primevul-pair-0", "primevul-pair-3", "primevul-pair-3"),
			wantReport: Report{Rows: 5, Cases: 4, Vul: 2, Ben: 2, Pairs: 2, Paired: true, Format: "original",
				DuplicateIdx: []DupIdx{{Idx: 1, Line: 4, First: 2}}},
		},
		{
			name:    "v0.1 paired, auto = paired",
			fixture: "v01_paired.jsonl",
			wantCases: withPair(v01Cases, "primevul-pair-100", "primevul-pair-100", "primevul-pair-102",
				"primevul-pair-103", "primevul-pair-103", "primevul-pair-102", "", "primevul-pair-107", "primevul-pair-107"),
			wantReport: Report{Rows: 10, Cases: 9, Vul: 5, Ben: 4, Pairs: 4, Paired: true, Format: "v0.1",
				DuplicateIdx: v01Dup,
				Unpaired: []string{
					"primevul-106 (line 7): commit ccc3 of barlib has no ben row; line 8 of this commit was dropped for repeating an idx",
				},
				DisagreementCount: 4,
				Disagreements: []string{
					"lines 3 and 4 (primevul-102 vul, primevul-103 vul) are consecutive, but grouped by commit primevul-102 pairs with primevul-105, primevul-103 pairs with primevul-104",
					"lines 5 and 6 (primevul-104 ben, primevul-105 ben) are consecutive, but grouped by commit primevul-104 pairs with primevul-103, primevul-105 pairs with primevul-102",
					"lines 7 and 9 (primevul-106 vul, primevul-107 vul) are consecutive, but grouped by commit primevul-106 has no twin, primevul-107 pairs with primevul-108",
					"line 10 (primevul-108 ben) is the last of an odd number of rows, but grouped by commit primevul-108 pairs with primevul-107",
				},
			},
		},
		{
			name:      "v0.1 paired file read unpaired",
			fixture:   "v01_paired.jsonl",
			opt:       Options{Paired: "no"},
			wantCases: v01Cases,
			wantReport: Report{Rows: 10, Cases: 9, Vul: 5, Ben: 4, Format: "v0.1",
				DuplicateIdx: v01Dup},
		},
		{
			name:    "bad lines",
			fixture: "bad.jsonl",
			wantErrs: []string{
				`bad.jsonl:2: invalid JSON at column 27: invalid character '"' after object key:value pair`,
				`bad.jsonl:3: missing field "func"`,
				`bad.jsonl:4: field "target": expected 0 or 1, got number 2`,
				`bad.jsonl:7: field "idx": expected a non-negative integer, got string "7"`,
				`bad.jsonl:7: field "func" is empty`,
				`bad.jsonl:8: invalid JSON: the line ends before the object does (truncated?)`,
			},
		},
		{
			name:    "bad lines, paired",
			fixture: "bad.jsonl",
			opt:     Options{Paired: "yes"},
			wantErrs: []string{
				`bad.jsonl:2: invalid JSON at column 27: invalid character '"' after object key:value pair`,
				`bad.jsonl:3: missing field "func"`,
				`bad.jsonl:4: field "target": expected 0 or 1, got number 2`,
				`bad.jsonl:7: field "idx": expected a non-negative integer, got string "7"`,
				`bad.jsonl:7: field "func" is empty`,
				`bad.jsonl:8: invalid JSON: the line ends before the object does (truncated?)`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, rep, errs, _ := run(t, readFixture(t, tt.fixture), tt.fixture, tt.opt)
			if diff := cmp.Diff(tt.wantErrs, errs); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if tt.wantErrs != nil {
				return
			}
			if diff := cmp.Diff(tt.wantCases, got); diff != "" {
				t.Errorf("cases (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantReport, rep); diff != "" {
				t.Errorf("report (-want +got):\n%s", diff)
			}
		})
	}
}

// TestImportCaseFields checks every field of two written cases, as JSON.
func TestImportCaseFields(t *testing.T) {
	tests := []struct {
		fixture string
		line    int // of the output
		want    string
	}{
		{"original.jsonl", 0, `{"id":"primevul-0","kind":"function","label":"vul","project":"tinyhttp","commit":"c0ffee01",
			"language":"c","cwe":["CWE-787"],"cve":"CVE-2019-10001",
			"code":"static int parse_request(struct req *r, const char *buf, size_t n)\n{\n\tchar line[64];\n\tmemcpy(line, buf, n);\n\treturn handle(r, line);\n}",
			"source":{"dataset":"primevul","idx":0,"hash":"298834867120488339468264536917357233915"}}`},
		{"original.jsonl", 2, `{"id":"primevul-2","kind":"function","label":"ben","project":"zlibish","commit":"0badf00d","language":"c",
			"code":"size_t inflate_step(struct zs *s)\n{\n\tif (s->avail < 4)\n\t\treturn 0;\n\treturn s->next[3];\n}",
			"source":{"dataset":"primevul","idx":2,"hash":"77"}}`},
		{"v01_paired.jsonl", 0, `{"id":"primevul-100","kind":"function","label":"vul","pair":"primevul-pair-100","project":"libfoo",
			"commit":"aaa1","language":"c","cwe":["CWE-787"],"cve":"CVE-2021-30001",
			"code":"int parse_hdr(const char *p, size_t n)\n{\n\tchar buf[16];\n\tmemcpy(buf, p, n);\n\treturn buf[0];\n}",
			"source":{"dataset":"primevul","idx":100,"func_hash":"340282366920938463463374607431768211100","file_name":"src/hdr.c",
				"commit_url":"https://example.org/libfoo/commit/aaa1","nvd_url":"https://nvd.nist.gov/vuln/detail/CVE-2021-30001"},
			"meta":{"cve_desc":"A buffer overflow in parse_hdr in libfoo 1.2 allows remote attackers to execute code."}}`},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s#%d", tt.fixture, tt.line), func(t *testing.T) {
			_, _, _, errs, out := run(t, readFixture(t, tt.fixture), tt.fixture, Options{})
			if errs != nil {
				t.Fatal(errs)
			}
			lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if diff := cmp.Diff(decode(t, tt.want), decode(t, lines[tt.line])); diff != "" {
				t.Errorf("case (-want +got):\n%s", diff)
			}
		})
	}
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return m
}

// line builds one original-format row with the given fields replaced (raw JSON values).
func line(fields ...string) string {
	base := map[string]string{"idx": "1", "project": `"p"`, "commit_id": `"c"`, "target": "1", "func": `"int f(void) { return 0; }"`}
	order := []string{"idx", "project", "commit_id", "target", "func"}
	for i := 0; i+1 < len(fields); i += 2 {
		if _, ok := base[fields[i]]; !ok {
			order = append(order, fields[i])
		}
		base[fields[i]] = fields[i+1]
	}
	var parts []string
	for _, k := range order {
		if v := base[k]; v != "-" {
			parts = append(parts, fmt.Sprintf("%q: %s", k, v))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func TestImportInline(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		opt       Options
		wantCases []brief
		wantErrs  []string
	}{
		{
			name:      "CRLF and blank lines",
			data:      line() + "\r\n\r\n  \r\n" + line("idx", "2", "target", "0") + "\r\n",
			wantCases: []brief{{ID: "primevul-1", Label: "vul", Lang: "c"}, {ID: "primevul-2", Label: "ben", Lang: "c"}},
		},
		{
			name:      "UTF-8 byte order mark",
			data:      "\xef\xbb\xbf" + line() + "\n",
			wantCases: []brief{{ID: "primevul-1", Label: "vul", Lang: "c"}},
		},
		{
			name: "cwe and cve shapes",
			data: line("cwe", `"CWE-79"`, "cve", `"cve-2020-1234"`) + "\n" +
				line("idx", "2", "cwe", "null", "cve", `""`) + "\n" +
				line("idx", "3", "cwe", `[" ", null, "NVD-CWE-noinfo", "CWE-20"]`, "cve", `[null, "None", "CVE-2021-99999"]`) + "\n",
			wantCases: []brief{
				{ID: "primevul-1", Label: "vul", Lang: "c", CVE: "CVE-2020-1234", CWE: []string{"CWE-79"}},
				{ID: "primevul-2", Label: "vul", Lang: "c"},
				{ID: "primevul-3", Label: "vul", Lang: "c", CVE: "CVE-2021-99999", CWE: []string{"NVD-CWE-noinfo", "CWE-20"}},
			},
		},
		{
			name: "languages from file_name",
			data: line("file_name", `"a/b.cpp"`) + "\n" + line("idx", "2", "file_name", `"x.HPP"`) + "\n" +
				line("idx", "3", "file_name", `"x.h"`) + "\n" + line("idx", "4", "file_name", `"Makefile"`) + "\n",
			wantCases: []brief{
				{ID: "primevul-1", Label: "vul", Lang: "cpp"}, {ID: "primevul-2", Label: "vul", Lang: "cpp"},
				{ID: "primevul-3", Label: "vul", Lang: "c"}, {ID: "primevul-4", Label: "vul", Lang: "c"},
			},
		},
		{
			// vul a, vul b, ben b, ben c: b pairs by name, a and c fall back to file order.
			name: "several pairs in one commit: name first, then file order",
			opt:  Options{Paired: "yes"},
			data: line("idx", "1", "func", `"int a(void) {}"`) + "\n" + line("idx", "2", "func", `"int b(void) {}"`) + "\n" +
				line("idx", "3", "target", "0", "func", `"int b(int x) {}"`) + "\n" + line("idx", "4", "target", "0", "func", `"int c(void) {}"`) + "\n",
			wantCases: []brief{
				{ID: "primevul-1", Label: "vul", Lang: "c", Pair: "primevul-pair-1"},
				{ID: "primevul-2", Label: "vul", Lang: "c", Pair: "primevul-pair-2"},
				{ID: "primevul-3", Label: "ben", Lang: "c", Pair: "primevul-pair-2"},
				{ID: "primevul-4", Label: "ben", Lang: "c", Pair: "primevul-pair-1"},
			},
		},
		{
			name: "missing and wrong-typed fields",
			data: line("idx", "-", "project", "-", "commit_id", "-", "target", "-", "func", "-") + "\n" +
				line("idx", "1.5", "project", "3", "commit_id", "null", "target", `"1"`, "func", "[]") + "\n" +
				line("idx", "-4", "target", "true") + "\n" +
				line("idx", "99999999999999999999") + "\n" +
				line("cwe", `"CWE-abc"`) + "\n" +
				line("cwe", "{}") + "\n" +
				line("cve", `"CVE-abc"`) + "\n" +
				line("cve", "7") + "\n" +
				line("hash", "true", "file_name", "1", "cve_desc", "[]") + "\n" +
				`[1, 2]` + "\n" +
				line() + ` {}` + "\n",
			wantErrs: []string{
				`in.jsonl:1: missing field "idx"`,
				`in.jsonl:1: missing field "project"`,
				`in.jsonl:1: missing field "commit_id"`,
				`in.jsonl:1: missing field "target"`,
				`in.jsonl:1: missing field "func"`,
				`in.jsonl:2: field "idx": expected a non-negative integer, got number 1.5`,
				`in.jsonl:2: field "project": expected a string, got number 3`,
				`in.jsonl:2: missing field "commit_id"`,
				`in.jsonl:2: field "target": expected 0 or 1, got string "1"`,
				`in.jsonl:2: field "func": expected a string, got array`,
				`in.jsonl:3: field "idx": expected a non-negative integer, got number -4`,
				`in.jsonl:3: field "target": expected 0 or 1, got boolean true`,
				`in.jsonl:4: field "idx": expected a non-negative integer, got number 99999999999999999999`,
				`in.jsonl:5: field "cwe": "CWE-abc" is not like CWE-787 (or NVD-CWE-Other, NVD-CWE-noinfo)`,
				`in.jsonl:6: field "cwe": expected a list of strings like "CWE-787", got object`,
				`in.jsonl:7: field "cve": "CVE-abc" is not like CVE-2021-1234`,
				`in.jsonl:8: field "cve": expected a string or a list of strings like "CVE-2021-1234", got number 7`,
				`in.jsonl:9: field "hash": expected a number or a string, got boolean true`,
				`in.jsonl:9: field "file_name": expected a string, got number 1`,
				`in.jsonl:9: field "cve_desc": expected a string, got array`,
				`in.jsonl:10: invalid record: expected a JSON object, got array`,
				`in.jsonl:11: invalid JSON: more than one JSON value on the line`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, _, errs, _ := run(t, []byte(tt.data), "in.jsonl", tt.opt)
			if diff := cmp.Diff(tt.wantErrs, errs); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCases, got); diff != "" {
				t.Errorf("cases (-want +got):\n%s", diff)
			}
		})
	}
}

func TestImportCapsProblems(t *testing.T) {
	data := strings.Repeat("{\n", 150)
	_, _, _, errs, _ := run(t, []byte(data), "many.jsonl", Options{})
	if len(errs) != suite.MaxProblems+1 {
		t.Fatalf("got %d problems, want %d", len(errs), suite.MaxProblems+1)
	}
	want := []string{
		"many.jsonl:1: invalid JSON: the line ends before the object does (truncated?)",
		"many.jsonl:100: invalid JSON: the line ends before the object does (truncated?)",
		"many.jsonl: and 50 more problems",
	}
	if diff := cmp.Diff(want, []string{errs[0], errs[99], errs[100]}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestImportLongLine(t *testing.T) {
	// An over-long line is a problem of its own; the next lines are still read.
	long := line("func", `"`+strings.Repeat("x", suite.DefaultMaxLine)+`"`)
	_, _, _, errs, _ := run(t, []byte(line()+"\n"+long+"\n"+line("target", "5")+"\n"), "big.jsonl", Options{})
	want := []string{
		"big.jsonl:2: line is 8.0 MiB, over the 8 MiB limit for one record",
		`big.jsonl:3: field "target": expected 0 or 1, got number 5`,
	}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		f.n++
		return copy(p, line()+"\n"), nil
	}
	return 0, errors.New("disk on fire")
}

func TestImportFailures(t *testing.T) {
	w := suite.NewWriter(io.Discard)
	_, _, err := Import(&failingReader{}, "x.jsonl", w, Options{})
	if err == nil || err.Error() != "x.jsonl:2: read: disk on fire" {
		t.Errorf("read failure: got %v", err)
	}
	_, _, err = Import(strings.NewReader(""), "x.jsonl", w, Options{Paired: "maybe"})
	if err == nil || err.Error() != `primevul: paired option "maybe" is not auto, yes or no` {
		t.Errorf("bad option: got %v", err)
	}
}

func TestFunctionName(t *testing.T) {
	tests := []struct{ code, want string }{
		{"int main(int argc, char **argv) {}", "main"},
		{"static void\nfoo_bar (void)\n{", "foo_bar"},
		{"int Reader::read_len(const uint8_t *p)", "Reader::read_len"},
		{"Reader::~Reader()", "Reader::~Reader"},
		{"struct x *(*get)(void)", ""},
		{"no parenthesis", ""},
		{"(", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := FunctionName(tt.code); got != tt.want {
			t.Errorf("FunctionName(%q) = %q, want %q", tt.code, got, tt.want)
		}
	}
}

// FuzzImport: no input makes Import panic, every problem names the file and its line, and whatever
// it accepts passes the suite checks.
func FuzzImport(f *testing.F) {
	for _, name := range []string{"original.jsonl", "v01_paired.jsonl", "bad.jsonl"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, true)
		f.Add(b, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, paired bool) {
		opt := Options{Paired: "no"}
		if paired {
			opt.Paired = "yes"
		}
		var out bytes.Buffer
		w := suite.NewWriter(&out)
		_, errs, err := Import(bytes.NewReader(data), "fuzz.jsonl", w, opt)
		for i, e := range errs {
			// Only the last, "and N more problems", has no line.
			var le *suite.LineError
			if !errors.As(e, &le) || le.File != "fuzz.jsonl" || (le.Line < 1 && i < len(errs)-1) {
				t.Fatalf("problem %q (%T) does not name fuzz.jsonl:LINE", e, e)
			}
		}
		if err != nil || len(errs) > 0 {
			return
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		_, problems, err := suite.ScanReader(&out, "out.jsonl", nil, true, nil)
		if err != nil || len(problems) > 0 {
			t.Fatalf("output fails the suite checks: %v %v", err, problems)
		}
	})
}
