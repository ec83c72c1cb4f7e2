package llm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBatchPrices: the embedded table charges half on batch APIs; a file's batch: replaces the
// table's, a row's replaces both; an unpriced model has no batch price; a factor out of (0, 1]
// is refused with the file and line.
func TestBatchPrices(t *testing.T) {
	p, err := LoadPrices("")
	if err != nil {
		t.Fatal(err)
	}
	u := Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}
	full, ok1 := p.Cost("openai:gpt-4o-mini", u)
	half, ok2 := p.BatchCost("openai:gpt-4o-mini", u)
	if !ok1 || !ok2 || full <= 0 || half != full*0.5 {
		t.Errorf("gpt-4o-mini: cost %v (%v), batch %v (%v): want batch at half", full, ok1, half, ok2)
	}
	if at, _ := p.AtBatch().Cost("openai:gpt-4o-mini", u); at != half {
		t.Errorf("the table at batch prices charges %v, want %v", at, half)
	}
	if b, _ := p.AtBatch().BatchCost("openai:gpt-4o-mini", u); b != half {
		t.Errorf("BatchCost of the table at batch prices is %v, want %v (not halved twice)", b, half)
	}
	if _, ok := p.BatchCost("openai:no-such-local-model", u); ok {
		t.Error("an unpriced model got a batch price")
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "p.yaml")
	os.WriteFile(f, []byte("batch: 0.6\nopenai:a: {input: 1, output: 1}\nopenai:b: {input: 1, output: 1, batch: 0.25}\n"), 0o644)
	p, err = LoadPrices(f)
	if err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]float64{"openai:a": 0.6, "openai:b": 0.25, "openai:gpt-4o": 0.6} {
		if got, ok := p.BatchFactor(spec); !ok || got != want {
			t.Errorf("%s: batch factor %v (%v), want %v", spec, got, ok, want)
		}
	}
	for _, bad := range []string{"batch: 2\n", "batch: -1\n", "openai:a: {input: 1, output: 1, batch: 0}\n"} {
		os.WriteFile(f, []byte("date: 2026-06\n"+bad), 0o644)
		if _, err := LoadPrices(f); err == nil || !strings.Contains(err.Error(), f+":2") {
			t.Errorf("%q: error %v, want one naming %s:2", bad, err, f)
		}
	}
}
