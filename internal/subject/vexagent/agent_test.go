package vexagent_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/agent"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/subject/vexagent"
	"github.com/vulnbench/vulnbench/internal/subjecttest"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

const goVuln = `{"id":"GO-2020-0019","modified":"2023-01-01T00:00:00Z","aliases":["CVE-2020-27813","GHSA-3xh2-74w9-5vxm"],
"summary":"Integer overflow in github.com/gorilla/websocket","details":"An attacker can cause a denial of service.",
"affected":[{"package":{"name":"github.com/gorilla/websocket","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.4.1"}]}],
"ecosystem_specific":{"imports":[{"path":"github.com/gorilla/websocket","symbols":["Conn.advanceFrame"]}]}}],
"references":[{"type":"FIX","url":"https://github.com/gorilla/websocket/pull/537"}]}`

func TestToolNames(t *testing.T) {
	var names []string
	for _, tl := range vexagent.Tools(nil, nil) {
		names = append(names, tl.Name)
		if tl.Parameters["type"] != "object" || tl.Description == "" {
			t.Errorf("%s: parameters %v", tl.Name, tl.Parameters)
		}
	}
	if d := cmp.Diff([]string{"list_dir", "read_file", "search", "find_dependency", "get_advisory"}, names); d != "" {
		t.Errorf("names (-want +got):\n%s", d)
	}
}

func TestConcludeStopped(t *testing.T) {
	v := vexagent.Conclude(agent.Result{Stopped: agent.ErrMaxSteps, ToolCalls: 3})
	if v.Status != verdict.Failed || !strings.Contains(v.Reason, "step cap") || v.Usage.ToolCalls != 3 {
		t.Errorf("%+v", v)
	}
}

// A scripted vex-agent on a real repository: the model asks for the
// advisory, the dependency and a search, and answers with what it was shown.
func TestScriptedAgent(t *testing.T) {
	for _, proto := range []string{"native", "text"} {
		t.Run(proto, func(t *testing.T) {
			dir := t.TempDir()
			repo := filepath.Join(dir, "repos", "acme", "app")
			commit := gittest.Repo(t, repo, map[string]string{
				"go.mod":     "module example.com/app\n\ngo 1.21\n\nrequire github.com/gorilla/websocket v1.4.0\n",
				"main.go":    "package main\n\nfunc main() {}\n",
				"ws_test.go": "package main\n\nimport \"github.com/gorilla/websocket\"\n\nvar _ = websocket.Upgrader{}\n",
			})
			adv := filepath.Join(dir, "adv")
			os.MkdirAll(adv, 0o755)
			os.WriteFile(filepath.Join(adv, "GO-2020-0019.json"), []byte(goVuln), 0o644)
			c := subjecttest.Case(t, fmt.Sprintf(`{"id":"t1","kind":"vex","label":"ben","cve":"CVE-2020-27813","language":"go","repo":{"url":"https://github.com/acme/app","commit":%q},"vex":{"category":"code_not_reachable","ecosystem":"Go"}}`, commit))

			calls := []struct{ name, args string }{
				{"get_advisory", `{"id": "CVE-2020-27813"}`},
				{"find_dependency", `{"package": "github.com/gorilla/websocket"}`},
				{"search", `{"pattern": "websocket\\."}`},
			}
			var replies []llmtest.Reply
			for i, c := range calls {
				if proto == "text" {
					replies = append(replies, llmtest.ReAct("look", c.name, c.args))
				} else {
					replies = append(replies, llmtest.Call(llmtest.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: c.name, Arguments: c.args}))
				}
			}
			var mu sync.Mutex
			var seen []string
			var system string
			check := func(r llmtest.Request, turn int) string {
				mu.Lock()
				defer mu.Unlock()
				if turn == 0 {
					system = r.System
					return ""
				}
				if rs := r.ToolResults(); len(rs) == 1 {
					seen = append(seen, rs[0].Content)
				} else if l := r.Last(); l.Role == "user" {
					seen = append(seen, strings.TrimSuffix(strings.TrimPrefix(l.Content, "Observation:\n```text\n"), "\n```"))
				}
				return ""
			}
			final := llmtest.Reply{Text: "```json\n{\"category\": \"code_not_reachable\", \"reasoning\": \"websocket 1.4.0 is affected, but only ws_test.go uses it\"}\n```"}
			v, _ := subjecttest.RunUnit(t, vexagent.Kind(), map[string]string{"tool-protocol": proto, "max-retries": "0", "advisories": adv}, c,
				llmtest.Conversation(check, append(replies, final)...), subjecttest.Repos(filepath.Join(dir, "repos")))
			want := []string{
				"GO-2020-0019 (aliases: CVE-2020-27813, GHSA-3xh2-74w9-5vxm)\nSummary: Integer overflow in github.com/gorilla/websocket\n" +
					"Details: An attacker can cause a denial of service.\nAffected: Go github.com/gorilla/websocket\n  SEMVER range: introduced 0, fixed 1.4.1\n" +
					"  vulnerable symbols: github.com/gorilla/websocket.Conn.advanceFrame\nReference: https://github.com/gorilla/websocket/pull/537",
				"github.com/gorilla/websocket: 1 entries\nGo github.com/gorilla/websocket 1.4.0 at go.mod:5 (direct)",
				"ws_test.go:5: var _ = websocket.Upgrader{}",
			}
			if d := cmp.Diff(want, seen); d != "" {
				t.Errorf("observations (-want +shown):\n%s", d)
			}
			if !strings.Contains(system, "1. false_positive") || !strings.Contains(system, "12. vulnerable") {
				t.Errorf("system prompt lacks the ordered categories: %q", system)
			}
			if v.VEX == nil {
				t.Fatalf("no vex answer: %+v", v)
			}
			got := fmt.Sprintf("%s %s %s/%s/%s tools=%d", v.Status, v.Label, v.VEX.Category, v.VEX.Status, v.VEX.Justification, v.Usage.ToolCalls)
			if d := cmp.Diff("ok ben code_not_reachable/not_affected/vulnerable_code_not_in_execute_path tools=3", got); d != "" {
				t.Errorf("verdicts (-want +got):\n%s", d)
			}
		})
	}
}
