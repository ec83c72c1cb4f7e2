package board_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/board"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject/builtin"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// settingsOf are the settings a run of spec records with the flags given (the others at their
// defaults), as the runner records them: the kind's declaration over its recorded config.
func settingsOf(t *testing.T, spec string, flags map[string]string) manifest.Settings {
	t.Helper()
	f, arg, err := builtin.Registry().Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	vals := values{}
	for _, fl := range f.Flags {
		vals[fl.Name] = fmt.Sprint(fl.Default)
	}
	for k, v := range flags {
		vals[k] = v
	}
	cfg, err := f.Configure(arg, vals)
	if err != nil {
		t.Fatal(err)
	}
	return f.SettingsOf(f.Recorded(cfg))
}

type values map[string]string

func (v values) String(n string) string { return v[n] }
func (v values) Int(n string) int       { var i int; fmt.Sscan(v[n], &i); return i }
func (v values) Int64(n string) int64   { var i int64; fmt.Sscan(v[n], &i); return i }
func (v values) Float(n string) float64 { var f float64; fmt.Sscan(v[n], &f); return f }
func (v values) Bool(n string) bool     { return v[n] == "true" }
func (v values) Duration(n string) time.Duration {
	d, _ := time.ParseDuration(v[n])
	return d
}

// Issue 31: the board's harness column read a flag no kind declares, so it was always empty, and
// its prompt column said "vanilla" for agent-CLI runs on VEX-Bench, where no prompting strategy
// applies. The board reads the typed settings the kinds declare: the agent CLI and its pinned
// version as the harness, its effort, and the prompt only where a strategy applies.
func TestBoardHarnessEffortPrompt(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	vexCases := []suite.Case{{ID: "v1", Kind: suite.KindVEX, Label: suite.Vul, CVE: "CVE-2024-1", VEX: &suite.VEX{Category: "vulnerable", Ecosystem: "Go"}},
		{ID: "v2", Kind: suite.KindVEX, Label: suite.Ben, CVE: "CVE-2024-2", VEX: &suite.VEX{Category: "code_not_present", Ecosystem: "Go"}}}
	fnCases := []suite.Case{{ID: "f1", Kind: suite.KindFunction, Label: suite.Vul, Pair: "p", Code: "x"},
		{ID: "f2", Kind: suite.KindFunction, Label: suite.Ben, Pair: "p", Code: "y"}}
	add := func(id, spec, hash string, cases []suite.Case, set manifest.Settings) {
		m, err := json.Marshal(manifest.Manifest{Suite: manifest.Suite{Path: hash + ".jsonl", Hash: hash, Cases: len(cases)}, Subject: spec,
			Recorded: &set, Repeats: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.CreateRun(ctx, &store.Run{ID: id, CreatedAt: time.Now(), State: store.StateDone, SuitePath: hash + ".jsonl", SuiteHash: hash,
			Subject: spec, Repeats: 1, Units: len(cases), Manifest: m, Queue: store.QueueLocal}); err != nil {
			t.Fatal(err)
		}
		if err := st.PutCases(ctx, id, 0, cases); err != nil {
			t.Fatal(err)
		}
		var as []store.Attempt
		for _, c := range cases {
			v := verdict.Verdict{CaseID: c.ID, Status: verdict.OK, Label: c.Label}
			if c.VEX != nil {
				v.VEX = &verdict.VEX{Category: c.VEX.Category}
			}
			as = append(as, store.Attempt{Verdict: v, Started: time.Now(), Finished: time.Now()})
		}
		if err := st.PutAttempts(ctx, id, as); err != nil {
			t.Fatal(err)
		}
	}
	vexHash, fnHash := strings.Repeat("a", 64), strings.Repeat("b", 64)
	add("cc", "claude-code", vexHash, vexCases, settingsOf(t, "claude-code", map[string]string{"model": "anthropic:claude-sonnet-4-5"}))
	add("va", "vex-agent", vexHash, vexCases, settingsOf(t, "vex-agent", map[string]string{"model": "openai:gpt-5.4-mini", "prompt": "cot"}))
	add("cx", "codex", fnHash, fnCases, settingsOf(t, "codex", map[string]string{"model": "openai:gpt-5.4-mini", "prompt": "cot"}))
	add("ll", "llm", fnHash, fnCases, settingsOf(t, "llm", map[string]string{"model": "openai:gpt-5.4-mini", "prompt": "fs"}))
	b, err := board.Build(ctx, st, board.Options{Sort: "run"})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ Run, Model, Prompt, Harness, Effort string }
	var got []row
	for _, tb := range b.Tables {
		for _, r := range tb.Rows {
			got = append(got, row{r.Run, r.Model, r.Prompt, r.Harness, r.Effort})
		}
	}
	want := []row{
		{"cc", "anthropic:claude-sonnet-4-5", "", "claude-code 2.1.328", "default"},
		{"va", "openai:gpt-5.4-mini", "", "", ""},
		{"cx", "openai:gpt-5.4-mini", "cot", "codex 0.169.0", "default"},
		{"ll", "openai:gpt-5.4-mini", "fs", "", ""},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	var text bytes.Buffer
	if err := b.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"cc   claude-code  anthropic:claude-sonnet-4-5  -       claude-code 2.1.328  default  1",
		"va   vex-agent    openai:gpt-5.4-mini          -       -                    -        1"} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("text board lacks %q:\n%s", line, text.String())
		}
	}
}
