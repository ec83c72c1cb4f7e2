package appsec_test

import (
	"context"
	"encoding/json"
	"fmt"
	. "github.com/vulnbench/vulnbench/internal/suite/appsec"
	"github.com/vulnbench/vulnbench/internal/suite/appsec/parsers"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/cvss"
)

// baseRecords returns one built record per language, keyed by language.
func baseRecords(t *testing.T) (map[string]Record, Validator) {
	t.Helper()
	recs, err := Build(42)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Record{}
	for _, r := range recs {
		if _, ok := by[r.Language]; !ok {
			by[r.Language] = r
		}
	}
	return by, Validator{Catalog: cat, Syntax: parsers.Default()}
}

type found struct{ Record, Field, Kind string }

func hasProblem(rep Report, want found) bool {
	for _, p := range rep.Problems {
		if (found{p.Record, p.Field, p.Kind}) == want {
			return true
		}
	}
	return false
}

func TestValidatePlantedDefects(t *testing.T) {
	base, v := baseRecords(t)
	type defect struct {
		name  string
		lang  string
		plant func(*Record)
		field string
		kind  string
	}
	defects := []defect{
		{"empty title", "python", func(r *Record) { r.Title = "" }, "title", KindRequired},
		{"empty tags", "python", func(r *Record) { r.Tags = nil }, "tags", KindRequired},
		{"empty remediation", "python", func(r *Record) { r.RemediationSteps = []string{" "} }, "remediation_steps", KindRequired},
		{"bad language", "python", func(r *Record) { r.Language = "cobol" }, "language", KindEnum},
		{"bad framework", "python", func(r *Record) { r.Framework = "struts1" }, "framework", KindEnum},
		{"bad difficulty", "python", func(r *Record) { r.Difficulty = "hard" }, "difficulty", KindEnum},
		{"bad severity", "python", func(r *Record) { r.ExpectedSeverity = "Severe" }, "expected_severity", KindEnum},
		{"bad confidence", "python", func(r *Record) { r.ExpectedConfidence = "sure" }, "expected_confidence", KindEnum},
		{"bad source type", "python", func(r *Record) { r.SourceType = "scraped" }, "source_type", KindEnum},
		{"bad split", "python", func(r *Record) { r.Split = "dev" }, "split", KindEnum},
		{"bad CWE pattern", "python", func(r *Record) { r.ExpectedCWE = "CWE89" }, "expected_cwe", KindPattern},
		{"bad OWASP pattern", "python", func(r *Record) { r.ExpectedOWASP = "A3:2021" }, "expected_owasp", KindPattern},
		{"bad API pattern", "python", func(r *Record) { r.ExpectedOWASPAPI = "API11:2023" }, "expected_owasp_api", KindPattern},
		{"bad LLM pattern", "python", func(r *Record) { r.ExpectedOWASPLLM = "LLM1:2025" }, "expected_owasp_llm", KindPattern},
		{"bad id", "python", func(r *Record) { r.BenchmarkID = "ASB-12" }, "benchmark_id", KindPattern},
		{"not a 3.1 vector", "python", func(r *Record) { r.ExpectedCVSS = "CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" }, "expected_cvss", KindPattern},
		{"wrong CVSS score", "python", func(r *Record) { r.ExpectedCVSSScore = 7.1 }, "expected_cvss_score", KindCVSS},
		{"severity disagrees with score", "c", func(r *Record) { r.ExpectedSeverity = cvss.SeverityCritical }, "expected_severity", KindValue},
		{"bad reference", "python", func(r *Record) { r.References = append(r.References, "ftp://example.com/x") }, fmt.Sprintf("references[%d]", len(base["python"].References)), KindURL},
		{"vulnerable == secure", "python", func(r *Record) { r.SecureCode = "  " + strings.ToUpper(r.VulnerableCode) }, "secure_code", KindCode},
		{"vulnerable line out of range", "python", func(r *Record) { r.VulnerableLines = []int{500} }, "vulnerable_lines", KindValue},
		{"prior out of range", "python", func(r *Record) { r.FalsePositivePrior = 1.5 }, "false_positive_prior", KindValue},
		{"detection false", "python", func(r *Record) { r.ExpectedDetection = false }, "expected_detection", KindValue},
		{"rubric weights", "python", func(r *Record) { r.EvaluationRubric.Fix = 10 }, "evaluation_rubric", KindValue},
		{"CWE disagrees with catalog", "python", func(r *Record) { r.ExpectedCWE = "CWE-79"; r.Metadata.CWE = "CWE-79" }, "expected_cwe", KindCatalog},
		{"OWASP disagrees with catalog", "python", func(r *Record) { r.ExpectedOWASP = "A01:2021" }, "expected_owasp", KindCatalog},
		{"unknown archetype", "python", func(r *Record) { r.VulnerabilityName = "Buffer Overflow" }, "vulnerability_name", KindCatalog},
		{"unrealistic target", "python", func(r *Record) { r.Framework = "rails" }, "framework", KindCatalog},
		{"metadata cvss", "python", func(r *Record) { r.Metadata.CVSSScore = 1 }, "metadata.cvss_score", KindMetadata},
		{"metadata cwe", "python", func(r *Record) { r.Metadata.CWE = "CWE-1" }, "metadata.cwe", KindMetadata},
		{"go syntax error", "go", func(r *Record) { r.VulnerableCode = strings.Replace(r.VulnerableCode, "{", "", 1) }, "vulnerable_code", KindSyntax},
		{"yaml syntax error", "kubernetes", func(r *Record) { r.SecureCode += "  bad: [unclosed\n" }, "secure_code", KindSyntax},
		{"c syntax error", "c", func(r *Record) { r.VulnerableCode += "\nint broken( {\n" }, "vulnerable_code", KindSyntax},
		{"java syntax error", "java", func(r *Record) { r.VulnerableCode += "\nclass Broken { void f( }\n" }, "vulnerable_code", KindSyntax},
		{"python syntax error", "python", func(r *Record) { r.SecureCode += "\ndef broken(:\n    pass\n" }, "secure_code", KindSyntax},
		{"csharp syntax error", "csharp", func(r *Record) { r.SecureCode += "\nclass Broken { void F( }\n" }, "secure_code", KindSyntax},
		{"php syntax error", "php", func(r *Record) { r.VulnerableCode += "\nfunction broken( {\n" }, "vulnerable_code", KindSyntax},
		{"ruby syntax error", "ruby", func(r *Record) { r.SecureCode += "\ndef broken(\n" }, "secure_code", KindSyntax},
		{"typescript syntax error", "typescript", func(r *Record) { r.VulnerableCode += "\nconst broken: = 1;\n" }, "vulnerable_code", KindSyntax},
		{"terraform syntax error", "terraform", func(r *Record) { r.SecureCode += "\nresource \"x\" \"y\" {\n" }, "secure_code", KindSyntax},
	}
	if _, err := exec.LookPath("bash"); err == nil {
		defects = append(defects, defect{"bash syntax error", "bash", func(r *Record) { r.VulnerableCode += "if then fi\n" }, "vulnerable_code", KindSyntax})
	}
	if _, err := exec.LookPath("node"); err == nil {
		defects = append(defects, defect{"javascript syntax error", "javascript", func(r *Record) { r.SecureCode = strings.Replace(r.SecureCode, ")", "", 1) }, "secure_code", KindSyntax})
	} else {
		t.Log("node is not on PATH: the JavaScript defect is not planted")
	}

	ctx := context.Background()
	for lang, r := range base {
		if rep := v.Validate(ctx, []Record{r}); !rep.OK() {
			t.Fatalf("base %s record %s is not clean: %v", lang, r.BenchmarkID, rep.Problems)
		}
	}
	var all []Record
	for i, d := range defects {
		r := base[d.lang]
		r.References = append([]string(nil), r.References...)
		r.BenchmarkID = fmt.Sprintf("ASB-9%05d", i)
		d.plant(&r)
		all = append(all, r)
		want := found{r.BenchmarkID, d.field, d.kind}
		if rep := v.Validate(ctx, []Record{r}); !hasProblem(rep, want) {
			t.Errorf("%s: no problem %+v in %v", d.name, want, rep.Problems)
		}
	}
	// All at once, plus a duplicate id: each record is still named in its own problems.
	dup := base["python"]
	all = append(all, dup, dup)
	rep := v.Validate(ctx, all)
	if !hasProblem(rep, found{dup.BenchmarkID, "benchmark_id", KindDuplicate}) {
		t.Errorf("duplicate id %s not reported", dup.BenchmarkID)
	}
}

