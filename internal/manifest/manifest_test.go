package manifest_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/manifest"
)

func int64p(n int64) *int64 { return &n }

// TestRead: the settings of every manifest shape: recorded ones as they are; those of manifests
// written before they were recorded (flags, wave 1's llm block) from what they recorded.
func TestRead(t *testing.T) {
	tests := []struct {
		name, manifest string
		want           manifest.Settings
	}{
		{"recorded", `{"subject":"claude-code","settings":{"model":"anthropic:m","harness":"claude-code 2.1.328","effort":"default","prompt":"vanilla","prompt_kinds":["jit","function"]},"flags":{"model":"openai:ignored","prompt":"cot"}}`,
			manifest.Settings{Model: "anthropic:m", Harness: "claude-code 2.1.328", Effort: "default", Prompt: "vanilla", PromptKinds: []string{"jit", "function"}}},
		{"recorded, none apply", `{"subject":"flawfinder","settings":{},"flags":{"min-level":"1"}}`, manifest.Settings{}},
		{"flags", `{"subject":"llm","flags":{"model":"openai:a","prompt":"cot","rpm":"60","max-tokens":"99","cache-tag":"t","base-url":"http://h/v1","batch":"true"}}`,
			manifest.Settings{Model: "openai:a", Prompt: "cot", RPM: 60, MaxTokens: 99, CacheTag: "t", BaseURL: "http://h/v1", Batch: true}},
		{"flags of a seeded kind", `{"subject":"random","flags":{"seed":"7"}}`, manifest.Settings{Seed: int64p(7)}},
		{"wave 1", `{"subject":"llm","llm":{"model":"openai:b","prompt":"fs"},"seed":3}`, manifest.Settings{Model: "openai:b", Prompt: "fs", Seed: int64p(3)}},
		{"flags first", `{"flags":{"model":"openai:a"},"llm":{"model":"openai:b"}}`, manifest.Settings{Model: "openai:a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := manifest.Read("r", []byte(tt.manifest))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, m.Settings()); d != "" {
				t.Errorf("Settings (-want +got):\n%s", d)
			}
			if string(m.Raw) != tt.manifest {
				t.Errorf("Raw = %s", m.Raw)
			}
		})
	}
	if _, err := manifest.Read("r9", []byte(`{"subject":`)); err == nil || err.Error()[:33] != "run r9: unreadable manifest: unex" {
		t.Errorf("Read of a cut manifest: %v", err)
	}
}

// TestPromptOn: a strategy shows for the case kinds it applies to, and "" for the others.
func TestPromptOn(t *testing.T) {
	agent := manifest.Settings{Prompt: "vanilla", PromptKinds: []string{"jit", "function"}}
	llm := manifest.Settings{Prompt: "cot"}
	got := []string{agent.PromptOn("vex"), agent.PromptOn("jit"), llm.PromptOn("vex"), manifest.Settings{}.PromptOn("jit")}
	if d := cmp.Diff([]string{"", "vanilla", "cot", ""}, got); d != "" {
		t.Errorf("PromptOn (-want +got):\n%s", d)
	}
}

// TestRoundTrip: what the runner writes reads back the same, and the keys are those runs stored
// before (a change here changes stored manifests).
func TestRoundTrip(t *testing.T) {
	m := manifest.Manifest{Version: "v", Suite: manifest.Suite{Path: "s.jsonl", Hash: "h", Cases: 2}, Subject: "llm",
		Recorded: &manifest.Settings{Model: "openai:m"}, Flags: map[string]string{"model": "openai:m"}, Repeats: 1,
		Limits: &manifest.Limits{Steps: 3}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"vulnbench_version":"v","suite":{"path":"s.jsonl","sha256":"h","cases":2},"subject":"llm","settings":{"model":"openai:m"},"flags":{"model":"openai:m"},"repeats":1,"concurrency":0,"limits":{"Steps":3,"Tokens":0,"CostUSD":0,"Wall":0},"created":"0001-01-01T00:00:00Z"}`
	if string(b) != want {
		t.Errorf("manifest JSON:\n got %s\nwant %s", b, want)
	}
	back, err := manifest.Read("r", b)
	if err != nil {
		t.Fatal(err)
	}
	back.Raw = nil
	if d := cmp.Diff(&m, back); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}
