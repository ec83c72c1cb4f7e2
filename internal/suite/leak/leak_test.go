package leak

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/vulnbench/vulnbench/internal/suite"
)

func long(seed, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "x%d_%d = y%d + %d;\n", seed, i, i, i*seed)
	}
	return b.String()
}

func write(t *testing.T, dir, name string, codes map[string]string) string {
	t.Helper()
	var b strings.Builder
	for _, id := range []string{"a1", "a2", "b1", "b2", "b3", "b4"} {
		code, ok := codes[id]
		if !ok {
			continue
		}
		line, _ := json.Marshal(suite.Case{ID: id, Kind: suite.KindFunction, Label: suite.Ben, Code: code})
		b.Write(append(line, '\n'))
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	base := long(1, 100) // 100 statements of 6 tokens: 596 shingles of 5 tokens
	a := write(t, dir, "a.jsonl", map[string]string{"a1": base, "a2": long(2, 100)})
	// b2 changes one token in the middle: 5 shingles change, J = 591/601.
	near := strings.Replace(base, "x1_50 ", "z ", 1)
	// b3 changes 30 statements: far below 0.9.
	far := long(3, 30) + base[strings.Index(base, "x1_30 "):]
	b := write(t, dir, "b.jsonl", map[string]string{
		"b1": strings.ReplaceAll(base, "\n", "\n\t  "), // a reformatted exact copy
		"b2": near, "b3": far, "b4": "int main(void) { return 0; }",
	})
	res, err := Find(context.Background(), a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := &Result{CasesA: 2, CasesB: 4, ExactB: 1, NearB: 2, ExactRate: 0.25, NearRate: 0.5, Threshold: 0.9, Shingle: 5,
		Matches: []Match{{A: "a1", B: "b1", Jaccard: 1, Exact: true}, {A: "a1", B: "b2", Jaccard: 591.0 / 601}}}
	if diff := cmp.Diff(want, res, cmpopts.IgnoreFields(Result{}, "Candidates"), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Find (-want +got):\n%s", diff)
	}
}

func TestJaccard(t *testing.T) {
	if got := jaccard([]uint64{1, 2, 3, 4}, []uint64{2, 3, 4, 5, 6}); got != 3.0/6 {
		t.Errorf("jaccard = %v, want 0.5", got)
	}
}
