package react_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/agent/tools"
	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// publicRecord is a JitVul final_benchmark.jsonl record on the test repository, with the paper's
// precomputed context in its shape (cflow's tree as {"NAME": {"callers": [...]}}, the callee graph
// using the same key, ctags bodies by name). The context names functions the repository does not
// have (main, log_copy), so an observation says which source answered.
func publicRecord(intro, fix string) string {
	rec := map[string]any{
		"idx": 7, "project": "lib", "project_url": "https://github.com/acme/lib", "file_name": "main.c",
		"cwe": []string{"CWE-787"}, "cve": "CVE-2031-0007",
		"vulnerability_fixing_commit_id": fix, "vulnerability_introducing_commit_id": intro,
		"vulnerable_function_body": funcText(introC, "copy"), "non_vulnerable_function_body": funcText(fixC, "copy"),
		"vulnerable_caller_graph":        map[string]any{"copy": map[string]any{"callers": []string{"main"}}, "main": map[string]any{"callers": []string{}}},
		"vulnerable_callee_graph":        map[string]any{"copy": map[string]any{"callers": []string{"strcpy"}}},
		"vulnerable_function_bodies":     map[string]string{"main": "int main(void)\n{\n\tcopy(0, 0);\n}"},
		"non_vulnerable_caller_graph":    map[string]any{"copy": map[string]any{"callers": []string{"main", "log_copy"}}},
		"non_vulnerable_callee_graph":    map[string]any{"copy": map[string]any{"callers": []string{"fits", "strcpy"}}},
		"non_vulnerable_function_bodies": map[string]string{"fits": "static int fits(const char *s, size_t n)\n{\n\treturn strlen(s) < n; /* stored */\n}"},
	}
	b, _ := json.Marshal(rec)
	return string(b)
}

// importCases imports the records as `vulnbench suite import jitvul` does and returns the cases'
// lines.
func importCases(t *testing.T, records ...string) []string {
	t.Helper()
	var b bytes.Buffer
	w := suite.NewWriter(&b)
	if _, problems, err := jitvul.Import(strings.NewReader(strings.Join(records, "\n")+"\n"), "final_benchmark.jsonl", nil, w); err != nil || len(problems) > 0 {
		t.Fatalf("import: %v %v", err, problems)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(b.String()), "\n")
}

// TestContextModes runs react on the same imported pair, whose repository a test helper built,
// with --context live and --context precomputed: the scripted model asks get_callers,
// get_callees and get_definition, and each observation is the code graph's answer on the case's
// own commit (live) or the record's stored context (precomputed); the trace says which answered.
func TestContextModes(t *testing.T) {
	calls := []struct{ name, args string }{
		{"get_callers", `{"function": "copy"}`},
		{"get_callees", `{"function": "copy"}`},
		{"get_definition", `{"function": "fits"}`},
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "repos", "acme", "lib")
	ids := history(t, repo, introC, fixC)
	cases := importCases(t, publicRecord(ids[0], ids[1]))

	liveWant := map[string][]string{}
	for key, commit := range map[string]string{"vul": ids[0], "ben": ids[1]} {
		ix := indexAt(t, repo, commit)
		near := query.Near{File: "main.c"}
		fits, err := tools.Definition(ix, "fits", near)
		if err != nil {
			t.Fatal(err)
		}
		liveWant[key] = []string{tools.Callers(ix, "copy", near), tools.Callees(ix, "copy", near), fits}
	}
	tests := []struct {
		mode string
		want map[string][]string
		note string
	}{
		{"live", liveWant, "live: the code graph of the case's snapshot https://github.com/acme/lib@"},
		{"auto", liveWant, "live: the code graph of the case's snapshot https://github.com/acme/lib@"},
		{"precomputed", map[string][]string{
			"vul": {"1 callers of copy:\nmain", "1 callees of copy:\nstrcpy", "No definition of fits in the precomputed context: it may be a system or library function."},
			"ben": {"2 callers of copy:\nmain\nlog_copy", "2 callees of copy:\nfits\nstrcpy", "fits:\nstatic int fits(const char *s, size_t n)\n{\n\treturn strlen(s) < n; /* stored */\n}"},
		}, "precomputed: the case's meta.context"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			var replies []llmtest.Reply
			for i, c := range calls {
				replies = append(replies, llmtest.Call(llmtest.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: c.name, Arguments: c.args}))
			}
			var mu sync.Mutex
			seen := map[string][]string{}
			check := func(r llmtest.Request, turn int) string {
				key := "vul"
				if strings.Contains(r.Messages[0].Content, "fits(s, 8)") {
					key = "ben"
				}
				if rs := r.ToolResults(); turn > 0 && len(rs) == 1 {
					mu.Lock()
					seen[key] = append(seen[key], rs[0].Content)
					mu.Unlock()
				}
				return ""
			}
			script := llmtest.Conversation(check, append(replies, llmtest.Reply{Text: `{"vulnerable": true}`})...)
			traces := map[string][]trace.Event{}
			for _, c := range cases {
				v, evs := unit(t, filepath.Join(dir, "repos"), c, script, map[string]string{"context": tt.mode}, subject.Limits{})
				traces[v.CaseID] = evs
			}
			if diff := cmp.Diff(tt.want, seen); diff != "" {
				t.Errorf("observations (-want +shown):\n%s", diff)
			}
			for _, id := range []string{"jitvul-7-vul", "jitvul-7-ben"} {
				evs := traces[id]
				var notes []string
				for _, e := range evs {
					if e.Kind == trace.Note && e.Name == "context" {
						notes = append(notes, e.Content)
					}
				}
				if len(notes) != 1 || !strings.HasPrefix(notes[0], tt.note) {
					t.Errorf("%s: context notes %q; want one starting %q", id, notes, tt.note)
				}
			}
		})
	}
}

