package agentcli_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/board"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/harness"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/vexagent"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// compareTruth is the built suite: six Go projects, each a vex case of its own CVE, and the
// category the ground truth gives it.
var compareTruth = []string{"vulnerable", "code_not_present", "code_not_reachable", "vulnerable", "requires_configuration", "code_not_reachable"}

// compareAnswers is what each subject's scripted model answers on case i (the fake decides the
// figures; the test checks they come out of the whole pipeline as computed by hand).
var compareAnswers = map[string][]string{
	"claude-code": {"vulnerable", "code_not_present", "code_not_reachable", "vulnerable", "code_not_reachable", "code_not_reachable"},
	"codex":       {"vulnerable", "code_not_present", "vulnerable", "code_not_reachable", "requires_configuration", "code_not_reachable"},
	"opencode":    {"vulnerable", "code_not_reachable", "code_not_reachable", "vulnerable", "requires_configuration", "uncertain"},
	"gemini-cli":  {"vulnerable", "code_not_present", "code_not_present", "vulnerable", "requires_configuration", "code_not_reachable"},
	"qwen-code":   {"code_not_reachable", "code_not_present", "code_not_reachable", "vulnerable", "requires_configuration", "code_not_reachable"},
	"pi":          {"vulnerable", "code_not_present", "code_not_reachable", "code_not_reachable", "requires_configuration", "vulnerable"},
	"cline":       {"vulnerable", "vulnerable", "code_not_reachable", "vulnerable", "requires_configuration", "code_not_reachable"},
	"kilo":        {"vulnerable", "code_not_present", "uncertain", "vulnerable", "code_not_reachable", "code_not_reachable"},
	"vex-agent":   {"code_not_reachable", "code_not_present", "code_not_reachable", "vulnerable", "vulnerable", "code_not_reachable"},
}

var cveRE = regexp.MustCompile(`CVE-2024-00(\d\d)`)

// compareScript answers case i's category at the agent's second turn, after one shell call
// (CLIs) or at once (vex-agent, whose own tools are not scripted here).
func compareScript(name string) llmtest.Handler {
	return func(r llmtest.Request) llmtest.Reply {
		if len(r.Tools) == 0 && name != "vex-agent" {
			return llmtest.Reply{Text: "Title", InputTokens: 40, OutputTokens: 2}
		}
		if r.Turn() == 0 && name != "vex-agent" {
			return llmtest.Reply{Text: "Reading go.mod.", ToolCalls: []llmtest.ToolCall{shellCall(name, "cat go.mod")}, InputTokens: 3000, OutputTokens: 60}
		}
		m := cveRE.FindStringSubmatch(string(r.Raw))
		if m == nil {
			return llmtest.Reply{Text: "no case in the prompt"}
		}
		var i int
		fmt.Sscanf(m[1], "%d", &i)
		b, _ := json.Marshal(map[string]string{"category": compareAnswers[name][i], "reasoning": "go.mod and the call sites"})
		return llmtest.Reply{Text: string(b), InputTokens: 3500, OutputTokens: 50}
	}
}

