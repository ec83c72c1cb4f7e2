package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/cli"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func run(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var o, e bytes.Buffer
	code = cli.Run(context.Background(), args, strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

const goodSuite = `{"id":"a1","kind":"function","label":"vul","pair":"a","code":"x"}
{"id":"a2","kind":"function","label":"ben","pair":"a","code":"y"}
`

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(goodSuite), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte(goodSuite+"{\n"), 0o644)
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--help"}, 0},
		{[]string{"suite", "validate", "s.jsonl"}, 0},
		{[]string{"suite", "validate", "bad.jsonl"}, 1},
		{[]string{"suite", "validate", "missing.jsonl"}, 1},
		{[]string{"suite", "validate"}, 2},
		{[]string{"run", "--suite", "s.jsonl"}, 2},
		{[]string{"run", "--suite", "s.jsonl", "--subject", "nosuch"}, 2},
		{[]string{"run", "--suite", "s.jsonl", "--subject", "random", "--concurrency", "0"}, 2},
		{[]string{"run", "--suite", "s.jsonl", "--subject", "random", "--concurrency", "x"}, 2},
		{[]string{"run", "--suite", "bad.jsonl", "--subject", "random"}, 1},
		{[]string{"run", "--suite", "s.jsonl", "--subject", "random"}, 0},
		{[]string{"run", "--resume", "nosuch"}, 1},
		{[]string{"score", "--suite", "s.jsonl"}, 2},
		{[]string{"score", "--suite", "s.jsonl", "--predictions", "p", "--unparsed-as", "x"}, 2},
		{[]string{"score", "--suite", "s.jsonl", "--predictions", "p", "--vds-fpr", "2"}, 2},
		{[]string{"score", "--suite", "s.jsonl", "--predictions", "missing.jsonl"}, 1},
		{[]string{"nosuch"}, 2},
	}
	for _, tt := range tests {
		code, _, stderr := run(t, dir, tt.args...)
		if code != tt.code {
			t.Errorf("vulnbench %s: exit %d, want %d; stderr:\n%s", strings.Join(tt.args, " "), code, tt.code, stderr)
		}
		if code != 0 && !strings.HasPrefix(stderr, "vulnbench: ") && !strings.Contains(stderr, "\nvulnbench: ") {
			t.Errorf("vulnbench %s: error without the vulnbench: prefix: %q", strings.Join(tt.args, " "), stderr)
		}
	}
}

// TestFlagRanges checks that out-of-range numbers, NaN among them, are refused before any work
// with a message naming the flag (NaN passes a plain "x < 0 || x > 1" check).
func TestFlagRanges(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(goodSuite), 0o644)
	run1 := []string{"run", "--suite", "s.jsonl", "--subject", "random", "--db", "v.db"}
	llm1 := []string{"run", "--suite", "s.jsonl", "--subject", "llm", "--model", "openai:m", "--db", "v.db"}
	tests := []struct {
		args []string
		want string
	}{
		{slices.Concat(run1, []string{"--max-cost", "NaN"}), "--max-cost NaN is not a number of USD"},
		{slices.Concat(run1, []string{"--max-cost", "-1"}), "--max-cost -1 is not a number of USD"},
		{slices.Concat(llm1, []string{"--temperature", "NaN"}), "--temperature NaN is not in [0, 2]"},
		{slices.Concat(llm1, []string{"--temperature", "3"}), "--temperature 3 is not in [0, 2]"},
		{slices.Concat(llm1, []string{"--rpm", "-5"}), "--rpm, --tpm and --max-retries cannot be negative"},
		{slices.Concat(llm1, []string{"--call-timeout", "-1s"}), "--call-timeout -1s is negative"},
		{slices.Concat(run1, []string{"--temperature", "0.5"}), "--temperature does not apply to subject random (it is read by: llm, depaug, react, vex-agent, memory-probe, claude-code, codex, opencode, gemini-cli, qwen-code, pi, cline, kilo, cmd)"},
		{slices.Concat(run1, []string{"--max-steps", "-1"}), "--max-steps, --unit-max-tokens and --unit-max-cost cannot be negative"},
		{[]string{"score", "--suite", "s.jsonl", "--predictions", "p", "--vds-fpr", "NaN"}, "vds fpr tolerance NaN is not in [0,1]"},
		{[]string{"suite", "leak", "s.jsonl", "s.jsonl", "--threshold", "NaN"}, "--threshold NaN is not in (0, 1]"},
		{[]string{"suite", "curate", "--in", "s.jsonl", "--out", "o", "--min-similarity", "NaN"}, "--min-similarity NaN is not in (0, 1]"},
	}
	for _, tt := range tests {
		code, _, stderr := run(t, dir, tt.args...)
		if code != cli.ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("vulnbench %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tt.args, " "), code, stderr, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "o")); err == nil {
		t.Error("curate wrote its output directory before refusing --min-similarity NaN")
	}
}