func TestValidateJSONL(t *testing.T) {
	base, v := baseRecords(t)
	good, err := json.Marshal(base["go"])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(good, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "title")
	delete(m, "expected_detection")
	m["benchmark_id"] = "ASB-900001"
	missing, _ := json.Marshal(m)
	m["title"] = "x"
	m["expected_detection"] = true
	m["surprise"] = 1
	m["benchmark_id"] = "ASB-900002"
	unknown, _ := json.Marshal(m)
	data := strings.Join([]string{string(good), "{not json", string(missing), string(unknown), ""}, "\n")

	rep := v.ValidateJSONL(context.Background(), []byte(data))
	var got []found
	for _, p := range rep.Problems {
		got = append(got, found{p.Record, p.Field, p.Kind})
	}
	want := []found{
		{"?", "", KindJSON},
		{"ASB-900001", "title", KindRequired},
		{"ASB-900001", "expected_detection", KindRequired},
		{"ASB-900002", "", KindJSON},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s\n%v", diff, rep.Problems)
	}
	if rep.Problems[1].Line != 3 {
		t.Errorf("missing title reported on line %d, want 3", rep.Problems[1].Line)
	}
}

func TestSyntaxCheckers(t *testing.T) {
	ctx := context.Background()
	s := parsers.Default()
	for _, tc := range []struct {
		lang, code string
		want       SyntaxStatus
	}{
		{"go", "func f() int { return 1 }\n", SyntaxChecked},
		{"go", "package p\nfunc f( {\n", SyntaxError},
		{"kubernetes", "a: 1\n---\nb: [2]\n", SyntaxChecked},
		{"kubernetes", "a: [1\n", SyntaxError},
		{"python", "print(1)\n", SyntaxChecked},
		{"python", "print(1\n", SyntaxError},
		{"c", "int main(void) { return 0; }\n", SyntaxChecked},
		{"c", "int main(void) { return 0 }\n", SyntaxError},
		{"java", "class A { void f() { g(); } }\n", SyntaxChecked},
		{"java", "class A { void f() { g( } }\n", SyntaxError},
		{"php", "<?php echo 1;\n", SyntaxChecked},
		{"php", "<?php echo 1\n", SyntaxError},
		{"php", "echo 1;\n", SyntaxChecked},                 // PHP code without a tag
		{"php", "<p>hello</p>\n<?= $x ?>\n", SyntaxChecked}, // a template: HTML around a tag
		{"csharp", "var x = 1;\nConsole.WriteLine(x);\n", SyntaxChecked},
		{"csharp", "class A { void F() { G(; } }\n", SyntaxError},
		{"ruby", "def f(x) = x * 2\nputs f(2)\n", SyntaxChecked},
		{"ruby", "def f(x\n  x\n", SyntaxError},
		{"typescript", "const n: number = <number>(1 as unknown);\n", SyntaxChecked},
		{"typescript", "const e = <div className=\"a\">{n}</div>;\n", SyntaxChecked}, // only TSX parses it
		{"typescript", "function f(a: string { return a; }\n", SyntaxError},
		{"terraform", "resource \"aws_s3_bucket\" \"b\" {\n  bucket = \"x\"\n}\n", SyntaxChecked},
		{"terraform", "resource \"aws_s3_bucket\" \"b\" {\n  bucket = \"x\"\n", SyntaxError},
		// Class members alone (a fix a model proposes) parse inside a class; their own errors,
		// or a stray closer the wrapper would pair off, do not.
		{"csharp", "[HttpGet]\npublic IActionResult Get(int id)\n{\n    return Ok(id);\n}\n", SyntaxChecked},
		{"csharp", "public IActionResult Get(int id)\n{\n    return Ok(id)\n}\n", SyntaxError},
		{"csharp", "}\nclass B {\n", SyntaxError},
		{"java", "@GetMapping(\"/x\")\npublic String x() { return \"x\"; }\n", SyntaxChecked},
		{"typescript", "@Get(':id')\nasync find(@Param('id') id: string): Promise<string> {\n  return id;\n}\n", SyntaxChecked},
		{"php", "public function show(int $id): string\n{\n    return (string) $id;\n}\n", SyntaxChecked},
		{"php", "public function show(int $id): string\n{\n    return (string) $id\n}\n", SyntaxError},
		{"cobol", "DISPLAY 'HI'.\n", SyntaxUnchecked},
	} {
		if got := s.Check(ctx, tc.lang, tc.code); got.Status != tc.want {
			t.Errorf("%s %q: %v, want %s", tc.lang, tc.code, got, tc.want)
		}
	}
	if p, err := exec.LookPath("bash"); err == nil {
		b := BashSyntax{Path: p}
		if got := b.CheckSyntax(ctx, "echo ok\n"); got.Status != SyntaxChecked {
			t.Errorf("bash valid: %v", got)
		}
		if got := b.CheckSyntax(ctx, "if true; then\n"); got.Status != SyntaxError {
			t.Errorf("bash invalid: %v", got)
		}
	}
	if got := (BashSyntax{Path: "/nonexistent/bash"}).CheckSyntax(ctx, "echo"); got.Status != SyntaxUnchecked {
		t.Errorf("a missing binary must leave code unchecked, got %v", got)
	}
	if p, err := exec.LookPath("node"); err == nil {
		n := NodeSyntax{Path: p}
		for code, want := range map[string]SyntaxStatus{
			"const a = require('x');\n":  SyntaxChecked,
			"import x from 'y';\nx();\n": SyntaxChecked,
			"const a = ;\n":              SyntaxError,
		} {
			if got := n.CheckSyntax(ctx, code); got.Status != want {
				t.Errorf("node %q: %v, want %s", code, got, want)
			}
		}
	}
}
