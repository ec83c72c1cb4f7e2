package agentcli_test

import (
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
