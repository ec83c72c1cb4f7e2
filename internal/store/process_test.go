package store_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

const childEnv = "VULNBENCH_STORE_CHILD_DSN"

// TestChildWriter is the other process of TestKilledWriter: it stores batches of two attempts
// with three events each, forever, and prints "stored N" after each commit.
func TestChildWriter(t *testing.T) {
	dsn := os.Getenv(childEnv)
	if dsn == "" {
		t.Skip("the helper process of TestKilledWriter")
	}
	st := store.OpenT(t, dsn)
	for i := 0; ; i++ {
		if err := st.PutAttempts(ctx, "r1", childBatch("child", i)); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("stored %d\n", i)
	}
}

func childBatch(who string, i int) []store.Attempt {
	var as []store.Attempt
	for j := 0; j < 2; j++ {
		a := attempt(fmt.Sprintf("%s-%05d-%d", who, i, j), 0, 0, verdict.OK, 0.01)
		a.Events = append(a.Events, trace.Event{Seq: 1, Kind: trace.Note, Content: "two"}, trace.Event{Seq: 2, Kind: trace.Note, Content: "three"})
		as = append(as, a)
	}
	return as
}

// A second process writes the store while this one does, and is killed with SIGKILL mid-stream:
// every batch it confirmed is there whole, no batch is there in part, and the store goes on.
func TestKilledWriter(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		newRun(t, st, "r1")
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"="+dsn)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		parentDone := make(chan int)
		go func() { // this process writes at the same time
			n := 0
			for {
				select {
				case <-stop:
					parentDone <- n
					return
				default:
				}
				if err := st.PutAttempts(ctx, "r1", childBatch("parent", n)); err != nil {
					t.Error(err)
					parentDone <- n
					return
				}
				n++
			}
		}()
		confirmed := -1
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if n, ok := strings.CutPrefix(sc.Text(), "stored "); ok {
				confirmed, _ = strconv.Atoi(n)
				if confirmed >= 30 {
					break
				}
			}
		}
		if err := cmd.Process.Kill(); err != nil { // SIGKILL, mid-transaction as likely as not
			t.Fatal(err)
		}
		cmd.Wait()
		close(stop)
		parentBatches := <-parentDone
		if confirmed < 30 {
			t.Fatalf("the child confirmed %d batches before it ended", confirmed+1)
		}

		// A fresh store, as a resumed run opens it.
		st = store.OpenT(t, dsn)
		batches := map[string]int{} // batch -> attempts stored
		if err := st.AllAttempts(ctx, "r1", func(v verdict.Verdict) error {
			evs, err := st.TraceEvents(ctx, "r1", v.CaseID, v.Repeat, v.Attempt)
			if err != nil {
				return err
			}
			if len(evs) != 3 {
				t.Errorf("attempt %s has %d events, want 3", v.CaseID, len(evs))
			}
			batches[v.CaseID[:strings.LastIndexByte(v.CaseID, '-')]]++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i <= confirmed; i++ {
			if n := batches[fmt.Sprintf("child-%05d", i)]; n != 2 {
				t.Errorf("confirmed batch %d has %d attempts stored, want 2", i, n)
			}
		}
		for i := 0; i < parentBatches; i++ {
			if n := batches[fmt.Sprintf("parent-%05d", i)]; n != 2 {
				t.Errorf("batch %d of this process has %d attempts stored, want 2", i, n)
			}
		}
		for b, n := range batches {
			if n != 2 {
				t.Errorf("batch %s is stored in part: %d attempts", b, n)
			}
		}
		if !strings.HasPrefix(dsn, "postgres") {
			check, err := st.QueryStrings(ctx, `PRAGMA integrity_check`)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]string{"ok"}, check); d != "" {
				t.Errorf("integrity check after SIGKILL (-want +got):\n%s", d)
			}
		}
		if err := st.PutAttempts(ctx, "r1", childBatch("after", 0)); err != nil {
			t.Errorf("writing after the kill: %v", err)
		}
	})
}
