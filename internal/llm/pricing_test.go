package llm

import (
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"testing"
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
	for _, bad := range []string{"gpt: {input: 1}\n", "openai:x: {input: -1}\n", "openai:x: [1, 2]\n"} {
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
