package importer_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/importer"
)

func TestLookupAndCheck(t *testing.T) {
	if _, err := importer.Lookup("bigvul"); err == nil || err.Error() != `unknown dataset "bigvul"; known: primevul, jitvul, vexbench` {
		t.Errorf("Lookup(bigvul) = %v", err)
	}
	pv, err := importer.Lookup("primevul")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		paired string
		ok     bool
	}{{"auto", true}, {"yes", true}, {"no", true}, {"maybe", false}} {
		if err := pv.Check(map[string]string{"paired": tt.paired}); (err == nil) != tt.ok {
			t.Errorf("--paired %s: %v", tt.paired, err)
		}
	}
}

// The registry entry turns PrimeVul's report into the notes the CLI prints.
func TestPrimeVulNotes(t *testing.T) {
	pv, _ := importer.Lookup("primevul")
	in := `{"idx":1,"project":"p","commit_id":"c","target":1,"func":"int f(){return 1;}"}
{"idx":1,"project":"p","commit_id":"c","target":0,"func":"int f(){return 2;}"}
`
	var out bytes.Buffer
	w := suite.NewWriter(&out)
	res, problems, err := pv.Import(strings.NewReader(in), "t.jsonl", nil, w, map[string]string{"paired": "no"})
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	if res.Cases != 1 || res.Notes[0].Total != 1 || !strings.Contains(res.Notes[0].Items[0], "idx 1 on line 2 (first on line 1)") {
		t.Errorf("result %+v: want 1 case and the repeated idx noted", res)
	}
}

// The vexbench entry writes the cases and reports a malformed pr_url as a note.
func TestVEXBenchEntry(t *testing.T) {
	im, err := importer.Lookup("vexbench")
	if err != nil {
		t.Fatal(err)
	}
	line := `{"repo_url": "https://github.com/helm/helm", "commit_sha": "fbb24fe0e4bb4f8a4c6c0e1fb6aa1f3e1d2c3b4a", "task_id": "helm-helm-fbb24fe-CVE-2021-21334", "ground_truth_category": "vulnerable", "ground_truth": "exploitable", "cve_id": "CVE-2021-21334", "metadata": {"language": "go", "pr_url": "github.com/containerd/containerd"}}`
	var buf bytes.Buffer
	w := suite.NewWriter(&buf)
	res, problems, err := im.Import(strings.NewReader(line+"\n"), "t.jsonl", nil, w, nil)
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	if res.Cases != 1 || res.Vul != 1 || len(res.Notes) != 1 || res.Notes[0].Total != 1 ||
		res.Notes[0].Items[0] != `line 1: task helm-helm-fbb24fe-CVE-2021-21334: pr_url "github.com/containerd/containerd"` {
		t.Errorf("result = %+v", res)
	}
}
