package react_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/agent/tools"
	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/react"
	"github.com/vulnbench/vulnbench/internal/subjecttest"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// The vulnerability-introducing commit: copy has no bound check, one caller.
const introC = `#include <string.h>

static int fits(const char *s, size_t n)
{
	return strlen(s) < n;
}

void copy(char *dst, const char *s)
{
	strcpy(dst, s);
}

void handle(const char *in)
{
	char buf[8];
	copy(buf, in);
}
`

// The fix: copy checks the length first, and a second caller appears.
const fixC = `#include <string.h>

static int fits(const char *s, size_t n)
{
	return strlen(s) < n;
}

void copy(char *dst, const char *s)
{
	if (!fits(s, 8))
		return;
	strcpy(dst, s);
}

void handle(const char *in)
{
	char buf[8];
	copy(buf, in);
}

void audit(const char *in)
{
	char b[8];
	copy(b, in);
}
`

// history makes a repository with the two commits and returns their ids.
func history(t *testing.T, dir string, contents ...string) []string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, dir, "init", "-q")
	var ids []string
	for i, c := range contents {
		if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		gittest.Run(t, dir, "add", ".")
		gittest.Run(t, dir, "commit", "-q", "-m", fmt.Sprintf("commit %d", i))
		ids = append(ids, gittest.Run(t, dir, "rev-parse", "HEAD"))
	}
	return ids
}

