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

// --sandbox-disk and --sandbox-mem take sizes; anything else is a usage error naming the flag.
func TestSandboxBoundsFlags(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(goodSuite), 0o644)
	for _, tc := range []struct {
		flag, value string
		code        int
		says        string
	}{
		{"--sandbox-disk", "lots", 2, `--sandbox-disk: "lots": want a size such as 512MiB or 2GiB, or off`},
		{"--sandbox-mem", "-3GiB", 2, `--sandbox-mem: "-3GiB"`},
		{"--sandbox-disk", "512MiB", 0, ""},
		{"--sandbox-mem", "off", 0, ""},
	} {
		code, _, stderr := run(t, dir, "run", "--suite", "s.jsonl", "--subject", "constant:vul", "--db", "v.db", tc.flag, tc.value, "--no-score")
		if code != tc.code || !strings.Contains(stderr, tc.says) {
			t.Errorf("%s %s: exit %d, %q; want %d saying %q", tc.flag, tc.value, code, stderr, tc.code, tc.says)
		}
	}
}
