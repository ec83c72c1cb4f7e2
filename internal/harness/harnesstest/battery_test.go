package harnesstest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/harness/harnesstest"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

func TestMain(m *testing.M) {
	// The sandboxes' helper is this test binary.
	if code, ok := sandbox.ForwardMain(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// TestBattery runs the hostile-agent battery against every harness with its real CLI
// (BATTERY_ONLY=look,disk,... keeps some units).
func TestBattery(t *testing.T) {
	if testing.Short() {
		t.Skip("the real CLIs take minutes")
	}
	var opts harnesstest.Options
	if only := os.Getenv("BATTERY_ONLY"); only != "" {
		opts.Only = strings.Split(only, ",")
	}
	for _, row := range harnesstest.Rows() {
		t.Run(row.Subject, func(t *testing.T) { harnesstest.Battery(t, row, opts) })
	}
}

// TestBatteryCanFail: with the one reader switched off (built with -tags vulnbench_unguarded:
// read-back follows links, as vulnbench once did), the battery fails on Codex's answer file
// linked to a root-only file and to /proc/self/environ: the secrets reach the store.
func TestBatteryCanFail(t *testing.T) {
	if testing.Short() || os.Getenv("BATTERY_ONLY") != "" {
		t.Skip("runs the battery again, built without the reader")
	}
	cmd := exec.Command("go", "test", "-tags", "vulnbench_unguarded", "-count=1", "-run", "^TestBattery$/^codex$", ".")
	cmd.Env = append(os.Environ(), "BATTERY_ONLY=plant-secret,plant-environ")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the battery passed with the reader switched off:\n%s", out)
	}
	for _, want := range []string{`holds "ROOT-ONLY-`, `holds "PATH=`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the battery without the reader did not report %s:\n%.6000s", want, out)
		}
	}
}
