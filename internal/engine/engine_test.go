package engine_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// scripted answers according to the case id: "err-*" fails, "panic-*" panics, "slow-*" waits for
// its context, "hang-*" ignores its context and blocks until release is closed; others are ok.
type scripted struct {
	calls   atomic.Int64
	release chan struct{}
}

func (s *scripted) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	c, repeat := u.Case, u.Repeat
	s.calls.Add(1)
	env.Trace.Record(trace.Event{Kind: trace.Note, Content: "start " + c.ID})
	switch {
	case strings.HasPrefix(c.ID, "err-"):
		return verdict.Verdict{}, errors.New("tool crashed")
	case strings.HasPrefix(c.ID, "panic-"):
		panic("boom")
	case strings.HasPrefix(c.ID, "slow-"):
		<-ctx.Done()
		return verdict.Verdict{}, ctx.Err()
	case strings.HasPrefix(c.ID, "hang-"):
		<-s.release
		return verdict.Verdict{Status: verdict.OK, Label: suite.Ben}, nil
	}
	return verdict.Verdict{Status: verdict.OK, Label: suite.Vul, Score: verdict.Float(float64(repeat) / 10)}, nil
}

func cases(ids ...string) engine.Source { return units(1, nil, ids...) }

// units gives each repeat of each case id that next says is to do (nil: all, attempt 0).
func units(repeats int, next func(id string, repeat int) (bool, int), ids ...string) engine.Source {
	return func(fn func(subject.Unit) error) error {
		for _, id := range ids {
			c := &suite.Case{ID: id, Kind: suite.KindFunction, Label: suite.Vul, Code: "x"}
			for r := 0; r < repeats; r++ {
				do, attempt := true, 0
				if next != nil {
					do, attempt = next(id, r)
				}
				if !do {
					continue
				}
				if err := fn(subject.Unit{Case: c, Repeat: r, Attempt: attempt}); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// do makes attempts with subj and no limit.
func do(subj subject.Subject) engine.Do { return (&engine.Attempts{Subject: subj}).Do }

func openStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	id := "run-1"
	if err := st.CreateRun(context.Background(), &store.Run{ID: id, CreatedAt: time.Now(), State: store.StateRunning,
		SuitePath: "s.jsonl", SuiteHash: "h", Subject: "scripted", Repeats: 2, Units: 10, Manifest: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	return st, id
}

type row struct {
	Case   string
	Repeat int
	Status verdict.Status
	Reason string
}

func rows(t *testing.T, st *store.Store, runID string) []row {
	t.Helper()
	var out []row
	if err := st.Verdicts(context.Background(), runID, func(v verdict.Verdict) error {
		reason := v.Reason
		if i := strings.IndexByte(reason, '\n'); i >= 0 {
			reason = reason[:i]
		}
		out = append(out, row{v.CaseID, v.Repeat, v.Status, reason})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Case != out[j].Case {
			return out[i].Case < out[j].Case
		}
		return out[i].Repeat < out[j].Repeat
	})
	return out
}

func TestRunStoresEveryUnitAndKeepsGoingAfterFaults(t *testing.T) {
	st, id := openStore(t)
	subj := &scripted{release: make(chan struct{})}
	defer close(subj.release)
	res, err := engine.Run(context.Background(), engine.Config{RunID: id, Concurrency: 3},
		units(2, nil, "a", "err-b", "panic-c", "slow-d", "hang-e"), (&engine.Attempts{Subject: subj, Timeout: 200 * time.Millisecond}).Do, st)
	if err != nil {
		t.Fatal(err)
	}
	want := []row{
		{"a", 0, verdict.OK, ""}, {"a", 1, verdict.OK, ""},
		{"err-b", 0, verdict.Error, "tool crashed"}, {"err-b", 1, verdict.Error, "tool crashed"},
		{"hang-e", 0, verdict.Failed, timedOut}, {"hang-e", 1, verdict.Failed, timedOut},
		{"panic-c", 0, verdict.Error, "subject panicked: boom"}, {"panic-c", 1, verdict.Error, "subject panicked: boom"},
		{"slow-d", 0, verdict.Failed, timedOut}, {"slow-d", 1, verdict.Failed, timedOut},
	}
	if d := cmp.Diff(want, rows(t, st, id)); d != "" {
		t.Errorf("stored verdicts (-want +got):\n%s", d)
	}
	if res.Done != 10 || res.OK != 2 || res.Failed != 4 || res.Errors != 4 || res.Interrupted {
		t.Errorf("result = %+v, want 10 done, 2 ok, 4 failed (stopped by --timeout), 4 errors, not interrupted", res)
	}
}

// timedOut is the reason of a unit stopped by its --timeout: a failed answer, counted.
const timedOut = "stopped by --timeout 200ms (no answer within it: a failed answer, counted)"

func TestRunSkipsDoneUnits(t *testing.T) {
	st, id := openStore(t)
	subj := &scripted{}
	done := map[string]bool{"a/0": true, "b/1": true}
	next := func(id string, r int) (bool, int) { return !done[fmt.Sprintf("%s/%d", id, r)], 0 }
	res, err := engine.Run(context.Background(), engine.Config{RunID: id, Concurrency: 2},
		units(2, next, "a", "b", "c"), do(subj), st)
	if err != nil {
		t.Fatal(err)
	}
	if got := subj.calls.Load(); got != 4 {
		t.Errorf("subject called %d times, want 4 (6 units, 2 done)", got)
	}
	want := []row{{"a", 1, verdict.OK, ""}, {"b", 0, verdict.OK, ""}, {"c", 0, verdict.OK, ""}, {"c", 1, verdict.OK, ""}}
	if d := cmp.Diff(want, rows(t, st, id)); d != "" {
		t.Errorf("stored verdicts (-want +got):\n%s", d)
	}
	if res.Done != 4 {
		t.Errorf("done = %d, want 4", res.Done)
	}
}

// gate lets a fixed number of cases through, then blocks until the run's context ends.
type gate struct {
	left    atomic.Int64
	reached chan struct{}
}

func (g *gate) Assess(ctx context.Context, _ subject.Unit, _ *subject.Env) (verdict.Verdict, error) {
	if g.left.Add(-1) < 0 {
		select {
		case g.reached <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return verdict.Verdict{}, ctx.Err()
	}
	return verdict.Verdict{Status: verdict.OK, Label: suite.Ben}, nil
}

func TestStopFinishesInFlightAndCancelAbandonsThem(t *testing.T) {
	st, id := openStore(t)
	ids := make([]string, 50)
	for i := range ids {
		ids[i] = fmt.Sprintf("c%02d", i)
	}
	g := &gate{reached: make(chan struct{}, 1)}
	g.left.Store(7)
	stop := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-g.reached // a worker is now blocked in flight
		close(stop)
		cancel() // abandon it: nothing half-done may be stored
	}()
	res, err := engine.Run(ctx, engine.Config{RunID: id, Concurrency: 2, Stop: stop}, cases(ids...), do(g), st)
	if err != nil {
		t.Fatal(err)
	}
	got := rows(t, st, id)
	if len(got) != 7 || res.Done != 7 || !res.Interrupted {
		t.Fatalf("stored %d verdicts, result %+v; want exactly the 7 completed ones and interrupted", len(got), res)
	}
	for _, r := range got {
		if r.Status != verdict.OK {
			t.Errorf("abandoned unit stored: %+v", r)
		}
	}
}

// cancelling answers, then cancels the run as its answer is being returned: the case a
// second Ctrl-C lands on while a worker hands back a completed (paid) answer.
type cancelling struct{ cancel context.CancelFunc }

func (c cancelling) Assess(context.Context, subject.Unit, *subject.Env) (verdict.Verdict, error) {
	c.cancel()
	return verdict.Verdict{Status: verdict.OK, Label: suite.Vul}, nil
}

func TestCancelKeepsAnAnswerCompletedAsItLands(t *testing.T) {
	st, id := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := engine.Run(ctx, engine.Config{RunID: id, Concurrency: 1}, cases("a", "b"), do(cancelling{cancel}), st)
	if err != nil {
		t.Fatal(err)
	}
	want := []row{{"a", 0, verdict.OK, ""}}
	if d := cmp.Diff(want, rows(t, st, id)); d != "" {
		t.Errorf("stored verdicts (-want +got):\n%s", d)
	}
	if res.Done != 1 || !res.Interrupted {
		t.Errorf("result = %+v, want the completed answer stored and the run interrupted", res)
	}
}

type failingSink struct{}

func (failingSink) PutAttempts(context.Context, string, []store.Attempt) error {
	return errors.New("disk full")
}

func TestSinkFailureEndsRunWithError(t *testing.T) {
	_, err := engine.Run(context.Background(), engine.Config{RunID: "r", Concurrency: 2}, cases("a", "b", "c"), do(&scripted{}), failingSink{})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v, want the sink's error", err)
	}
}

type aborting struct{ calls atomic.Int64 }

func (a *aborting) Assess(ctx context.Context, u subject.Unit, _ *subject.Env) (verdict.Verdict, error) {
	c := u.Case
	a.calls.Add(1)
	if c.ID == "a" {
		return verdict.Verdict{Status: verdict.OK, Label: suite.Vul}, nil
	}
	return verdict.Verdict{}, fmt.Errorf("%w: openai rejected the API key (HTTP 401)", engine.ErrAbort)
}

func TestAbortStopsTheRunAndStoresNothingOfIt(t *testing.T) {
	st, id := openStore(t)
	ids := make([]string, 40)
	ids[0] = "a"
	for i := 1; i < len(ids); i++ {
		ids[i] = fmt.Sprintf("x%02d", i)
	}
	subj := &aborting{}
	_, err := engine.Run(context.Background(), engine.Config{RunID: id, Concurrency: 1}, cases(ids...), do(subj), st)
	if !errors.Is(err, engine.ErrAbort) || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("err = %v, want the abort with its message", err)
	}
	if n := subj.calls.Load(); n != 2 {
		t.Errorf("subject called %d times, want 2: the run must stop at the first fatal fault", n)
	}
	if d := cmp.Diff([]row{{"a", 0, verdict.OK, ""}}, rows(t, st, id)); d != "" {
		t.Errorf("stored (-want +got):\n%s", d)
	}
}

type capture struct{ as []store.Attempt }

func (c *capture) PutAttempts(_ context.Context, _ string, as []store.Attempt) error {
	c.as = append(c.as, as...)
	return nil
}

// spender records a model call and its cost through the env, then waits past its timeout.
type spender struct{}

func (spender) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	env.Trace.Record(trace.Event{Kind: trace.ModelResponse, Content: "thinking about " + u.Case.ID})
	<-ctx.Done()
	return verdict.Verdict{}, ctx.Err()
}

// A unit that times out keeps the trace it recorded and what it spent.
func TestTimeoutKeepsPartialTraceAndSpend(t *testing.T) {
	sink := &capture{}
	prep := func(u subject.Unit, rec trace.Recorder) (*subject.Env, func() verdict.Usage) {
		env := subject.NewEnv(subject.EnvOptions{Trace: rec})
		return env, func() verdict.Usage {
			return verdict.Usage{Calls: 1, InputTokens: 100, OutputTokens: 7, CostUSD: verdict.Float(0.25)}
		}
	}
	res, err := engine.Run(context.Background(), engine.Config{RunID: "r", Concurrency: 1},
		units(1, func(string, int) (bool, int) { return true, 3 }, "a"), (&engine.Attempts{Subject: spender{}, Timeout: 50 * time.Millisecond, Prepare: prep}).Do, sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.as) != 1 {
		t.Fatalf("%d attempts stored, want 1", len(sink.as))
	}
	a := sink.as[0]
	v := a.Verdict
	if !verdict.IsStopped(v) || !strings.Contains(v.Reason, "--timeout 50ms") || v.Attempt != 3 {
		t.Errorf("verdict %+v: want a failed verdict stopped by --timeout, attempt 3", v)
	}
	if v.Usage.CostUSD == nil || *v.Usage.CostUSD != 0.25 || v.Usage.InputTokens != 100 || v.Usage.Calls != 1 {
		t.Errorf("usage %+v: the spend before the timeout is lost", v.Usage)
	}
	var kinds []trace.Kind
	for _, e := range a.Events {
		kinds = append(kinds, e.Kind)
	}
	if d := cmp.Diff([]trace.Kind{trace.ModelResponse, trace.Error}, kinds); d != "" {
		t.Errorf("trace kinds (-want +got):\n%s", d)
	}
	if res.Usage.CostUSD == nil || *res.Usage.CostUSD != 0.25 {
		t.Errorf("run usage %+v, want the timed-out unit's cost counted", res.Usage)
	}
}
