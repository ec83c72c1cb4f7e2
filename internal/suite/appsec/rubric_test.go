package appsec

import "testing"

func TestRubricWeights(t *testing.T) {
	r := DefaultRubric()
	if r.Total() != 100 || r.PassThreshold != 70 {
		t.Fatalf("total %v pass %v, want 100 and 70", r.Total(), r.PassThreshold)
	}
}
