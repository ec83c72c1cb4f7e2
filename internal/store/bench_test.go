package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// BenchmarkLabels reads the scoring fields of 100,000 stored verdicts (SQLite), what `score`
// does for a big run: a million of them must score in under 10 s. cpu-ns/op (user and system
// time of the process) varies much less than ns/op on a loaded machine.
func BenchmarkLabels(b *testing.B) {
	ctx := context.Background()
	st := benchRun(b, filepath.Join(b.TempDir(), "b.db"))
	const n = 100_000
	batch := make([]store.Attempt, 0, 1000)
	for i := 0; i < n; i++ {
		batch = append(batch, store.Attempt{Verdict: verdict.Verdict{CaseID: fmt.Sprintf("case-%07d", i), Status: verdict.OK, Label: suite.Vul,
			Score: verdict.Float(0.5), CWE: []string{"CWE-787"}, Explanation: "because", Usage: verdict.Usage{InputTokens: 100, ToolCalls: 2}}})
		if len(batch) == cap(batch) {
			if err := st.PutAttempts(ctx, "r", batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	cpu0 := cpuTime()
	b.ResetTimer()
	ops := 0
	for b.Loop() {
		ops++
		got := 0
		if err := st.Labels(ctx, "r", func(verdict.Verdict) error { got++; return nil }); err != nil {
			b.Fatal(err)
		}
		if got != n {
			b.Fatalf("read %d verdicts, want %d", got, n)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(ops), "cpu-ns/op")
}

// benchRun opens the store at dsn, closed when b ends, with an empty run "r".
func benchRun(b *testing.B, dsn string) *store.Store {
	b.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if err := st.CreateRun(context.Background(), &store.Run{ID: "r", CreatedAt: time.Now(), State: store.StateRunning, Manifest: json.RawMessage(`{}`)}); err != nil {
		b.Fatal(err)
	}
	return st
}

// cpuTime returns the CPU time (user and system) the process has used, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkPutCases stores a suite's cases 1,000 at a time, as a run streams its suite in.
func BenchmarkPutCases(b *testing.B) {
	store.ForEachBackendB(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		st := benchRun(b, dsn)
		first := 0
		for b.Loop() {
			cases := make([]suite.Case, 1000)
			for i := range cases {
				cases[i] = suite.Case{ID: fmt.Sprintf("c%08d", first+i), Kind: suite.KindFunction, Label: suite.Vul, Pair: "p", Language: "c",
					CWE: []string{"CWE-787"}, Code: "int f(char *s) { char b[8]; strcpy(b, s); return 0; }"}
			}
			if err := st.PutCases(ctx, "r", first, cases); err != nil {
				b.Fatal(err)
			}
			first += len(cases)
		}
	})
}

// BenchmarkPutAttempts stores batches of 10 attempts with 6 trace events each.
func BenchmarkPutAttempts(b *testing.B) {
	store.ForEachBackendB(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		st := benchRun(b, dsn)
		k := 0
		for b.Loop() {
			batch := make([]store.Attempt, 10)
			for i := range batch {
				k++
				batch[i].Verdict = verdict.Verdict{CaseID: fmt.Sprintf("c%08d", k), Status: verdict.OK, Label: suite.Vul, CWE: []string{"CWE-787"},
					Explanation: "because", Usage: verdict.Usage{CostUSD: verdict.Float(0.01)}}
				for j := 0; j < 6; j++ {
					batch[i].Events = append(batch[i].Events, trace.Event{Seq: j, Time: time.Now(), Kind: trace.ModelResponse, Content: "some text"})
				}
			}
			if err := st.PutAttempts(ctx, "r", batch); err != nil {
				b.Fatal(err)
			}
		}
	})
}
