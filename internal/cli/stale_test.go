package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Issue 25 finding 4, liveness: while a run's process lives, --resume of it is refused (two
// processes would do its units twice); once it is killed, vulnbench runs shows it stale within
// the heartbeat's horizon (no heartbeat for 10 s) instead of running forever, and --resume takes
// it over and finishes it.
func TestKilledRunShowsStaleAndResumeTakesItOver(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	const cases = 120
	var s, p strings.Builder
	for i := range cases {
		id := fmt.Sprintf("c%03d", i)
		fmt.Fprintf(&s, `{"id":%q,"kind":"function","label":%q,"pair":"p%d","code":"int f%d(void){return %d;}"}`+"\n", id, []string{"vul", "ben"}[i%2], i/2, i, i)
		fmt.Fprintf(&p, `{"case_id":%q,"label":"vul","score":0.5}`+"\n", id)
	}
	suitePath, predPath, db := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "p.jsonl"), filepath.Join(dir, "v.db")
	os.WriteFile(suitePath, []byte(s.String()), 0o644)
	os.WriteFile(predPath, []byte(p.String()), 0o644)
	cmd := exec.Command(bin, "run", "--suite", suitePath, "--subject", "predictions:"+predPath, "--db", db,
		"--repeats", "2", "--concurrency", "2", "--delay", "100ms", "--run-id", "k")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); storedUnits(db, "k") < 4; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no unit stored after 60 s\n%s", stderr.String())
		}
	}
	code, _, errOut := run(t, dir, "run", "--resume", "k", "--db", db)
	if code == 0 || !strings.Contains(errOut, "is being run by") {
		t.Errorf("--resume of a live run: exit %d, want it refused (is being run by ...)\n%s", code, errOut)
	}
	if _, out, _ := run(t, dir, "runs", "--db", db); !regexp.MustCompile(`(?m)^k .* running `).MatchString(out) {
		t.Errorf("runs while the run lives:\n%s", out)
	}

	before := killAfter(t, cmd, db, "k", 20)
	killed := time.Now()
	if before >= 2*cases {
		t.Fatalf("the run finished before it was killed")
	}
	for {
		_, out, _ := run(t, dir, "runs", "--db", db)
		if regexp.MustCompile(`(?m)^k .* stale `).MatchString(out) {
			break
		}
		if time.Since(killed) > 30*time.Second {
			t.Fatalf("runs does not show the killed run stale %.0f s after the kill:\n%s", time.Since(killed).Seconds(), out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("stale %.1f s after the kill", time.Since(killed).Seconds())

	code, _, errOut = run(t, dir, "run", "--resume", "k", "--db", db)
	if code != 0 || !strings.Contains(errOut, fmt.Sprintf("%d units in", 2*cases-before)) {
		t.Fatalf("--resume of the stale run: exit %d, want it taken over with the %d missing units\n%s", code, 2*cases-before, errOut)
	}
	if _, out, _ := run(t, dir, "runs", "--db", db); !regexp.MustCompile(`(?m)^k .* done .*240/240`).MatchString(out) {
		t.Errorf("runs after the takeover:\n%s", out)
	}
}
