package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A suite of two AppSecBench records (one with its secure twin) and an appsec case without
// ground truth; predictions that find the first record's weakness exactly and miss the second.
const appsecSuite = `{"id":"A1-vul","kind":"appsec","label":"vul","pair":"A1","language":"python","code":"q(\"SELECT \" + x)","appsec":{"benchmark_id":"A1","language":"python","difficulty":"beginner","expected_detection":true,"expected_cwe":"CWE-89","expected_owasp":"A03:2021","expected_severity":"Critical","expected_cvss":"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H","metadata":{"archetype":"sql-injection"}}}
{"id":"A1-ben","kind":"appsec","label":"ben","pair":"A1","language":"python","code":"q(\"SELECT ?\", x)","appsec":{"benchmark_id":"A1","language":"python","difficulty":"beginner","expected_detection":true,"expected_cwe":"CWE-89","expected_owasp":"A03:2021","expected_severity":"Critical","expected_cvss":"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H","metadata":{"archetype":"sql-injection"}}}
{"id":"A2-vul","kind":"appsec","label":"vul","language":"go","code":"exec(x)","appsec":{"benchmark_id":"A2","language":"go","difficulty":"expert","expected_detection":true,"expected_cwe":"CWE-78","expected_owasp":"A03:2021","expected_severity":"High","expected_cvss":"CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H","metadata":{"archetype":"os-command-injection"}}}
{"id":"X-vul","kind":"appsec","label":"vul","code":"y"}
`

const appsecPreds = `{"case_id":"A1-vul","label":"vul","cwe":["CWE-89"],"appsec":{"owasp":"A03:2021","severity":"critical","cvss_vector":"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}}
{"case_id":"A1-ben","label":"ben"}
{"case_id":"A2-vul","label":"ben"}
{"case_id":"X-vul","label":"vul"}
`

func TestAppSecSection(t *testing.T) {
	dir := t.TempDir()
	suitePath, predPath := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "p.jsonl")
	os.WriteFile(suitePath, []byte(appsecSuite), 0o644)
	os.WriteFile(predPath, []byte(appsecPreds), 0o644)
	rep, err := Build(context.Background(), nil, Request{Suite: suitePath, Predictions: []string{predPath}})
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Runs[0].Results[0].AppSec
	if a == nil {
		t.Fatal("no appsec section")
	}
	// A1: 15 + 10 + 10 + 10 + 5 = 50 of 50. A2: missed, no twin: 0 of 45.
	got := map[string]any{"records": a.Records, "mean": a.MeanScore, "graded": a.MeanGraded, "detection": a.Parts["detection"],
		"fp": a.Parts["false_positive_avoidance"], "cvss exact": a.CVSS.Exact, "cvss n": a.CVSS.N, "langs": len(a.ByLanguage)}
	want := map[string]any{"records": 2, "mean": 0.25, "graded": 0.5, "detection": 0.5, "fp": 1.0, "cvss exact": 1.0, "cvss n": 1, "langs": 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	notes := rep.Notes()
	if len(notes) != 1 || !strings.Contains(notes[0].Text, "1 appsec cases have no AppSecBench ground truth") {
		t.Errorf("notes %+v, want one about the case without ground truth", notes)
	}
}
