package harnesstest_test

import (
	"os"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/harness/harnesstest"
)

// TestBattery runs the hostile-agent battery against every harness with its real CLI, through
// the real vulnbench binary (BATTERY_ONLY=look,disk,... keeps some units).
func TestBattery(t *testing.T) {
	if testing.Short() {
		t.Skip("the real CLIs take minutes")
	}
	opts := harnesstest.Options{Binary: harnesstest.Build(t, t.TempDir())}
	if only := os.Getenv("BATTERY_ONLY"); only != "" {
		opts.Only = strings.Split(only, ",")
	}
	for _, row := range harnesstest.Rows() {
		t.Run(row.Subject, func(t *testing.T) { harnesstest.Battery(t, row, opts) })
	}
}

// TestBatteryCanFail: with the one reader switched off (vulnbench built with -tags
// vulnbench_unguarded: read-back follows links, as vulnbench once did), the battery finds Codex's
// answer file linked to a root-only file and to /proc/self/environ: the file's secret and
// vulnbench's own environment reach the store, an export and the viewer.
func TestBatteryCanFail(t *testing.T) {
	if testing.Short() {
		t.Skip("the real CLIs take minutes")
	}
	row := harnesstest.Rows()[1]
	if row.Subject != "codex" {
		t.Fatalf("row 1 is %s, want codex (the harness that reads a file back)", row.Subject)
	}
	bin := harnesstest.Build(t, t.TempDir(), "vulnbench_unguarded")
	found := strings.Join(harnesstest.Run(t, row, harnesstest.Options{Binary: bin, Only: []string{"plant-secret", "plant-environ"}}), "\n")
	for _, want := range []string{`the store's file vulnbench.db holds "ROOT-ONLY-`, `the jsonl export holds "ROOT-ONLY-`, `the viewer holds "ROOT-ONLY-`, `holds "ENV-`} {
		if !strings.Contains(found, want) {
			t.Errorf("the battery without the reader did not find %s; it found:\n%.6000s", want, found)
		}
	}
}