// indexAt indexes a checkout of the repository at commit, made apart from the run's snapshots.
func indexAt(t *testing.T, repo, commit string) *codegraph.Index {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("sh", "-c", fmt.Sprintf("git -C %s archive %s | tar -x -C %s", repo, commit, dir)).CombinedOutput()
	if err != nil {
		t.Fatalf("archive: %v\n%s", err, out)
	}
	ix, err := codegraph.Open(context.Background(), dir, codegraph.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func funcText(src, name string) string {
	i := strings.Index(src, "void "+name+"(")
	j := strings.Index(src[i:], "\n}\n")
	return src[i : i+j+2]
}

func writeSuite(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func jitCase(id, label, commit, code string) string {
	c, _ := json.Marshal(code)
	return fmt.Sprintf(`{"id":%q,"kind":"jit","label":%q,"pair":"p1","language":"c","cwe":["CWE-787"],"code":%s,"repo":{"url":"https://github.com/acme/lib","commit":%q},"target":{"file":"main.c","function":"copy"}}`,
		id, label, c, commit)
}

// unit runs the react subject on case line c against script, with the repositories under repos.
func unit(t *testing.T, repos, c string, script llmtest.Handler, flags map[string]string, limits subject.Limits) (verdict.Verdict, []trace.Event) {
	t.Helper()
	vals := map[string]string{"max-retries": "0"}
	for k, v := range flags {
		vals[k] = v
	}
	return subjecttest.RunUnit(t, react.Kind(), vals, subjecttest.Case(t, c), script, subjecttest.Repos(repos), subjecttest.Limits(limits))
}

// TestToolsAnswerFromTheCasesOwnSnapshot runs the react subject on each case of a pair of
// a real two-commit repository: the scripted model asks for callers, callees and a definition,
// and each observation it is shown is what the code graph of its own case's commit answers.
func TestToolsAnswerFromTheCasesOwnSnapshot(t *testing.T) {
	for _, proto := range []string{"openai native", "anthropic native", "text"} {
		t.Run(proto, func(t *testing.T) {
			dir := t.TempDir()
			repo := filepath.Join(dir, "repos", "acme", "lib")
			ids := history(t, repo, introC, fixC)
			cases := map[string]string{"v": jitCase("v", "vul", ids[0], funcText(introC, "copy")), "b": jitCase("b", "ben", ids[1], funcText(fixC, "copy"))}

			calls := []struct{ name, args string }{
				{"get_callers", `{"function": "copy"}`},
				{"get_callees", `{"function": "copy"}`},
				{"get_definition", `{"function": "copy", "file": "main.c", "line": "9"}`},
				{"get_definition", `{"function": "fits"}`},
			}
			var replies []llmtest.Reply
			for i, c := range calls {
				if proto == "text" {
					replies = append(replies, llmtest.ReAct("look", c.name, c.args))
				} else {
					replies = append(replies, llmtest.Call(llmtest.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: c.name, Arguments: c.args}))
				}
			}
			// The answer depends on what the model was shown: vul unless it saw the check.
			var mu sync.Mutex
			seen := map[string][]string{} // case (by its commit's code) -> observations
			check := func(r llmtest.Request, turn int) string {
				key := "v"
				if strings.Contains(r.Messages[0].Content, "fits(s, 8)") {
					key = "b"
				}
				var obs string
				if rs := r.ToolResults(); len(rs) == 1 {
					obs = rs[0].Content
				} else if l := r.Last(); turn > 0 && l.Role == "user" {
					obs = strings.TrimSuffix(strings.TrimPrefix(l.Content, "Observation:\n```text\n"), "\n```")
				}
				if turn > 0 {
					mu.Lock()
					seen[key] = append(seen[key], obs)
					mu.Unlock()
				}
				return ""
			}
			final := llmtest.Reply{Text: `{"vulnerable": true, "cwe": "CWE-787", "confidence": 0.8, "reason": "strcpy without a bound"}`}
			h := llmtest.Conversation(check, append(replies, final)...)
			flags := map[string]string{}
			if proto == "text" {
				flags["tool-protocol"] = "text"
			}
			if proto == "anthropic native" {
				flags["model"] = "anthropic:claude-test"
			}
			got := map[string]string{}
			var evs []trace.Event
			for _, key := range []string{"v", "b"} {
				v, tr := unit(t, filepath.Join(dir, "repos"), cases[key], h, flags, subject.Limits{})
				got[key] = fmt.Sprintf("%s %s tools=%d calls=%d %s", v.Status, v.Label, v.Usage.ToolCalls, v.Usage.Calls, v.Reason)
				evs = tr
			}

			for key, commit := range map[string]string{"v": ids[0], "b": ids[1]} {
				ix := indexAt(t, repo, commit)
				near := query.Near{File: "main.c"}
				def, err := tools.Definition(ix, "copy", query.Near{File: "main.c", Line: 9})
				if err != nil {
					t.Fatal(err)
				}
				fits, err := tools.Definition(ix, "fits", near)
				if err != nil {
					t.Fatal(err)
				}
				want := []string{tools.Callers(ix, "copy", near), tools.Callees(ix, "copy", near), def, fits}
				if d := cmp.Diff(want, seen[key]); d != "" {
					t.Errorf("case %s: observations (-the graph of its commit +shown):\n%s", key, d)
				}
			}
			// What each commit's graph says, written out: the fix added a caller and a callee.
			for key, want := range map[string][]string{
				"v": {"1 call sites of copy:\nmain.c:16 in handle", "main.c:10 strcpy (not defined in the repository)"},
				"b": {"2 call sites of copy:\nmain.c:18 in handle\nmain.c:24 in audit", "main.c:10 fits\nmain.c:12 strcpy"},
			} {
				if len(seen[key]) < 2 || !strings.HasPrefix(seen[key][0], want[0]) || !strings.Contains(seen[key][1], want[1]) {
					t.Errorf("case %s: callers %q, callees %q; want %q and %q", key, first(seen[key], 0), first(seen[key], 1), want[0], want[1])
				}
			}

			want := map[string]string{"v": "ok vul tools=4 calls=5 ", "b": "ok vul tools=4 calls=5 "}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("verdicts (-want +got):\n%s", d)
			}
			var kinds []string
			for _, e := range evs {
				k := string(e.Kind)
				if e.Kind == trace.ToolCall || e.Kind == trace.ToolResult {
					k += ":" + e.Name
					if e.CallID == "" {
						t.Errorf("%s event without a call id", e.Kind)
					}
				}
				kinds = append(kinds, k)
			}
			wantKinds := []string{"note", "model_request", "model_response"} // the note says which context answered
			for _, c := range calls {
				wantKinds = append(wantKinds, "tool_call:"+c.name, "tool_result:"+c.name, "model_request", "model_response")
			}
			if d := cmp.Diff(wantKinds, kinds); d != "" {
				t.Errorf("trace (-want +got):\n%s", d)
			}
		})
	}
}

func first(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// TestStepCapAndNoRepository: an agent that never stops is cut at 15 model calls by default (or
// at the run's --max-steps) and its verdict is failed with the reason; a case without a
// repository gets an error that says why.
func TestStepCapAndNoRepository(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repos", "acme", "lib")
	ids := history(t, repo, introC)
	cases := map[string]string{"v": jitCase("v", "vul", ids[0], funcText(introC, "copy")),
		"n": `{"id":"n","kind":"jit","label":"ben","pair":"p1","code":"void f(void){}","target":{"file":"f.c","function":"f"}}`}
	for _, tt := range []struct {
		name  string
		steps int
		want  int
	}{{"default", 0, 15}, {"--max-steps 3", 3, 3}} {
		t.Run(tt.name, func(t *testing.T) {
			script := llmtest.Conversation(nil, llmtest.Call(llmtest.ToolCall{Name: "get_callers", Arguments: `{"function":"copy"}`}))
			got := map[string]string{}
			for key, c := range cases {
				v, _ := unit(t, filepath.Join(dir, "repos"), c, script, nil, subject.Limits{Steps: tt.steps})
				got[key] = fmt.Sprintf("%s calls=%d tools=%d %s", v.Status, v.Usage.Calls, v.Usage.ToolCalls, v.Reason)
			}
			want := map[string]string{
				"v": fmt.Sprintf("failed calls=%d tools=%d stopped by step cap reached without a final answer (%d model calls) (no answer: a failed answer, counted)", tt.want, tt.want, tt.want),
				"n": "error calls=0 tools=0 subject react needs the case's repository or its precomputed context: case n has no repo.url and repo.commit and no meta.context (the case has no repository snapshot)",
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("verdicts (-want +got):\n%s", d)
			}
		})
	}
}
