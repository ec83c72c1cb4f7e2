package sarif_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/vulnbench/vulnbench/internal/sarif"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// schemaPath is OASIS's SARIF 2.1.0 schema (see testdata/README.md).
const schemaPath = "testdata/sarif-schema-2.1.0.json"

// validate checks b against the SARIF 2.1.0 JSON Schema, formats (uri) asserted.
func validate(t *testing.T, path string, b []byte) error {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

func TestWriteValidatesAndReadsBack(t *testing.T) {
	cases := map[string]*suite.Case{
		"f1": {ID: "f1", Kind: suite.KindJIT, Target: &suite.Target{File: "src/my file.c", Line: 10, EndLine: 20}},
		"f2": {ID: "f2", Kind: suite.KindFunction, Code: "x"},
	}
	vs := []verdict.Verdict{
		{CaseID: "f1", Status: verdict.OK, Label: suite.Vul, Score: verdict.Float(0.9), CWE: []string{"CWE-787"}, Explanation: "length unchecked"},
		{CaseID: "f1", Repeat: 1, Status: verdict.OK, Label: suite.Vul, Explanation: "two findings", Findings: []verdict.Finding{
			{File: "src/my file.c", StartLine: 12, EndLine: 14, Rule: "bof", CWE: []string{"CWE-121", "CWE-787"}, Severity: "high", Message: "stack overflow"},
			{StartLine: 15, Message: "no file: the case's"}}},
		{CaseID: "f2", Status: verdict.OK, Label: suite.Vul}, // no location at all
		{CaseID: "f2", Repeat: 1, Status: verdict.OK, Label: suite.Ben, Findings: []verdict.Finding{{File: "a.c", StartLine: 1}}},
		{CaseID: "f2", Repeat: 2, Status: verdict.Error, Reason: "timeout"},
	}
	var b bytes.Buffer
	meta := sarif.RunMeta{Vulnbench: "v0.2.0 (abc1234)", RunID: "r1", Subject: "llm", Model: "openai:m", Prompt: "cot", Extra: map[string]any{"subject_version": "3"}}
	if err := sarif.Write(&b, meta, cases, vs); err != nil {
		t.Fatal(err)
	}
	if err := validate(t, schemaPath, b.Bytes()); err != nil {
		t.Fatalf("written SARIF does not validate: %v\n%s", err, b.String())
	}
	if err := sarif.CheckGitHub(b.Bytes()); err != nil {
		t.Errorf("written SARIF fails GitHub's rules: %v", err)
	}
	l, err := sarif.Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := []verdict.Finding{
		{File: "src/my file.c", StartLine: 10, EndLine: 20, Rule: "CWE-787", CWE: []string{"CWE-787"}, Severity: "warning", Message: "length unchecked"},
		{File: "src/my file.c", StartLine: 12, EndLine: 14, Rule: "bof", CWE: []string{"CWE-121", "CWE-787"}, Severity: "error", Message: "stack overflow"},
		{File: "src/my file.c", StartLine: 15, EndLine: 15, Rule: "vulnerable", Severity: "warning", Message: "no file: the case's"},
		{File: "vulnbench-cases/f2", StartLine: 1, EndLine: 1, Rule: "vulnerable", Severity: "warning", Message: "vulnerable"},
	}
	if d := cmp.Diff(want, l.Runs[0].Findings); d != "" {
		t.Errorf("read back (-want +got):\n%s", d)
	}
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Properties map[string]any `json:"properties"`
				} `json:"driver"`
			} `json:"tool"`
			Invocations []struct {
				Notes []struct {
					Message struct{ Text string } `json:"message"`
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	wantProps := map[string]any{"run": "r1", "subject": "llm", "model": "openai:m", "prompt": "cot", "subject_version": "3"}
	if d := cmp.Diff(wantProps, doc.Runs[0].Tool.Driver.Properties); d != "" {
		t.Errorf("tool properties (-want +got):\n%s", d)
	}
	if n := doc.Runs[0].Invocations[0].Notes; len(n) != 1 || n[0].Message.Text != "case f2 (repeat 2): timeout" {
		t.Errorf("notifications = %+v, want the error verdict", n)
	}
}

// TestSchemaCatchesBadSARIF: the validation the export tests rely on does refuse bad SARIF.
func TestSchemaCatchesBadSARIF(t *testing.T) {
	for _, bad := range []string{
		`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": null}]}`,
		`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": [{"message": {"text": "m"}, "locations": [{"physicalLocation": {"region": {"startLine": 0}}}]}]}]}`,
		`{"version": "2.0.0", "runs": []}`,
		`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": [{"ruleId": "x"}]}]}`,
	} {
		if err := validate(t, schemaPath, []byte(bad)); err == nil {
			t.Errorf("the schema accepted %s", bad)
		}
	}
}

// TestCheckGitHubRefuses: each rule of CheckGitHub catches what breaks it.
func TestCheckGitHubRefuses(t *testing.T) {
	rule := `{"id":"r","shortDescription":{"text":"r"},"fullDescription":{"text":"r"},"help":{"text":"r"}}`
	loc := `{"physicalLocation":{"artifactLocation":{"uri":"a.c"},"region":{"startLine":1}}}`
	doc := func(rules, result string) string {
		return `{"$schema":"s","version":"2.1.0","runs":[{"tool":{"driver":{"name":"t","rules":[` + rules + `]}},"results":[` + result + `]}]}`
	}
	good := doc(rule, `{"ruleId":"r","message":{"text":"m"},"locations":[`+loc+`],"partialFingerprints":{"k":"v"}}`)
	if err := sarif.CheckGitHub([]byte(good)); err != nil {
		t.Fatalf("good document refused: %v", err)
	}
	for name, bad := range map[string]string{
		"no location":    doc(rule, `{"ruleId":"r","message":{"text":"m"},"locations":[],"partialFingerprints":{"k":"v"}}`),
		"absolute uri":   doc(rule, `{"ruleId":"r","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"file:///a.c"},"region":{"startLine":1}}}],"partialFingerprints":{"k":"v"}}`),
		"no region":      doc(rule, `{"ruleId":"r","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.c"}}}],"partialFingerprints":{"k":"v"}}`),
		"no fingerprint": doc(rule, `{"ruleId":"r","message":{"text":"m"},"locations":[`+loc+`]}`),
		"no help":        doc(`{"id":"r","shortDescription":{"text":"r"},"fullDescription":{"text":"r"}}`, `{"ruleId":"r","message":{"text":"m"},"locations":[`+loc+`],"partialFingerprints":{"k":"v"}}`),
		"no message":     doc(rule, `{"ruleId":"r","message":{"text":""},"locations":[`+loc+`],"partialFingerprints":{"k":"v"}}`),
		"version":        strings.Replace(good, `"2.1.0"`, `"2.0.0"`, 1),
	} {
		if err := sarif.CheckGitHub([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Every result of a log has a fingerprint of its own: the repeats of a run answer the same case
// at the same place, and one answer may put two findings of one rule on one line. Repeat 0's
// fingerprint is the one a run of one repeat gives.
func TestFingerprintsPerRepeat(t *testing.T) {
	cases := map[string]*suite.Case{"j": {ID: "j", Kind: suite.KindJIT, Target: &suite.Target{File: "src/a.c", Line: 3, EndLine: 9}}}
	two := []verdict.Finding{{File: "src/a.c", StartLine: 4, Rule: "bof"}, {File: "src/a.c", StartLine: 4, Rule: "bof"}}
	var vs []verdict.Verdict
	for r := range 3 {
		vs = append(vs, verdict.Verdict{CaseID: "j", Repeat: r, Status: verdict.OK, Label: suite.Vul, Findings: two})
	}
	prints := func(vs []verdict.Verdict) []string {
		var b bytes.Buffer
		if err := sarif.Write(&b, sarif.RunMeta{RunID: "r"}, cases, vs); err != nil {
			t.Fatal(err)
		}
		if err := sarif.CheckGitHub(b.Bytes()); err != nil {
			t.Error(err)
		}
		var doc struct {
			Runs []struct {
				Results []struct {
					PartialFingerprints map[string]string `json:"partialFingerprints"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range doc.Runs[0].Results {
			out = append(out, r.PartialFingerprints[sarif.FingerprintKey])
		}
		return out
	}
	all := prints(vs)
	seen := map[string]bool{}
	for _, p := range all {
		if p == "" || seen[p] {
			t.Errorf("fingerprint %q given twice or empty among %v", p, all)
		}
		seen[p] = true
	}
	if len(all) != 6 {
		t.Fatalf("%d results, want 6", len(all))
	}
	if one := prints(vs[:1]); one[0] != all[0] || one[1] != all[1] {
		t.Errorf("repeat 0 of a repeated run %v, a run of one repeat %v", all[:2], one)
	}
}
