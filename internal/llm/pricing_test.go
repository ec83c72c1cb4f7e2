package llm

import (
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCost(t *testing.T) {
	p, err := LoadPrices("")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec string
		u    Usage
		want float64
		ok   bool
	}{
		// gpt-4o-mini: 0.15 in, 0.075 cached, 0.60 out per 1M.
		// 1M fresh in + 1M out = 0.15 + 0.60.
		{"openai:gpt-4o-mini", Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, 0.75, true},
		// 1000 in of which 400 cached, 100 out: (600*0.15 + 400*0.075 + 100*0.60)/1e6 = (90+30+60)/1e6.
		{"openai:gpt-4o-mini", Usage{InputTokens: 1000, CachedInputTokens: 400, OutputTokens: 100}, 180e-6, true},
		// A dated snapshot takes its family's price; the longest family wins (gpt-4o-mini, not gpt-4o).
		{"openai:gpt-4o-mini-2024-07-18", Usage{OutputTokens: 1_000_000}, 0.60, true},
		{"openai:gpt-4o-2024-08-06", Usage{OutputTokens: 1_000_000}, 10.00, true},
		// gpt-4-turbo has no cached price: cached tokens cost the input price. 2M in, 1M cached: 2*10.
		{"openai:gpt-4-turbo", Usage{InputTokens: 2_000_000, CachedInputTokens: 1_000_000}, 20.00, true},
		// 2026-05 rows. gpt-5.5: 5 in, 0.50 cached, 30 out. Reasoning tokens are inside
		// OutputTokens: 1M out of which 600k reasoning costs 30, not 48.
		{"openai:gpt-5.5", Usage{OutputTokens: 1_000_000, ReasoningTokens: 600_000}, 30.00, true},
		{"openai:gpt-5.5-2026-04-01", Usage{InputTokens: 2_000_000, CachedInputTokens: 1_000_000}, 5.50, true},
		// claude-sonnet-4-6: 3 in, 0.30 read, 3.75 write, 15 out. 1M in = 200k fresh + 300k read +
		// 500k written: 0.6 + 0.09 + 1.875.
		{"anthropic:claude-sonnet-4-6", Usage{InputTokens: 1_000_000, CachedInputTokens: 300_000, CacheWriteTokens: 500_000}, 2.565, true},
		{"anthropic:claude-haiku-4-5-20251001", Usage{OutputTokens: 1_000_000}, 5.00, true},
		// OpenAI-compatible providers, served at --base-url under openai:.
		{"openai:kimi-k2.6", Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, 3.10, true},
		{"openai:deepseek-v4-flash", Usage{InputTokens: 1_000_000, CachedInputTokens: 1_000_000}, 0.0028, true},
		{"anthropic:kimi-k2.6", Usage{InputTokens: 10}, 0, false}, // only openai: specs reach them
		// Listed for capabilities only: unpriced, never $0.
		{"openai:o3", Usage{InputTokens: 10}, 0, false},
		{"openai:my-local-model", Usage{InputTokens: 10}, 0, false},
		{"openai:gpt-4omini", Usage{InputTokens: 10}, 0, false}, // no dash: not a snapshot of gpt-4o
	}
	for _, tt := range tests {
		got, ok := p.Cost(tt.spec, tt.u)
		if ok != tt.ok || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Cost(%s, %+v) = %v, %v; want %v, %v", tt.spec, tt.u, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPriceDatesAndCapabilities(t *testing.T) {
	p, err := LoadPrices("")
	if err != nil {
		t.Fatal(err)
	}
	if p.Date != "2026-05" {
		t.Errorf("table date %q", p.Date)
	}
	dates := map[string]string{}
	for _, spec := range []string{"openai:gpt-5.5", "openai:kimi-k2.6", "anthropic:claude-opus-4-6", "openai:gpt-4o-mini", "openai:o3", "openai:nope"} {
		dates[spec] = p.DateOf(spec)
	}
	if d := cmp.Diff(map[string]string{"openai:gpt-5.5": "2026-05", "openai:kimi-k2.6": "2026-05", "anthropic:claude-opus-4-6": "2026-05",
		"openai:gpt-4o-mini": "2025", "openai:o3": "", "openai:nope": ""}, dates); d != "" {
		t.Errorf("dates (-want +got):\n%s", d)
	}
	caps := map[string]Caps{}
	for _, spec := range []string{"openai:o1", "openai:o3-mini-2025-01-31", "openai:o4-mini", "openai:gpt-5", "openai:gpt-5-mini-2025-08-07",
		"openai:gpt-5.5", "openai:gpt-5.4-mini", "openai:gpt-4o", "openai:llama3", "anthropic:claude-sonnet-4-6"} {
		caps[spec] = p.Capabilities(spec)
	}
	r, d := ReasoningCaps(), DefaultCaps()
	noLogprobs := d
	noLogprobs.Logprobs = false
	want := map[string]Caps{"openai:o1": r, "openai:o3-mini-2025-01-31": r, "openai:o4-mini": r, "openai:gpt-5": r,
		"openai:gpt-5-mini-2025-08-07": r, "openai:gpt-5.5": r, "openai:gpt-5.4-mini": r, "openai:gpt-4o": d, "openai:llama3": d,
		"anthropic:claude-sonnet-4-6": noLogprobs}
	if diff := cmp.Diff(want, caps); diff != "" {
		t.Errorf("capabilities (-want +got):\n%s", diff)
	}
}

func TestPricesOverride(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "p.yaml")
	os.WriteFile(f, []byte("openai:my-local-model: {input: 1, output: 2}\nopenai:gpt-4o-mini: {input: 9, output: 9}\n"), 0o644)
	p, err := LoadPrices(f)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := p.Cost("openai:my-local-model", Usage{InputTokens: 1e6, OutputTokens: 1e6}); !ok || c != 3 {
		t.Errorf("added model: %v %v, want 3 true", c, ok)
	}
	if c, _ := p.Cost("openai:gpt-4o-mini", Usage{InputTokens: 1e6}); c != 9 {
		t.Errorf("overridden model: %v, want 9", c)
	}
	if c, ok := p.Cost("anthropic:claude-3-5-haiku", Usage{InputTokens: 1e6}); !ok || c != 0.8 {
		t.Errorf("untouched model: %v %v, want 0.8 true", c, ok)
	}
	// Capabilities override: a local model that takes no temperature, and gpt-5.5 repriced keeps
	// its reasoning capabilities; gpt-4o declared reasoning keeps its price.
	os.WriteFile(f, []byte("date: 2026-06\n"+
		"openai:my-local: {capabilities: {temperature: false, max_tokens_param: max_completion_tokens}}\n"+
		"openai:gpt-5.5: {input: 1, output: 2}\n"+
		"openai:gpt-4o: {reasoning: true}\n"), 0o644)
	if p, err = LoadPrices(f); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{"local": p.Capabilities("openai:my-local"), "gpt-5.5": p.Capabilities("openai:gpt-5.5"),
		"gpt-4o": p.Capabilities("openai:gpt-4o"), "date": p.Date, "gpt-5.5 date": p.DateOf("openai:gpt-5.5"), "gpt-4o date": p.DateOf("openai:gpt-4o")}
	if c, _ := p.Cost("openai:gpt-4o", Usage{OutputTokens: 1e6}); c != 10 {
		t.Errorf("gpt-4o lost its price: %v", c)
	}
	want := map[string]any{"local": Caps{Logprobs: true, MaxTokensParam: "max_completion_tokens"}, "gpt-5.5": ReasoningCaps(),
		"gpt-4o": ReasoningCaps(), "date": "2026-06", "gpt-5.5 date": "2026-06", "gpt-4o date": "2025"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("override (-want +got):\n%s", d)
	}
	for _, bad := range []string{"gpt: {input: 1}\n", "openai:x: {input: -1}\n", "openai:x: [1, 2]\n", "openai:x: {input: 1}\n",
		"openai:x: {inptu: 1, output: 2}\n", "openai:x: {capabilities: {max_tokens_param: max_output}}\n", "openai:x: {api: azure}\n",
		"date: [2026]\n"} {
		os.WriteFile(f, []byte(bad), 0o644)
		if _, err := LoadPrices(f); err == nil {
			t.Errorf("prices %q accepted", bad)
		}
	}
}

func TestTransportMessageHidesTheQuery(t *testing.T) {
	err := &url.Error{Op: "Post", URL: "http://127.0.0.1:9/v1/chat/completions?token=secret", Err: io.EOF}
	if got, want := transportMessage(err), "Post http://127.0.0.1:9/v1/chat/completions: EOF"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
