package jitvul_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
	"github.com/vulnbench/vulnbench/schema"
)

func TestImportFixture(t *testing.T) {
	f, err := os.Open("testdata/final_benchmark.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	w := suite.NewWriter(&out)
	rep, problems, err := jitvul.Import(f, "final_benchmark.jsonl", nil, w)
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	w.Flush()
	if d := cmp.Diff(jitvul.ImportReport{Records: 3, Pairs: 3, Identical: []string{"jitvul-102 (line 2)"}}, rep); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
	sch, err := schema.CompileCase()
	if err != nil {
		t.Fatal(err)
	}
	n, vp, err := suite.Validate(bytes.NewReader(out.Bytes()), "out.jsonl", nil, sch)
	if err != nil || len(vp) > 0 || n != 6 {
		t.Fatalf("validate: %d cases, %v, %v", n, vp, err)
	}
	type got struct {
		ID, Label, Commit, Function, File, Language, CVE string
		CWE                                              []string
		Context                                          map[string]any
		Identical                                        any
	}
	var cases []got
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var c suite.Case
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		ctx, _ := c.Meta["context"].(map[string]any)
		cases = append(cases, got{c.ID, string(c.Label), c.Repo.Commit, c.Target.Function, c.Target.File, c.Language, c.CVE, c.CWE,
			ctx, c.Meta["identical_halves"]})
	}
	main := map[string]any{"main": "int main(void)\n{\n\treturn parse_packet(0, 0);\n}"}
	callee := []any{map[string]any{"callee": "memcpy", "file": "<libc>", "line": 0.0}}
	want := []got{
		{"jitvul-101-vul", "vul", strings.Repeat("c3", 20), "parse_packet", "src/packet.c", "c", "CVE-2031-0101", []string{"CWE-787"},
			map[string]any{"caller_graph": []any{map[string]any{"caller": "main", "file": "src/packet.c", "line": 40.0}}, "callee_graph": callee, "function_bodies": main}, nil},
		{"jitvul-101-ben", "ben", strings.Repeat("a1", 20), "parse_packet", "src/packet.c", "c", "CVE-2031-0101", []string{"CWE-787"},
			map[string]any{"caller_graph": []any{map[string]any{"caller": "main", "file": "src/packet.c", "line": 42.0}}, "callee_graph": callee, "function_bodies": main}, nil},
		{"jitvul-102-vul", "vul", strings.Repeat("f6", 20), "row_bytes", "lib/row.c", "c", "CVE-2031-0102", []string{"CWE-190"},
			map[string]any{"caller_graph": []any{map[string]any{"caller": "main", "file": "lib/row.c", "line": 40.0}}, "callee_graph": callee, "function_bodies": main}, true},
		{"jitvul-102-ben", "ben", strings.Repeat("d4", 20), "row_bytes", "lib/row.c", "c", "CVE-2031-0102", []string{"CWE-190"},
			map[string]any{"caller_graph": []any{map[string]any{"caller": "main", "file": "lib/row.c", "line": 42.0}}, "callee_graph": callee, "function_bodies": main}, true},
		{"jitvul-103-vul", "vul", strings.Repeat("39", 20), "Config::load", "src/config.cpp", "cpp", "CVE-2031-0103", []string{"CWE-122"},
			map[string]any{"caller_graph": "Config::reload -> Config::load", "callee_graph": callee, "function_bodies": main}, nil},
		{"jitvul-103-ben", "ben", strings.Repeat("17", 20), "Config::load", "src/config.cpp", "cpp", "CVE-2031-0103", []string{"CWE-122"},
			map[string]any{"caller_graph": []any{map[string]any{"caller": "main", "file": "src/config.cpp", "line": 42.0}}, "callee_graph": callee}, nil},
	}
	if d := cmp.Diff(want, cases); d != "" {
		t.Errorf("cases (-want +got):\n%s", d)
	}
}

func TestImportMalformed(t *testing.T) {
	good := `"project_url": "https://github.com/example/p", "vulnerability_fixing_commit_id": "aa", "vulnerability_introducing_commit_id": "bb", "file_name": "a.c", "vulnerable_function_body": "int f(int x)\n{\n\treturn x;\n}", "non_vulnerable_function_body": "int f(int x)\n{\n\treturn -x;\n}"`
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		{"not JSON", `{"idx": 1,`, []string{"t.jsonl:1: "}},
		{"no introducing commit", `{"idx": 1, "project_url": "https://github.com/e/p", "commit_id": "aa", "vulnerable_function_body": "int f(){}", "non_vulnerable_function_body": "int f(){ }"}`,
			[]string{`t.jsonl:1: missing field "vulnerability_introducing_commit_id"`}},
		{"no bodies, no url", `{"idx": 1, "vulnerability_fixing_commit_id": "aa", "vulnerability_introducing_commit_id": "bb"}`,
			[]string{`t.jsonl:1: missing field "vulnerable_function_body"` + "\n" + `missing field "non_vulnerable_function_body"` + "\n" + `missing field "project_url"`}},
		{"bad cwe and graph", `{"idx": 1, ` + good + `, "cwe": ["787"], "vulnerable_caller_graph": 3}`,
			[]string{`t.jsonl:1: field "cwe": "787" is not like CWE-787 (or NVD-CWE-Other, NVD-CWE-noinfo)` + "\n" + `field "vulnerable_caller_graph": expected a list, an object or a string, got 3`}},
		{"repeated idx on line 3", "{\"idx\": 1, " + good + "}\n\n{\"idx\": 1, " + good + "}",
			[]string{`t.jsonl:3: pair jitvul-1 again (first on line 1): idx must be unique`}},
		{"bad idx", `{"idx": "x1", ` + good + `}`, []string{`t.jsonl:1: field "idx": expected an integer, got "x1"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			_, problems, err := jitvul.Import(strings.NewReader(tt.in), "t.jsonl", nil, suite.NewWriter(&out))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range problems {
				got = append(got, p.Error())
			}
			if tt.name == "not JSON" {
				if len(got) != 1 || !strings.HasPrefix(got[0], tt.want[0]) {
					t.Errorf("problems %q", got)
				}
				return
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
		})
	}
}
