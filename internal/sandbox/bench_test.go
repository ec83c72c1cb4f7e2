package sandbox_test

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// BenchmarkUnit measures a sandbox's start and teardown per unit: `true` run in a bubblewrap
// sandbox the way a unit's process runs (project bound read-only, its writable space, the
// seccomp filter, the process and memory cgroups where writable; in the "agent" case as an agent
// CLI runs, with the helper (vulnbench-forward, built first) serving the gateway and holding the
// sandbox open to read a file back) against a plain exec of the same program. Each iteration runs the plain exec and the
// sandboxed one back to back, so both meet the same load on a shared machine; the metrics are
// the medians of each and of their difference, the sandbox's cost per unit.
func BenchmarkUnit(b *testing.B) {
	forwarder := filepath.Join(b.TempDir(), "vulnbench-forward")
	if out, err := exec.Command("go", "build", "-o", forwarder, "../../cmd/vulnbench-forward").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	sb, err := sandbox.New(context.Background(), sandbox.Options{Forwarder: forwarder})
	if err != nil {
		b.Skipf("bubblewrap cannot run here: %v", err)
	}
	project := b.TempDir()
	for _, tc := range []struct {
		name    string
		gateway bool
	}{{"plain", false}, {"agent", true}} {
		b.Run(tc.name, func(b *testing.B) {
			spec := sandbox.Spec{Project: project, Args: []string{"true"}, Env: []string{"HOME=/home/sandbox"}}
			if tc.gateway {
				spec.Gateway, spec.Out, spec.Collect = gatewaySocket(b), true, []string{"{out}/answer.txt"}
			}
			var plain, boxed, diff []float64
			for b.Loop() {
				t0 := time.Now()
				if err := exec.Command("true").Run(); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				res, err := sb.Run(context.Background(), spec)
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("%v, exit %d: %s", err, res.ExitCode, res.Stderr)
				}
				t2 := time.Now()
				plain, boxed = append(plain, float64(t1.Sub(t0).Microseconds())), append(boxed, float64(t2.Sub(t1).Microseconds()))
				diff = append(diff, float64(t2.Sub(t1)-t1.Sub(t0))/1e3)
			}
			b.ReportMetric(sandbox.Median(plain), "exec-µs")
			b.ReportMetric(sandbox.Median(boxed), "sandbox-µs")
			b.ReportMetric(sandbox.Median(diff), "overhead-µs")
		})
	}
}

// gatewaySocket is a Unix socket that nothing answers: the forwarder only listens for the
// program, which does not connect.
func gatewaySocket(b *testing.B) string {
	sock := b.TempDir() + "/gw.sock"
	ln, err := net.Listen("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	return sock
}
