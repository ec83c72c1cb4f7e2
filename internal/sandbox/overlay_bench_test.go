package sandbox

import (
	"os/exec"
	"slices"
	"testing"
	"time"
)

// BenchmarkOverlay measures what the overlays add to a unit's start: `true` started as
// bubblewrap is over a unit's two read-only binds (the project and a CLI's npm prefix: the
// overlays built, a thread's private mount namespace made, the overlays attached, the program
// started and waited for, the thread released) against a plain start of `true`, back to back
// in each iteration (the same load for each); the metrics are the medians.
func BenchmarkOverlay(b *testing.B) {
	if !canOverlay() {
		b.Skip("overlays need CAP_SYS_ADMIN")
	}
	project, prefix := b.TempDir(), b.TempDir()
	var plain, overlaid, diff []float64
	for b.Loop() {
		t0 := time.Now()
		if err := exec.Command("true").Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		st := newStager(slices.Clone(systemDirs))
		st.show(project)
		st.show(prefix)
		if len(st.order) != 2 {
			b.Fatalf("%d overlays built, want 2", len(st.order))
		}
		cmd := exec.Command("true")
		if err := st.start(cmd.Start); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		st.release()
		t2 := time.Now()
		plain, overlaid = append(plain, float64(t1.Sub(t0).Microseconds())), append(overlaid, float64(t2.Sub(t1).Microseconds()))
		diff = append(diff, float64(t2.Sub(t1)-t1.Sub(t0))/1e3)
	}
	b.ReportMetric(Median(plain), "exec-µs")
	b.ReportMetric(Median(overlaid), "overlaid-µs")
	b.ReportMetric(Median(diff), "overhead-µs")
}

// Median is the median of xs: the benchmarks' metrics, in this package and in sandbox_test.
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
