package cli_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/vulnbench/vulnbench/internal/verdict"
	"github.com/vulnbench/vulnbench/schema"
)

var update = flag.Bool("update", false, "rewrite testdata/predictions/*.score.json from the current output")

// readVerdicts reads a predictions file as score does, with the wall time (the one figure a
// replay measures anew) zeroed.
func readVerdicts(t *testing.T, path string) []verdict.Verdict {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []verdict.Verdict
	errs := verdict.ReadPredictions(f, path, nil, func(p verdict.Prediction, _ int) error {
		p.Usage.WallMS = 0
		vs = append(vs, p.Verdict)
		return nil
	})
	if len(errs) > 0 {
		t.Fatalf("read %s: %v", path, errs)
	}
	return vs
}

// checkSchema validates every line of a predictions file against schema/verdict.schema.json.
func checkSchema(t *testing.T, sch *jsonschema.Schema, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
		if err == nil {
			err = sch.Validate(doc)
		}
		if err != nil {
			t.Errorf("%s:%d: %v", path, i+1, err)
		}
	}
}

// TestPredictionsRoundTrip: a predictions file, wave 1 or verdict v2 (findings, vex, appsec,
// score source, confidence, repeats), scores as its golden says; replayed by run --subject
// predictions:FILE, the file run --out writes holds the same verdicts, valid against the
// verdict schema, and scores the same. The wave-1 golden is the score the run_score script
// expected before verdict v2.
func TestPredictionsRoundTrip(t *testing.T) {
	sch, err := schema.CompileVerdict()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		repeats string
	}{{"wave1", "1"}, {"v2", "2"}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"suite.jsonl", tt.name + ".jsonl"} {
				b, err := os.ReadFile(filepath.Join("testdata/predictions", f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			in := tt.name + ".jsonl"
			checkSchema(t, sch, filepath.Join(dir, in))

			code, score, stderr := run(t, dir, "score", "--suite", "suite.jsonl", "--predictions", in, "--format", "json")
			if code != 0 {
				t.Fatalf("score --predictions %s: exit %d: %s", in, code, stderr)
			}
			golden := filepath.Join("testdata/predictions", tt.name+".score.json")
			if *update {
				if err := os.WriteFile(golden, []byte(score), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), score); diff != "" {
				t.Errorf("score --predictions %s (-%s +got):\n%s", in, golden, diff)
			}

			code, _, stderr = run(t, dir, "run", "--suite", "suite.jsonl", "--subject", "predictions:"+in, "--repeats", tt.repeats,
				"--run-id", "replay", "--db", "v.db", "--out", "out.jsonl")
			if code != 0 {
				t.Fatalf("run --subject predictions:%s: exit %d: %s", in, code, stderr)
			}
			out := filepath.Join(dir, "out.jsonl")
			checkSchema(t, sch, out)
			if diff := cmp.Diff(readVerdicts(t, filepath.Join(dir, in)), readVerdicts(t, out)); diff != "" {
				t.Errorf("run --out after predictions:%s (-in +out):\n%s", in, diff)
			}
			code, rescore, stderr := run(t, dir, "score", "--suite", "suite.jsonl", "--predictions", "out.jsonl", "--format", "json")
			if code != 0 {
				t.Fatalf("score --predictions out.jsonl: exit %d: %s", code, stderr)
			}
			if diff := cmp.Diff(score, rescore); diff != "" {
				t.Errorf("score of run --out's file (-%s +out.jsonl):\n%s", in, diff)
			}
		})
	}
}

// TestPredictionsV2Problems: a predictions file with bad v2 fields scores nothing and names each
// problem as FILE:LINE and the field.
func TestPredictionsV2Problems(t *testing.T) {
	dir := t.TempDir()
	suite, err := os.ReadFile("testdata/predictions/suite.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "suite.jsonl"), suite, 0o644)
	var b bytes.Buffer
	b.WriteString(`{"case_id":"a1","label":"vul","score_source":"vibes"}` + "\n")
	b.WriteString(`{"case_id":"a2","label":"ben","confidence":2}` + "\n")
	b.WriteString(`{"case_id":"b1","label":"vul","cwe":["cwe-476"]}` + "\n")
	b.WriteString(`{"case_id":"b2","label":"vul","findings":[{"start_line":9,"end_line":3}]}` + "\n")
	b.WriteString(`{"case_id":"c1","label":"vul","vex":{"status":"unaffected","justification":"code_not_reachable"}}` + "\n")
	b.WriteString(`{"case_id":"c2","label":"ben","appsec":{"owasp_id":"A03:2021"}}` + "\n")
	os.WriteFile(filepath.Join(dir, "bad.jsonl"), b.Bytes(), 0o644)
	code, stdout, stderr := run(t, dir, "score", "--suite", "suite.jsonl", "--predictions", "bad.jsonl")
	if code != 1 || stdout != "" {
		t.Errorf("exit %d, stdout %q; want exit 1 and nothing scored", code, stdout)
	}
	for _, want := range []string{
		`bad.jsonl:1: field "score_source": "vibes" is not logprob, stated or tool`,
		`bad.jsonl:2: field "confidence": 2 is not in [0, 1]`,
		`bad.jsonl:3: field "cwe[0]": "cwe-476" is not a CWE id: write "CWE-476"`,
		`bad.jsonl:4: field "findings[0]": end_line 3 is before start_line 9`,
		`bad.jsonl:5: field "vex.status": "unaffected" is not affected, not_affected, fixed or under_investigation`,
		`bad.jsonl:5: field "vex.justification": "code_not_reachable" is not one of OpenVEX's`,
		`bad.jsonl:6: invalid prediction: unknown field "owasp_id"`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
