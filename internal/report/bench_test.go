package report_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// genCases is a CaseStore of n cases made as they are read, each with its own strings as a
// store's decoding gives them: pairs, 200 projects, 40 CWEs.
type genCases int

func (n genCases) Cases(_ context.Context, _ string, fn func(*suite.Case) error) error {
	for i := range int(n) {
		c := &suite.Case{ID: fmt.Sprintf("syn-%07d", i), Kind: suite.KindFunction, Label: suite.Label(fmt.Sprint(suite.Vul)),
			Pair: fmt.Sprintf("p%07d", i/2), Project: fmt.Sprintf("proj%03d", i/2%200), Language: fmt.Sprint("c"),
			CWE: []string{fmt.Sprintf("CWE-%d", 100+i/2%40)}, Code: fmt.Sprintf("int f%d(void) { return 0; }\n", i)}
		if i%2 == 1 {
			c.Label = suite.Label(fmt.Sprint(suite.Ben))
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

func (n genCases) CaseCount(context.Context, string) (int, error) { return int(n), nil }

// BenchmarkTruth1M reads the ground truth of 1,000,000 stored cases; MB-held is the heap the
// truth keeps once read (what a report of a 1M run holds before any answer), lookups/s how fast
// Find answers.
func BenchmarkTruth1M(b *testing.B) {
	const n = 1_000_000
	var held float64
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		t, err := report.StoredTruth(context.Background(), genCases(n), &store.Run{ID: "r"}, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		held = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
		for i := 0; i < n; i += 97 {
			if _, ok, _ := t.Find(fmt.Sprintf("syn-%07d", i)); !ok {
				b.Fatalf("case %d not found", i)
			}
		}
		runtime.KeepAlive(t)
	}
	b.ReportMetric(held, "MB-held")
}