// TestContextWithoutRepository: the imported record without its repository answers from its
// stored context under auto and precomputed; --context live on it, and any mode on a case with
// neither, is an error verdict that names what is missing.
func TestContextWithoutRepository(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for _, l := range importCases(t, publicRecord(strings.Repeat("a", 40), strings.Repeat("b", 40))) { // drop the repository
		var c map[string]any
		json.Unmarshal([]byte(l), &c)
		delete(c, "repo")
		j, _ := json.Marshal(c)
		lines = append(lines, string(j))
	}
	lines = append(lines, `{"id":"n","kind":"jit","label":"ben","pair":"p2","code":"void f(void){}","target":{"file":"f.c","function":"f"}}`,
		`{"id":"m","kind":"jit","label":"vul","pair":"p2","code":"void f(void){}","target":{"file":"f.c","function":"f"}}`)
	neither := "error subject react needs the case's repository or its precomputed context: case %s has no repo.url and repo.commit and no meta.context (the case has no repository snapshot)"
	for _, tt := range []struct {
		mode string
		want map[string]string
	}{
		{"auto", map[string]string{"jitvul-7-vul": "ok vul tools=1", "jitvul-7-ben": "ok vul tools=1", "n": fmt.Sprintf(neither, "n"), "m": fmt.Sprintf(neither, "m")}},
		{"precomputed", map[string]string{"jitvul-7-vul": "ok vul tools=1", "jitvul-7-ben": "ok vul tools=1",
			"n": "error subject react --context precomputed: case n: the case has no precomputed context (meta.context)",
			"m": "error subject react --context precomputed: case m: the case has no precomputed context (meta.context)"}},
		{"live", map[string]string{
			"jitvul-7-vul": "error subject react --context live needs the case's repository: case jitvul-7-vul has no repo.url and repo.commit (the case has no repository snapshot)",
			"jitvul-7-ben": "error subject react --context live needs the case's repository: case jitvul-7-ben has no repo.url and repo.commit (the case has no repository snapshot)",
			"n":            "error subject react --context live needs the case's repository: case n has no repo.url and repo.commit (the case has no repository snapshot)",
			"m":            "error subject react --context live needs the case's repository: case m has no repo.url and repo.commit (the case has no repository snapshot)"}},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			script := llmtest.Conversation(nil, llmtest.Call(llmtest.ToolCall{ID: "c", Name: "get_callers", Arguments: `{"function":"copy"}`}),
				llmtest.Reply{Text: `{"vulnerable": true}`})
			got := map[string]string{}
			for _, c := range lines {
				v, _ := unit(t, filepath.Join(dir, "repos"), c, script, map[string]string{"context": tt.mode}, subject.Limits{})
				s := fmt.Sprintf("%s %s tools=%d", v.Status, v.Label, v.Usage.ToolCalls)
				if v.Status == verdict.Error {
					s = "error " + v.Reason
				}
				got[v.CaseID] = s
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("verdicts (-want +got):\n%s", d)
			}
		})
	}
}
