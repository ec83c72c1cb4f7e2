package agentcli_test

import (
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/subject/agentcli"
	"github.com/vulnbench/vulnbench/internal/subject/modelkit"
)

// TestSettingsEffort: --effort reaches the manifest's typed settings (the board's effort
// column): the level for a model subject, the level or "default" (the CLI's own) for an agent
// CLI; a CLI without the setting refuses a level.
func TestSettingsEffort(t *testing.T) {
	for _, tc := range []struct {
		effort llm.Effort
		model  string
		cli    string
		want   string
	}{
		{"", "openai:gpt-4.1", "", ""},
		{llm.EffortHigh, "openai:gpt-4.1", "", "high"},
		{"", "openai:gpt-4.1", "codex", "default"},
		{llm.EffortXHigh, "openai:gpt-5.4-mini", "codex", "xhigh"},
		{llm.EffortLow, "gemini:gemini-2.5-flash", "gemini-cli", "low"},
	} {
		c := modelkit.Config{Model: tc.model, Prompt: "vanilla", Effort: tc.effort}
		got := c.Settings().Effort
		if tc.cli != "" {
			for _, k := range agentcli.Kinds() {
				if k.Name == tc.cli {
					got = k.Settings(agentcli.Config{Config: c, CLI: tc.cli}).Effort
				}
			}
		}
		if got != tc.want {
			t.Errorf("%s %s --effort %q: settings' effort %q, want %q", tc.cli, tc.model, tc.effort, got, tc.want)
		}
	}
	if err := (modelkit.Config{Model: "openai:m", Prompt: "vanilla", Effort: "huge"}).Validate(); err == nil {
		t.Error("--effort huge was taken")
	}
}

// TestSettingsHarnessTranslated: any model stands behind any CLI; the manifest's harness (the
// board's column) says when the gateway translates, and a CLI on its own provider says nothing.
func TestSettingsHarnessTranslated(t *testing.T) {
	for _, tc := range []struct{ cli, model, want string }{
		{"gemini-cli", "anthropic:claude-sonnet-4-5", "gemini-cli 0.61.0 (translated: gemini→anthropic)"},
		{"claude-code", "openai:gpt-4.1", "claude-code 2.1.328 (translated: anthropic→openai-chat)"},
		{"codex", "gemini:gemini-2.5-flash", "codex 0.169.0 (translated: openai-responses→gemini)"},
		{"opencode", "gemini:gemini-2.5-flash", "opencode 1.18.33 (translated: openai-chat→gemini)"},
		{"claude-code", "anthropic:claude-sonnet-4-5", "claude-code 2.1.328"},
		{"pi", "gemini:gemini-2.5-flash", "pi 0.73.1"},
	} {
		for _, k := range agentcli.Kinds() {
			if k.Name != tc.cli {
				continue
			}
			c := agentcli.Config{Config: modelkit.Config{Model: tc.model, Prompt: "vanilla"}, CLI: tc.cli}
			if err := c.Validate(); err != nil {
				t.Errorf("%s on %s: %v", tc.cli, tc.model, err)
			}
			if got := k.Settings(c).Harness; got != tc.want {
				t.Errorf("%s on %s: harness %q, want %q", tc.cli, tc.model, got, tc.want)
			}
		}
	}
}

// TestEffortNotCarriedToAnthropic: a level the translation cannot carry to an Anthropic model
// is refused with why and what to do, never run silently without it; with the CLI's own
// provider, or another, it is taken.
func TestEffortNotCarriedToAnthropic(t *testing.T) {
	for _, tc := range []struct {
		cli, model string
		refused    bool
	}{
		{"gemini-cli", "anthropic:claude-sonnet-4-5", true},
		{"codex", "anthropic:claude-sonnet-4-5", true},
		{"claude-code", "anthropic:claude-sonnet-4-5", false},
		{"gemini-cli", "openai:gpt-5.4-mini", false},
	} {
		c := agentcli.Config{Config: modelkit.Config{Model: tc.model, Prompt: "vanilla", Effort: llm.EffortHigh}, CLI: tc.cli}
		err := c.Validate()
		if refused := err != nil && strings.Contains(err.Error(), "leave --effort out"); refused != tc.refused {
			t.Errorf("%s on %s --effort high: %v; want refused %v", tc.cli, tc.model, err, tc.refused)
		}
	}
}
