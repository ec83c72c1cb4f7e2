package web_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/cli"
)

// runReport runs vulnbench report --html dir over the fixture's three runs and returns the
// page's path.
func runReport(t *testing.T, f *fixture, dir string) string {
	t.Helper()
	var out, errb bytes.Buffer
	args := []string{"report", "--db", f.db, "--run", f.random, "--run", f.vul, "--run", f.agent, "--html", dir, "--resamples", "300"}
	if code := cli.Run(context.Background(), args, nil, &out, &errb); code != 0 {
		t.Fatalf("vulnbench %v: exit %d\n%s\n%s", args, code, out.String(), errb.String())
	}
	path := strings.TrimSpace(out.String())
	if path != filepath.Join(dir, "index.html") {
		t.Fatalf("report printed %q, want the page's path", path)
	}
	return path
}

// The same store gives the same report, byte for byte.
func TestReportIsByteIdentical(t *testing.T) {
	f := newFixture(t)
	var pages [][]byte
	for _, d := range []string{"a", "b"} {
		b, err := os.ReadFile(runReport(t, f, filepath.Join(f.dir, d)))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, b)
	}
	if !bytes.Equal(pages[0], pages[1]) {
		t.Errorf("two reports of one store differ (%d and %d bytes)", len(pages[0]), len(pages[1]))
	}
	page := string(pages[0])
	for _, w := range []string{"ROC agent", "ROC base-vul (degenerate)", "Tool calls by label", "Cost per case against F1", "F1 and pAcc by CWE", "<th>F1 agent</th>"} {
		if !strings.Contains(page, w) {
			t.Errorf("the report lacks %q", w)
		}
	}
}