// TestVEXSideBySide: the eight CLIs and vex-agent on one built vex suite (VEX-Bench Figure 7's
// comparison) through the runner, then `vulnbench board` of the store: one row each with status
// F1, justification macro-F1, completion rate, stopped units, tokens and cost per case.
// docs/harness.md shows its board.
func TestVEXSideBySide(t *testing.T) {
	if testing.Short() {
		t.Skip("the real CLIs take tens of seconds each")
	}
	sb, err := sandbox.New(context.Background(), sandbox.Options{})
	if err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	dir := t.TempDir()
	repos := filepath.Join(dir, "repos")
	var lines []string
	var cases []score.Case
	for i, cat := range compareTruth {
		name := fmt.Sprintf("app%d", i)
		commit := gittest.Repo(t, filepath.Join(repos, "acme+"+name), map[string]string{
			"go.mod": "module example.com/" + name + "\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"})
		label := "ben"
		if cat == "vulnerable" {
			label = "vul"
		}
		id := fmt.Sprintf("v%d", i)
		lines = append(lines, fmt.Sprintf(`{"id":%q,"kind":"vex","label":%q,"cve":"CVE-2024-00%02d","language":"go","repo":{"url":"https://github.com/acme/%s","commit":%q},"vex":{"category":%q,"ecosystem":"Go"}}`,
			id, label, i, name, commit, cat))
		cases = append(cases, score.Case{ID: id, Vul: cat == "vulnerable", VEX: score.VEXCategory(cat)})
	}
	suitePath := filepath.Join(dir, "vex.jsonl")
	write(t, suitePath, strings.Join(lines, "\n")+"\n")
	st, err := store.Open(context.Background(), filepath.Join(dir, "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t.Setenv("ANTHROPIC_API_KEY", "k")
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("GEMINI_API_KEY", "k")
	ran := map[string]spend{}
	for _, tc := range []struct{ name, model string }{
		{"claude-code", "anthropic:claude-sonnet-4-5"}, {"codex", "openai:gpt-5.4-mini"}, {"opencode", "openai:gpt-4.1"},
		{"gemini-cli", "gemini:gemini-2.5-flash"}, {"qwen-code", "openai:gpt-4.1"}, {"pi", "anthropic:claude-sonnet-4-5"},
		{"cline", "openai:gpt-4.1"}, {"kilo", "openai:gpt-4.1"}, {"vex-agent", "openai:gpt-4.1"},
	} {
		if tc.name != "vex-agent" {
			if _, err := harness.CLIs()[tc.name].Locate(""); errors.Is(err, harness.ErrNotInstalled) {
				t.Logf("%s: %v", tc.name, err)
				continue
			}
		}
		var srv *llmtest.Server
		switch {
		case strings.HasPrefix(tc.model, "anthropic:"):
			srv = llmtest.NewAnthropic(compareScript(tc.name))
		case strings.HasPrefix(tc.model, "gemini:"):
			srv = llmtest.NewGemini(compareScript(tc.name))
		default:
			srv = llmtest.NewOpenAI(compareScript(tc.name))
		}
		fac := vexagent.Kind().Factory()
		if tc.name != "vex-agent" {
			fac = kindOf(t, tc.name)
		}
		cfg, err := fac.Configure("", subject.TextValues{"model": tc.model, "base-url": srv.BaseURL(), "prompt": "vanilla", "max-retries": "0", "max-steps": "0", "tool-protocol": "native"})
		if err != nil {
			t.Fatal(err)
		}
		if err := execute(context.Background(), st, runner.Spec{Version: "test", RunID: tc.name, Suite: suitePath, Subject: runner.Subject{Factory: fac, Spec: tc.name, Config: cfg},
			Repeats: 1, Timeout: 5 * time.Minute, Host: runner.Host{Deps: subject.Deps{Cache: st, Getenv: os.Getenv, Sandbox: sb}, Concurrency: 2,
				Repos: repos, SnapshotCache: filepath.Join(dir, "snapshots")}}); err != nil {
			t.Fatal(err)
		}
		srv.Close()
		vs := map[string]verdict.Verdict{}
		var tokens int64
		var cost float64
		st.Verdicts(context.Background(), tc.name, func(v verdict.Verdict) error {
			vs[v.CaseID] = v
			tokens += v.Usage.InputTokens + v.Usage.OutputTokens
			if v.Usage.CostUSD != nil {
				cost += *v.Usage.CostUSD
			}
			if v.Status != verdict.OK {
				t.Errorf("%s %s: %s %s", tc.name, v.CaseID, v.Status, v.Reason)
			}
			return nil
		})
		res := score.Compute(cases, score.Answers(cases, vs), score.Options{})
		if res.VEX == nil {
			t.Fatalf("%s: no VEX figures", tc.name)
		}
		want := handScore(compareTruth, compareAnswers[tc.name])
		if d := fmt.Sprintf("%.4f %.4f", res.VEX.StatusF1, res.VEX.JustificationMacroF1); d != want {
			t.Errorf("%s: status F1, justification macro-F1 = %s, want %s (by hand)", tc.name, d, want)
		}
		ran[tc.name] = spend{tokens: float64(tokens) / float64(len(cases)), cost: cost / float64(len(cases)), completion: res.VEX.CompletionRate}
	}
	checkBoard(t, st, ran)
}

// spend is a subject's tokens and cost per case and completion rate, from its stored verdicts.
type spend struct{ tokens, cost, completion float64 }

// checkBoard: `vulnbench board` of the store has one row per subject run with VEX-Bench's
// figures as computed by hand, the completion rate and no stopped unit, and the tokens and cost
// per case the verdicts hold.
func checkBoard(t *testing.T, st *store.Store, ran map[string]spend) {
	t.Helper()
	b, err := board.Build(context.Background(), st, board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Tables) != 1 || len(b.Tables[0].Rows) != len(ran) {
		t.Fatalf("board: %d tables, want one with a row per subject run (%d)", len(b.Tables), len(ran))
	}
	tab := b.Tables[0]
	cell := func(r board.Row, key string) board.Cell {
		i := slices.IndexFunc(tab.Columns, func(c board.Column) bool { return c.Key == key })
		if i < 0 {
			t.Fatalf("the VEX board has no %s column", key)
		}
		return r.Cells[i]
	}
	for _, r := range tab.Rows {
		sp, ok := ran[r.Run]
		if !ok {
			t.Errorf("board row of run %q, which the test did not make", r.Run)
			continue
		}
		if cli, ok := harness.CLIs()[r.Run]; ok && (r.Harness != cli.Name+" "+cli.Version || r.Effort != "default") {
			t.Errorf("%s: harness %q, effort %q; want %q and default", r.Run, r.Harness, r.Effort, cli.Name+" "+cli.Version)
		}
		got := fmt.Sprintf("%.4f %.4f", cell(r, "status_f1").Mean, cell(r, "justification_macro_f1").Mean)
		if want := handScore(compareTruth, compareAnswers[r.Run]); got != want {
			t.Errorf("%s: the board's status F1, justification macro-F1 = %s, want %s (by hand)", r.Run, got, want)
		}
		if c := cell(r, "completion_rate"); !c.OK || math.Abs(c.Mean-sp.completion) > 1e-9 {
			t.Errorf("%s: completion rate %+v, want %v", r.Run, c, sp.completion)
		}
		if c := cell(r, "stopped"); !c.OK || c.Mean != 0 {
			t.Errorf("%s: stopped %+v, want 0", r.Run, c)
		}
		if c := cell(r, "tokens_per_case"); !c.OK || math.Abs(c.Mean-sp.tokens) > 1e-6 {
			t.Errorf("%s: tokens per case %+v, want %v", r.Run, c, sp.tokens)
		}
		if c := cell(r, "cost_per_case"); !c.OK || math.Abs(c.Mean-sp.cost) > 1e-9 {
			t.Errorf("%s: cost per case %+v, want %v", r.Run, c, sp.cost)
		}
	}
	var text strings.Builder
	if err := b.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", text.String())
}

// handScore is VEX-Bench's two figures computed directly: status F1 with affected (vulnerable)
// positive; the macro-F1 over the categories present in the truth.
func handScore(truth, answers []string) string {
	tp, fp, fn := 0, 0, 0
	for i := range truth {
		a, g := answers[i] == "vulnerable", truth[i] == "vulnerable"
		switch {
		case a && g:
			tp++
		case a:
			fp++
		case g:
			fn++
		}
	}
	statusF1 := 2 * float64(tp) / float64(2*tp+fp+fn)
	present := map[string]bool{}
	for _, c := range truth {
		present[c] = true
	}
	macro := 0.0
	for c := range present {
		ctp, cfp, cfn := 0, 0, 0
		for i := range truth {
			switch {
			case answers[i] == c && truth[i] == c:
				ctp++
			case answers[i] == c:
				cfp++
			case truth[i] == c:
				cfn++
			}
		}
		if ctp > 0 {
			macro += 2 * float64(ctp) / float64(2*ctp+cfp+cfn)
		}
	}
	return fmt.Sprintf("%.4f %.4f", statusF1, macro/float64(len(present)))
}
