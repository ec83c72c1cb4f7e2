package sandbox_test

import (
	"context"
	"testing"

	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// TestStartsKillNoOtherProcess: a sandboxed process outlives other sandboxes' starts and ends.
// Its parent-death signal is its starting thread's, and an overlay start's thread (locked, with a
// mount namespace of its own) ends with its sandbox: a process started from a thread of Go's pool
// was killed when a later start locked that thread (CI: a test's Postgres, started so, died).
func TestStartsKillNoOtherProcess(t *testing.T) {
	sb := newSandbox(t, sandbox.Options{})
	long, err := sb.Start(context.Background(), sandbox.Spec{Args: []string{"sleep", "120"}}, sandbox.Stdio{})
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { long.Wait(); close(ended) }()
	defer func() { long.Kill(); <-ended }()
	project := t.TempDir()
	for i := range 60 {
		run(t, sb, sandbox.Spec{Project: project, Args: []string{"true"}})
		select {
		case <-ended:
			t.Fatalf("a sandboxed process ended (exit %d) while other sandboxes started and ended, after %d of them", long.ExitCode(), i+1)
		default:
		}
	}
}
