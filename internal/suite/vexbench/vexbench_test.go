package vexbench_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/vexbench"
)

// realTasks is VEX-Bench's public task file, kept outside the repository.
const realTasks = "../../../../shared/data/vex-bench/vex_bench.jsonl"

func importString(t *testing.T, in string) ([]*suite.Case, vexbench.Report, []error) {
	t.Helper()
	var buf bytes.Buffer
	w := suite.NewWriter(&buf)
	rep, problems, err := vexbench.Import(strings.NewReader(in), "tasks.jsonl", nil, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var cases []*suite.Case
	_, probs, err := suite.ScanReader(&buf, "out.jsonl", nil, true, func(c *suite.Case, _ int) error {
		cases = append(cases, c)
		return nil
	})
	if err != nil || len(probs) > 0 {
		t.Fatalf("the written suite does not validate: %v %v", err, probs)
	}
	return cases, rep, problems
}

func TestRealTaskFile(t *testing.T) {
	b, err := os.ReadFile(realTasks)
	if err != nil {
		t.Fatalf("VEX-Bench's task file (outside the repository, in /work/shared): %v", err)
	}
	cases, rep, problems := importString(t, string(b))
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	st := suite.NewStats()
	for _, c := range cases {
		st.Add(c)
	}
	got := map[string]map[string]int{"language": st.Language, "status": st.Status, "category": st.Category, "kind": st.Kind}
	want := map[string]map[string]int{
		"language": {"go": 30, "java": 25, "python": 20},
		"status":   {"exploitable": 22, "not_exploitable": 53},
		"category": {"code_not_reachable": 38, "vulnerable": 22, "requires_configuration": 7, "code_not_present": 6, "requires_environment": 2},
		"kind":     {"vex": 75},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("counts (-want +got):\n%s", d)
	}
	wantBad := []vexbench.BadPRURL{{Line: 40, TaskID: "helm-helm-fbb24fe-CVE-2021-21334", PRURL: "github.com/containerd/containerd"}}
	if d := cmp.Diff(wantBad, rep.BadPRURLs); d != "" {
		t.Errorf("malformed pr_url (-want +got):\n%s", d)
	}
	if rep.Cases != 75 || rep.Vul != 22 || rep.Ben != 53 {
		t.Errorf("report = %+v", rep)
	}
}

const good = `{"repo_url": "https://github.com/prestodb/presto", "commit_sha": "8136f7cc230893358b86b5af5c13eb4763b5655f", "task_id": "prestodb-presto-8136f7c-CVE-2024-47535", "ground_truth_category": "requires_environment", "ground_truth": "not_exploitable", "cve_id": "CVE-2024-47535", "metadata": {"language": "java", "pr_url": "https://github.com/prestodb/presto/pull/24175"}}`

func TestCase(t *testing.T) {
	cases, rep, problems := importString(t, good+"\n")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	want := []*suite.Case{{
		ID: "prestodb-presto-8136f7c-CVE-2024-47535", Kind: suite.KindVEX, Label: suite.Ben, Project: "prestodb/presto",
		Commit: "8136f7cc230893358b86b5af5c13eb4763b5655f", Language: "java", CVE: "CVE-2024-47535",
		Repo: &suite.Repo{URL: "https://github.com/prestodb/presto", Commit: "8136f7cc230893358b86b5af5c13eb4763b5655f"},
		VEX:  &suite.VEX{Category: "requires_environment", Ecosystem: "Maven"},
		Source: map[string]any{"task_id": "prestodb-presto-8136f7c-CVE-2024-47535",
			"pr_url": "https://github.com/prestodb/presto/pull/24175"},
	}}
	if d := cmp.Diff(want, cases); d != "" {
		t.Errorf("case (-want +got):\n%s", d)
	}
	if len(rep.BadPRURLs) != 0 {
		t.Errorf("bad pr urls: %v", rep.BadPRURLs)
	}
}

func TestMalformed(t *testing.T) {
	edit := func(from, to string) string {
		if !strings.Contains(good, from) {
			panic(from)
		}
		return strings.Replace(good, from, to, 1)
	}
	for _, tc := range []struct {
		name, line, want string
	}{
		{"truncated", good[:40], "tasks.jsonl:1: invalid JSON: the line ends before the object does (truncated?)"},
		{"no id", edit(`"task_id": "prestodb-presto-8136f7c-CVE-2024-47535"`, `"task_id": ""`), `tasks.jsonl:1: missing field "task_id"`},
		{"repo url", edit(`https://github.com/prestodb/presto"`, `https://github.com/prestodb"`), `tasks.jsonl:1: field "repo_url": "https://github.com/prestodb" is not https://HOST/OWNER/NAME`},
		{"repo url dots", edit(`https://github.com/prestodb/presto"`, `https://github.com/../presto"`), `tasks.jsonl:1: field "repo_url": "https://github.com/../presto" is not https://HOST/OWNER/NAME`},
		{"commit", edit(`"8136f7cc230893358b86b5af5c13eb4763b5655f"`, `"--upload-pack=x"`), `tasks.jsonl:1: field "commit_sha": "--upload-pack=x" is not a lower-case hex commit id`},
		{"cve", edit(`"CVE-2024-47535"`, `"CVE-24"`), `tasks.jsonl:1: field "cve_id": "CVE-24" is not a CVE, GHSA or GO id`},
		{"category", edit(`"requires_environment"`, `"Requires_Environment"`), `tasks.jsonl:1: field "ground_truth_category": "Requires_Environment" is not one of ` + strings.Join(suite.VEXCategories, ", ")},
		{"truth", edit(`"not_exploitable"`, `"maybe"`), `tasks.jsonl:1: field "ground_truth": "maybe" is not exploitable or not_exploitable`},
		{"contradiction", edit(`"not_exploitable"`, `"exploitable"`), `tasks.jsonl:1: ground_truth "exploitable" contradicts ground_truth_category "requires_environment" (only "vulnerable" is exploitable)`},
		{"language", edit(`"language": "java"`, `"language": ""`), `tasks.jsonl:1: missing field "metadata.language"`},
		{"type", edit(`"cve_id": "CVE-2024-47535"`, `"cve_id": 7`), `tasks.jsonl:1: field "cve_id": expected string, got JSON number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, problems := importString(t, tc.line+"\n")
			got := fmt.Sprint(problems)
			if got != "["+tc.want+"]" {
				t.Errorf("problems = %s\nwant [%s]", got, tc.want)
			}
		})
	}
}

func TestDuplicateAndBadPRURL(t *testing.T) {
	bad := strings.Replace(good, `"https://github.com/prestodb/presto/pull/24175"`, `"github.com/containerd/containerd"`, 1)
	cases, rep, problems := importString(t, bad+"\n")
	if len(problems) > 0 || len(cases) != 1 {
		t.Fatalf("a malformed pr_url must not be fatal: %v, %d cases", problems, len(cases))
	}
	if _, ok := cases[0].Source["pr_url"]; ok {
		t.Errorf("the malformed pr_url was kept: %v", cases[0].Source)
	}
	if d := cmp.Diff([]vexbench.BadPRURL{{Line: 1, TaskID: cases[0].ID, PRURL: "github.com/containerd/containerd"}}, rep.BadPRURLs); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	cases, _, problems = importString(t, good+"\n\n"+good+"\n")
	want := `[tasks.jsonl:3: task_id "prestodb-presto-8136f7c-CVE-2024-47535" repeats line 1]`
	if got := fmt.Sprint(problems); got != want || len(cases) != 1 {
		t.Errorf("problems = %s (%d cases)\nwant %s", got, len(cases), want)
	}
}
