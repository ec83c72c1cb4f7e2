package modelkit

import (
	"math"
	"testing"

	"github.com/vulnbench/vulnbench/internal/llm"
)

func TestVulnerableProbability(t *testing.T) {
	ln := math.Log
	tok := func(s string, p float64, top ...llm.TokenLogprob) llm.TokenLogprob {
		return llm.TokenLogprob{Token: s, Logprob: ln(p), Top: top}
	}
	answer := func(value llm.TokenLogprob) []llm.TokenLogprob {
		return []llm.TokenLogprob{tok("{\"", 1), tok("vulnerable", 1), tok("\":", 1), value, tok(",", 1), tok(" \"cwe\": \"CWE-787\"}", 1)}
	}
	tests := []struct {
		name string
		lps  []llm.TokenLogprob
		want float64 // -1: nil
	}{
		// Both values among the alternatives: normalised, 0.6 / (0.6 + 0.3).
		{"true with false as alternative", answer(tok(" true", 0.6, tok(" true", 0.6), tok(" false", 0.3))), 0.6 / 0.9},
		{"false with true as alternative", answer(tok(" false", 0.7, tok(" false", 0.7), tok(" true", 0.2))), 0.2 / 0.9},
		// Alone: p for true, 1-p for false.
		{"true alone", answer(tok("true", 0.8)), 0.8},
		{"false alone", answer(tok("false", 0.9)), 1 - 0.9},
		// The last answer object counts: a "true" in the prose before it is not the answer.
		{"decoy before the answer", append([]llm.TokenLogprob{tok("It is true that", 0.5)}, answer(tok("false", 0.95))...), 1 - 0.95},
		{"no answer token", []llm.TokenLogprob{tok("maybe", 1)}, -1},
		{"no logprobs", nil, -1},
	}
	for _, tt := range tests {
		got := VulnerableProbability(tt.lps)
		switch {
		case tt.want < 0 && got != nil:
			t.Errorf("%s: got %v, want nil", tt.name, *got)
		case tt.want >= 0 && (got == nil || math.Abs(*got-tt.want) > 1e-9):
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
