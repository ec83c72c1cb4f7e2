package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run with --sandbox none is stamped on its manifest and its scores say so; a bad value is a
// usage error.
func TestSandboxNoneIsPrintedUnderTheScore(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(goodSuite), 0o644)
	if code, _, stderr := run(t, dir, "run", "--suite", "s.jsonl", "--subject", "constant:vul", "--db", "v.db", "--sandbox", "nope"); code != 2 || !strings.Contains(stderr, "want bwrap or none") {
		t.Errorf("--sandbox nope: exit %d, %q", code, stderr)
	}
	code, out, stderr := run(t, dir, "run", "--suite", "s.jsonl", "--subject", "constant:vul", "--db", "v.db", "--sandbox", "none", "--run-id", "r1")
	if code != 0 || !strings.Contains(out+stderr, "ran with --sandbox none") {
		t.Errorf("run: exit %d; the score does not say --sandbox none:\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = run(t, dir, "score", "--db", "v.db", "--run", "r1")
	if code != 0 || !strings.Contains(out+stderr, "ran with --sandbox none") {
		t.Errorf("score: exit %d; no --sandbox none note:\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = run(t, dir, "run", "--suite", "s.jsonl", "--subject", "constant:vul", "--db", "v.db", "--run-id", "r2")
	if code != 0 || strings.Contains(out+stderr, "--sandbox none") {
		t.Errorf("a bwrap run: exit %d, says --sandbox none:\n%s\n%s", code, out, stderr)
	}
}