// TestMalformedInputStoresNothing feeds run, score and import bad files: each must name
// FILE:LINE and leave the store and the output untouched.
func TestMalformedInputStoresNothing(t *testing.T) {
	dir := t.TempDir()
	big := `{"id":"big","kind":"function","label":"vul","code":"` + strings.Repeat("A", 10<<20) + `"}` + "\n"
	suites := []struct {
		name, body, want string
	}{
		{"badjson", goodSuite + "{\"id\":\n", "badjson.jsonl:3: invalid JSON"},
		{"missing", goodSuite + `{"id":"x","kind":"function","code":"z"}` + "\n", `missing.jsonl:3: case "x": missing field "label"`},
		{"dupid", goodSuite + `{"id":"a1","kind":"function","label":"vul","code":"z"}` + "\n", `dupid.jsonl:3: duplicate id "a1" (first on line 1)`},
		{"twovul", strings.Replace(goodSuite, `"ben"`, `"vul"`, 1), `twovul.jsonl:1: pair "a" has 2 vul and 0 ben cases`},
		{"truncated", goodSuite + `{"id":"t","kind":"func`, "truncated.jsonl:3: invalid JSON: the line ends before the object does"},
		{"bigline", goodSuite + big, "bigline.jsonl:3: line is 10.0 MiB, over the 8 MiB limit"},
	}
	db := filepath.Join(dir, "v.db")
	for _, s := range suites {
		path := s.name + ".jsonl"
		os.WriteFile(filepath.Join(dir, path), []byte(s.body), 0o644)
		code, _, stderr := run(t, dir, "run", "--suite", path, "--subject", "random", "--db", db)
		if code != 1 || !strings.Contains(stderr, s.want) || !strings.Contains(stderr, "nothing was run") {
			t.Errorf("run on %s: exit %d, stderr %q; want exit 1 and %q", path, code, stderr, s.want)
		}
	}
	// CRLF line endings are fine.
	os.WriteFile(filepath.Join(dir, "crlf.jsonl"), []byte(strings.ReplaceAll(goodSuite, "\n", "\r\n")), 0o644)
	if code, _, stderr := run(t, dir, "suite", "validate", "crlf.jsonl"); code != 0 {
		t.Errorf("CRLF suite refused: %s", stderr)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := st.Runs(context.Background())
	st.Close()
	if len(runs) != 0 {
		t.Errorf("malformed suites left %d runs in the store", len(runs))
	}

	// A bad predictions file scores nothing.
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(goodSuite), 0o644)
	os.WriteFile(filepath.Join(dir, "p.jsonl"), []byte(`{"case_id":"a1","label":"vul"}`+"\n"+`{"case_id":"a2","label":"maybe"}`+"\n"), 0o644)
	code, stdout, stderr := run(t, dir, "score", "--suite", "s.jsonl", "--predictions", "p.jsonl")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "p.jsonl:2:") {
		t.Errorf("score with bad predictions: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// A bad PrimeVul file writes no suite, and an existing one is left as it was.
	os.WriteFile(filepath.Join(dir, "pv.jsonl"), []byte(`{"idx":1,"project":"p","commit_id":"c","target":1,"func":"int f(){}"}`+"\n"+`{"idx":2,"project":"p","commit_id":"c","target":7,"func":"int g(){}"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "out.jsonl"), []byte("keep me\n"), 0o644)
	code, _, stderr = run(t, dir, "suite", "import", "primevul", "--in", "pv.jsonl", "--out", "out.jsonl")
	if b, _ := os.ReadFile(filepath.Join(dir, "out.jsonl")); code != 1 || string(b) != "keep me\n" || !strings.Contains(stderr, "pv.jsonl:2:") {
		t.Errorf("import of a bad file: exit %d, out.jsonl %q, stderr %q", code, b, stderr)
	}
}

func TestMissingBinarySaysHowToInstall(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(goodSuite), 0o644)
	t.Setenv("PATH", dir)
	code, _, stderr := run(t, dir, "run", "--suite", "s.jsonl", "--subject", "flawfinder", "--db", "v.db")
	want := "vulnbench: the run cannot start: 1 thing it needs is missing (nothing was stored):\n" +
		"  - subject flawfinder needs the program flawfinder, which is not on PATH\n      fix: apt-get install flawfinder\n"
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr %q; want 2, %q", code, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "v.db")); !os.IsNotExist(err) {
		t.Errorf("the store was created (%v): a failed preflight stores nothing", err)
	}
}

// TestKillAndResume kills the real binary with SIGKILL in the middle of a run, resumes it, and
// checks that every (case, repeat) has exactly one verdict, equal to what the subject answers.
func TestKillAndResume(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	const cases, repeats = 120, 2
	var s, p strings.Builder
	want := map[string]string{}
	for i := 0; i < cases; i++ {
		label := []string{"vul", "ben"}[i%2]
		guess := []string{"vul", "ben", "ben"}[i%3]
		id := fmt.Sprintf("c%03d", i)
		fmt.Fprintf(&s, `{"id":%q,"kind":"function","label":%q,"pair":"p%d","code":"int f%d(void){return %d;}"}`+"\n", id, label, i/2, i, i)
		fmt.Fprintf(&p, `{"case_id":%q,"label":%q,"score":%v}`+"\n", id, guess, float64(i)/cases)
		want[id] = guess
	}
	suitePath, predPath, db := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "p.jsonl"), filepath.Join(dir, "v.db")
	os.WriteFile(suitePath, []byte(s.String()), 0o644)
	os.WriteFile(predPath, []byte(p.String()), 0o644)

	cmd := exec.Command(bin, "run", "--suite", suitePath, "--subject", "predictions:"+predPath, "--db", db,
		"--repeats", fmt.Sprint(repeats), "--concurrency", "4", "--delay", "40ms", "--run-id", "k")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	before := killAfter(t, cmd, db, "k", 40)

	if before >= cases*repeats {
		t.Fatalf("the run finished (%d units) before it was killed: slow it down", before)
	}

	out, err := exec.Command(bin, "run", "--resume", "k", "--db", db).CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), fmt.Sprintf("resuming, %d of %d units already stored", before, cases*repeats)) {
		t.Errorf("resume output does not say what was stored (%d):\n%s", before, out)
	}
	if !strings.Contains(string(out), fmt.Sprintf("%d units in", cases*repeats-before)) {
		t.Errorf("resume did not do exactly the %d missing units:\n%s", cases*repeats-before, out)
	}

	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	seen := map[string]int{}
	err = st.Verdicts(context.Background(), "k", func(v verdict.Verdict) error {
		seen[fmt.Sprintf("%s/%d", v.CaseID, v.Repeat)]++
		if v.Status != verdict.OK || string(v.Label) != want[v.CaseID] {
			t.Errorf("%s repeat %d: %s %s, want ok %s", v.CaseID, v.Repeat, v.Status, v.Label, want[v.CaseID])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < cases; i++ {
		for r := 0; r < repeats; r++ {
			if k := fmt.Sprintf("c%03d/%d", i, r); seen[k] != 1 {
				t.Errorf("unit %s has %d verdicts, want 1", k, seen[k])
			}
		}
	}
	if len(seen) != cases*repeats {
		t.Errorf("%d units stored, want %d", len(seen), cases*repeats)
	}
	r, _ := st.GetRun(context.Background(), "k")
	if r.State != store.StateDone {
		t.Errorf("run state %q after resume, want done", r.State)
	}
}

// Defect: flawfinder "judged" Java, PHP and Terraform cases as ok and printed an F1. A suite with
// cases the subject cannot read is refused before anything is stored, naming the languages; with
// --skip-unsupported those cases get error verdicts that say why, and are not scored.
func TestUnsupportedLanguagesAreRefusedOrSkipped(t *testing.T) {
	dir := t.TempDir()
	suiteText := `{"id":"c1","kind":"appsec","label":"vul","pair":"c","language":"c","code":"void f(char *s){char b[4];strcpy(b,s);}"}
{"id":"c2","kind":"appsec","label":"ben","pair":"c","language":"c","code":"int g(int x){return x+1;}"}
{"id":"j1","kind":"appsec","label":"vul","pair":"j","language":"java","code":"class A { void f(String s) throws Exception { Runtime.getRuntime().exec(s); } }"}
{"id":"j2","kind":"appsec","label":"ben","pair":"j","language":"java","code":"class A { void f() {} }"}
{"id":"t1","kind":"appsec","label":"vul","language":"terraform","code":"resource \"aws_s3_bucket\" \"b\" { acl = \"public-read\" }"}
`
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(suiteText), 0o644)
	code, _, stderr := run(t, dir, "run", "--suite", "s.jsonl", "--subject", "flawfinder", "--db", "v.db", "--run-id", "r1")
	if code != cli.ExitFail || !strings.Contains(stderr, "3 of 5 cases cannot be judged by flawfinder") ||
		!strings.Contains(stderr, "subject flawfinder cannot judge java code (it judges c, cpp, c++): 2 cases") ||
		!strings.Contains(stderr, "--skip-unsupported") {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 naming the 3 cases and their languages", code, stderr)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	if runs, _ := st.Runs(context.Background()); len(runs) != 0 {
		t.Errorf("%d runs stored by a refused run", len(runs))
	}
	st.Close()

	code, stdout, stderr := run(t, dir, "run", "--suite", "s.jsonl", "--subject", "flawfinder", "--db", "v.db", "--run-id", "r2", "--skip-unsupported", "--format", "json")
	if code != 0 {
		t.Fatalf("--skip-unsupported: exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "3 cases the subject cannot judge were given error verdicts") {
		t.Errorf("stderr does not say the cases were skipped:\n%s", stderr)
	}
	st, err = store.Open(context.Background(), filepath.Join(dir, "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got := map[string]string{}
	st.Verdicts(context.Background(), "r2", func(v verdict.Verdict) error {
		got[v.CaseID] = string(v.Status) + " " + v.Reason
		return nil
	})
	want := map[string]string{"c1": "ok ", "c2": "ok ",
		"j1": "error subject flawfinder cannot judge java code (it judges c, cpp, c++)",
		"j2": "error subject flawfinder cannot judge java code (it judges c, cpp, c++)",
		"t1": "error subject flawfinder cannot judge terraform code (it judges c, cpp, c++)"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("verdicts (-want +got):\n%s", d)
	}
	r, err := st.GetRun(context.Background(), "r2")
	if err != nil || !strings.Contains(string(r.Manifest), `"min_level":1,"tool":"flawfinder","tool_version":"2.`) {
		t.Errorf("the manifest does not record flawfinder's version: %s %v", r.Manifest, err)
	}
	if !strings.Contains(stdout, `"error": 3`) && !strings.Contains(stdout, `"error":3`) {
		t.Errorf("the score does not count the 3 errors apart:\n%s", stdout)
	}
}
