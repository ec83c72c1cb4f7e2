package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/probe"
)

// probeCode is case i's function: a dozen lines, none shared with another case.
func probeCode(i int) string {
	return fmt.Sprintf("static int unpack_%d(const char *s, size_t n)\n{\n\tchar w%d[%d];\n\tsize_t q%d = 0;\n"+
		"\tif (n > %d)\n\t\treturn -%d;\n\twhile (q%d < n)\n\t\tw%d[q%d] = s[q%d++] + %d;\n\treturn w%d[%d] * %d;\n}\n",
		i, i, 20+i, i, 50+i, i+1, i, i, i, i, i, i, i%4, i+9)
}

// probe memory against a fake model that recites cases c03, c07 and c08: exactly those are
// memorised, the control is zero, the run is priced, and a resume of the finished run calls the
// model no more and prints the same table.
func TestProbeMemoryRecitedCases(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
	var b strings.Builder
	codes := map[string]string{}
	for i := 0; i < 12; i++ {
		id := fmt.Sprintf("c%02d", i)
		codes[id] = probeCode(i)
		if i == 9 { // c09, c08's twin, differs from it in its last line only: the two share a prompt
			codes[id] = strings.Replace(probeCode(8), " * 17;", " * 18;", 1)
		}
		line, _ := json.Marshal(map[string]any{"id": id, "kind": "function", "label": []string{"vul", "ben"}[i%2],
			"pair": fmt.Sprint("p", i/2), "language": "c", "date": fmt.Sprintf("%d-01-02T00:00:00Z", 2023+i%2), "code": codes[id]})
		b.Write(append(line, '\n'))
	}
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(b.String()), 0o644)
	recite := map[string]bool{"c03": true, "c07": true, "c08": true}
	var mu sync.Mutex
	calls := 0
	srv := llmtest.NewOpenAI(func(r llmtest.Request) llmtest.Reply {
		mu.Lock()
		calls++
		mu.Unlock()
		for id, code := range codes {
			p, err := probe.Cut(id, "", code, probe.Options{})
			if err == nil && strings.Contains(r.Prompt(), p.Prefix) && recite[id] {
				// a one-line preamble before the code, as models write (issue 35 item 5)
				return llmtest.Reply{Text: "Here is the rest of the file:\n" + strings.TrimPrefix(code, p.Prefix)}
			}
		}
		return llmtest.Reply{Text: "\treturn 0;\n}\n"}
	})
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	args := []string{"probe", "memory", "--suite", "s.jsonl", "--model", "openai:fake-model", "--base-url", srv.BaseURL(),
		"--db", "v.db", "--run-id", "mp", "--prices", "prices.yaml", "--format", "json"}
	code, out, errOut := run(t, dir, args...)
	if code != 0 {
		t.Fatalf("probe memory: exit %d\n%s\n%s", code, out, errOut)
	}
	// c08 and c09 are one prompt (counted once, in c08's year); every recitation is found
	// after its preamble.
	want := probe.Report{Suite: "s.jsonl", Rule: probe.Rule, Rows: []probe.Row{
		{Year: "2023", Prompts: 6, Cases: 7, Memorised: 1, Share: 1.0 / 6}, // c08 (and c09)
		{Year: "2024", Prompts: 5, Cases: 5, Memorised: 2, Share: 2.0 / 5}, // c03, c07
		{Year: "all", Prompts: 11, Cases: 12, Memorised: 3, Share: 3.0 / 11},
	}, Memorised: []probe.Memorised{{Year: "2024", Cases: []string{"c03"}}, {Year: "2024", Cases: []string{"c07"}}, {Year: "2023", Cases: []string{"c08", "c09"}}},
		Retries: probe.Retries{Reasons: map[string]int{}}}
	table := func(out string) probe.Report {
		var got probe.Report
		if err := json.NewDecoder(strings.NewReader(out[strings.Index(out, "{"):])).Decode(&got); err != nil {
			t.Fatalf("table: %v\n%s", err, out)
		}
		return got
	}
	if d := cmp.Diff(want, table(out)); d != "" {
		t.Errorf("table (-want +got):\n%s", d)
	}
	asked := calls // 11 or 12: c09's call is the cache's when c08's answer is stored first
	if calls < 11 || calls > 12 || !strings.Contains(errOut, "$") {
		t.Errorf("%d calls, want 11 or 12; usage priced?\n%s", calls, errOut)
	}
	code, out, errOut = run(t, dir, "probe", "memory", "--resume", "mp", "--db", "v.db", "--prices", "prices.yaml")
	if code != 0 || calls != asked || !regexp.MustCompile(`(?m)^all +11 +12 +3 +27\.3% +0 +0\.0%$`).MatchString(out) ||
		!strings.Contains(out, "memorised (3 prompts):\n  2024 c03\n  2024 c07\n  2023 c08 c09\n") ||
		!strings.Contains(out, "retries: 0 attempts tried again, 0 model calls retried") {
		t.Errorf("resume: exit %d, %d calls\n%s\n%s", code, calls, out, errOut)
	}
	if code, out, _ = run(t, dir, "probe", "memory", "--resume", "mp", "--db", "v.db", "--prices", "prices.yaml", "--format", "md"); code != 0 ||
		!strings.Contains(out, "Memorised (3 prompts):\n- 2024: c03\n- 2024: c07\n- 2023: c08, c09\n") {
		t.Errorf("md: exit %d\n%s", code, out)
	}
	if code, out, errOut = run(t, dir, "score", "--run", "mp", "--db", "v.db"); code != 0 {
		t.Errorf("score --run of a probe run: exit %d\n%s\n%s", code, out, errOut)
	}
	// score reads the verdicts as labels, memorised as vul: c08 is a vul case, c03, c07 and c09 ben ones.
	if !strings.Contains(out, "tp         1\n") || !strings.Contains(out, "fp         3\n") {
		t.Errorf("score --run of a probe run:\n%s", out)
	}

	// A second run is served from the response cache; at another temperature it is not, and
	// --max-cost stops it after the first call: the table of the answers stored so far.
	again := append([]string(nil), args...)
	again[len(again)-5] = "again" // --run-id
	if code, out, errOut = run(t, dir, again...); code != 0 || calls != asked || !strings.Contains(errOut, "12 cache hits") {
		t.Errorf("second run: exit %d, %d calls\n%s\n%s", code, calls, out, errOut)
	}
	code, out, errOut = run(t, dir, "probe", "memory", "--suite", "s.jsonl", "--model", "openai:fake-model", "--base-url", srv.BaseURL(),
		"--db", "v.db", "--run-id", "cap", "--prices", "prices.yaml", "--concurrency", "1", "--max-cost", "0.000001", "--temperature", "0.3")
	if code != 1 || !strings.Contains(errOut, "STOPPED: --max-cost") || !regexp.MustCompile(`all +[1-9]`).MatchString(out) ||
		!regexp.MustCompile(` [1-9]\d* without an answer`).MatchString(out) {
		t.Errorf("--max-cost: exit %d\n%s\n%s", code, out, errOut)
	}
}
