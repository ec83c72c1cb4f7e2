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
				return llmtest.Reply{Text: strings.TrimPrefix(code, p.Prefix)}
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
	want := probe.Report{Suite: "s.jsonl", Rows: []probe.Row{
		{Year: "2023", Cases: 6, Memorised: 1, Share: 1.0 / 6}, // c08
		{Year: "2024", Cases: 6, Memorised: 2, Share: 2.0 / 6}, // c03, c07
		{Year: "all", Cases: 12, Memorised: 3, Share: 3.0 / 12},
	}}
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
	if calls != 12 || !strings.Contains(errOut, "$") {
		t.Errorf("%d calls, want 12; usage priced?\n%s", calls, errOut)
	}
	code, out, errOut = run(t, dir, "probe", "memory", "--resume", "mp", "--db", "v.db", "--prices", "prices.yaml")
	if code != 0 || calls != 12 || !strings.Contains(out, "all          12        3   25.0%        0    0.0%") {
		t.Errorf("resume: exit %d, %d calls\n%s\n%s", code, calls, out, errOut)
	}
	if code, out, errOut = run(t, dir, "score", "--run", "mp", "--db", "v.db"); code != 0 {
		t.Errorf("score --run of a probe run: exit %d\n%s\n%s", code, out, errOut)
	}
	// score reads the verdicts as labels, memorised as vul: c08 is a vul case, c03 and c07 ben ones.
	if !strings.Contains(out, "tp         1\n") || !strings.Contains(out, "fp         2\n") {
		t.Errorf("score --run of a probe run:\n%s", out)
	}

	// A second run is served from the response cache; at another temperature it is not, and
	// --max-cost stops it after the first call: the table of the answers stored so far.
	again := append([]string(nil), args...)
	again[len(again)-5] = "again" // --run-id
	if code, out, errOut = run(t, dir, again...); code != 0 || calls != 12 || !strings.Contains(errOut, "12 cache hits") {
		t.Errorf("second run: exit %d, %d calls\n%s\n%s", code, calls, out, errOut)
	}
	code, out, errOut = run(t, dir, "probe", "memory", "--suite", "s.jsonl", "--model", "openai:fake-model", "--base-url", srv.BaseURL(),
		"--db", "v.db", "--run-id", "cap", "--prices", "prices.yaml", "--concurrency", "1", "--max-cost", "0.000001", "--temperature", "0.3")
	if code != 1 || !strings.Contains(errOut, "STOPPED: --max-cost") || !regexp.MustCompile(`all +[1-9]`).MatchString(out) ||
		!regexp.MustCompile(` [1-9]\d* without an answer`).MatchString(out) {
		t.Errorf("--max-cost: exit %d\n%s\n%s", code, out, errOut)
	}
}
