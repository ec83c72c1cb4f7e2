package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/output/formats"
)

// sarifSchema is OASIS's SARIF 2.1.0 schema (internal/sarif/testdata/README.md says whence).
var sarifSchema = filepath.Join("..", "sarif", "testdata", "sarif-schema-2.1.0.json")

func compileSARIFSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(sarifSchema)
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
	return sch
}

// TestExportLLMRun runs the llm subject against the fake server, exports the run as SARIF and
// as predictions JSONL, validates the SARIF against the 2.1.0 schema and checks what it holds.
func TestExportLLMRun(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
	var b strings.Builder
	for i, target := range []string{`,"target":{"file":"src/copy.c","function":"f1","line":3,"end_line":9}`, "", `,"target":{"file":"src/a b.c","line":7}`, ""} {
		label := []string{"vul", "ben"}[i%2]
		b.WriteString(`{"id":"c000` + string(rune('1'+i)) + `","kind":"function","label":"` + label + `","pair":"p` + string(rune('0'+i/2)) + `","cwe":["CWE-787"],"language":"c","code":"int f(char *s) {\n  /* case c000` + string(rune('1'+i)) + ` */\n  strcpy(b, s);\n}"` + target + "}\n")
	}
	suitePath := filepath.Join(dir, "s.jsonl")
	os.WriteFile(suitePath, []byte(b.String()), 0o644)
	srv := llmtest.NewOpenAI(newFake(0).handle)
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	db := filepath.Join(dir, "v.db")
	if code, _, errOut := run(t, dir, llmArgs(suitePath, db, srv.BaseURL(), "r1", "--prompt", "cot", "--no-score")...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	code, _, errOut := run(t, dir, "export", "--run", "r1", "--db", db, "--format", "sarif", "--out", "r1.sarif")
	if code != 0 {
		t.Fatalf("export: exit %d\n%s", code, errOut)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "r1.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := compileSARIFSchema(t).Validate(inst); err != nil {
		t.Fatalf("exported SARIF does not validate against SARIF 2.1.0: %v", err)
	}
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Name       string         `json:"name"`
					Properties map[string]any `json:"properties"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID  string `json:"ruleId"`
				Message struct{ Text string }
				Locs    []struct {
					Phys struct {
						Art    struct{ URI string } `json:"artifactLocation"`
						Region *struct {
							StartLine int `json:"startLine"`
							EndLine   int `json:"endLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Taxa []struct{ ID string } `json:"taxa"`
				Prop struct {
					CaseID string `json:"case_id"`
				} `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	r := doc.Runs[0]
	p := r.Tool.Driver.Properties
	if r.Tool.Driver.Name != "vulnbench" || p["model"] != "openai:fake-model" || p["prompt"] != "cot" || p["subject"] != "llm" || p["run"] != "r1" {
		t.Errorf("tool = %s %v, want vulnbench with the run's model and prompt", r.Tool.Driver.Name, p)
	}
	// The fake says vulnerable for c0001, c0002 (n%3 != 0) and c0004; ids c0001..c0004 are n=1..4,
	// so c0003 is the one it calls benign.
	type res struct{ Case, Rule, Msg, URI, Taxa string }
	var got []res
	for _, x := range r.Results {
		g := res{Case: x.Prop.CaseID, Rule: x.RuleID, Msg: x.Message.Text}
		for _, l := range x.Locs {
			g.URI = l.Phys.Art.URI
			if l.Phys.Region != nil {
				g.URI += fmt.Sprintf(":%d-%d", l.Phys.Region.StartLine, l.Phys.Region.EndLine)
			}
		}
		for _, tx := range x.Taxa {
			g.Taxa += tx.ID
		}
		got = append(got, g)
	}
	want := []res{
		{"c0001", "CWE-787", "length unchecked", "src/copy.c:3-9", "CWE-787"},
		// no file: the case id as the artifact, over the code's four lines (GitHub needs a location)
		{"c0002", "CWE-787", "length unchecked", "vulnbench-cases/c0002:1-4", "CWE-787"},
		{"c0004", "CWE-787", "length unchecked", "vulnbench-cases/c0004:1-4", "CWE-787"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}

	// jsonl is what run --out writes.
	if code, _, errOut := run(t, dir, "export", "--run", "r1", "--db", db, "--format", "jsonl", "--out", "r1.jsonl"); code != 0 {
		t.Fatalf("export jsonl: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := run(t, dir, "score", "--suite", suitePath, "--predictions", "r1.jsonl", "--format", "json"); code != 0 {
		t.Errorf("score of the exported predictions: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := run(t, dir, "export", "--run", "r1", "--db", db, "--format", "pdf"); code != 2 || !strings.Contains(errOut, `--format "pdf" is not one of `+strings.Join(formats.All().For(output.Export{}), ", ")) {
		t.Errorf("unknown format: exit %d, %s", code, errOut)
	}
	// OpenVEX describes VEX-Bench runs: a run of function cases is refused, saying what to use.
	if code, _, errOut := run(t, dir, "export", "--run", "r1", "--db", db, "--format", "openvex"); code != 1 || !strings.Contains(errOut, "has no vex cases") {
		t.Errorf("openvex of an llm run: exit %d, %s", code, errOut)
	}
}
