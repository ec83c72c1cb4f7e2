// Package engine does a run's units: a bounded pool of workers, each attempt with its timeout,
// refusal and environment (Attempts), and a single writer that commits each verdict as it
// completes. It never
// prints: it reports progress as events.
package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Sink stores attempts; *store.Store is one.
type Sink interface {
	PutAttempts(ctx context.Context, runID string, as []store.Attempt) error
}

// Source calls fn with every unit to do, in order, and stops when fn returns an error.
type Source func(fn func(subject.Unit) error) error

// Prepare builds the environment of one attempt; rec is the attempt's trace. metered returns what
// the environment's model spent so far (the runner's meter); it may be nil.
type Prepare func(u subject.Unit, rec trace.Recorder) (env *subject.Env, metered func() verdict.Usage)

// Do makes one attempt at a unit (Attempts.Do is one). ok is false when the unit is abandoned
// (nothing is to be stored); err is the subject's error, if any; own is the cost the subject
// reported beyond the metered calls.
type Do func(ctx context.Context, u subject.Unit) (a store.Attempt, own *float64, ok bool, err error)

// Config is how the pool does a run's units.
type Config struct {
	RunID       string
	Concurrency int
	// Total is the number of units to do (for progress); 0 if unknown.
	Total int
	// Stop, when closed, makes the run start no new unit and finish those in flight.
	// Cancelling the context passed to Run abandons those too (nothing half-done is stored).
	Stop <-chan struct{}
	// OnEvent receives progress; it is called from one goroutine at a time.
	OnEvent func(Event)
	// Budget, when set, stops starting units once the cost spent plus the estimate of those in
	// flight reaches its cap; the runner's meter also checks it before every model call.
	Budget *Budget
}

// Attempts makes the attempts of a run: its subject, with its limit per attempt, refusal and
// environment. Its Do is the one per-unit path of the local pool and of River's workers.
type Attempts struct {
	Subject subject.Subject
	Timeout time.Duration // per attempt; 0 means none
	// Refuse, when set, says why a case cannot be judged ("" when it can): such a unit gets an
	// error verdict with the reason, and the subject is not called.
	Refuse func(*suite.Case) string
	// Prepare builds each attempt's Env; nil gives an Env with no model and no snapshot.
	Prepare Prepare
}

// ErrBudget, wrapped, says a model call was refused because the run's --max-cost is reached. An
// attempt that ends so before any call was made is left undone (a resume with a higher cap does
// it); one that had spent is stored as an error, with what it spent.
var ErrBudget = errors.New("the run's --max-cost is reached")

// ErrAbort is subject.ErrAbort: wrapped in a subject's error, it stops the whole run.
var ErrAbort = subject.ErrAbort

// Event reports progress after each commit.
type Event struct {
	Done, Total     int
	OK, Failed, Err int
	Elapsed         time.Duration
	Last            *verdict.Verdict // the last verdict stored (errors are worth showing)
}

// Result sums up a run.
type Result struct {
	Done, OK, Failed, Errors int
	Interrupted              bool
	BudgetStopped            bool // the budget's cap was reached
	Elapsed                  time.Duration
	Usage                    verdict.Usage
}

var errStopped = errors.New("stopped")

// Run does every unit src gives with do, cfg.Concurrency at a time, and stores each attempt as
// it completes.
func Run(ctx context.Context, cfg Config, src Source, do Do, sink Sink) (Result, error) {
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 1
	}
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	units := make(chan subject.Unit)
	// A worker waits for its attempt to be stored before it takes its next unit: the attempt
	// commits with the model answers it was given (the store writes its response cache in the
	// attempts' transactions), so a crash can cost at most one unit per worker its answers again.
	// The committer stores whatever attempts wait at once: a group commit.
	results := make(chan finished, cfg.Concurrency)

	stopped := func() bool {
		select {
		case <-cfg.Stop:
			return true
		default:
			return false
		}
	}

	var srcErr error
	var budgetStopped atomic.Bool
	go func() {
		defer close(units)
		err := src(feedUnit(ctx, &cfg, units, &budgetStopped))
		if err != nil && !errors.Is(err, errStopped) {
			srcErr = err
			cancel()
		}
	}()

	var abortOnce sync.Once
	var abortErr error
	var wg sync.WaitGroup
	for i := 0; i < cfg.Concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stored := make(chan struct{}, 1)
			for u := range units {
				if stopped() || ctx.Err() != nil {
					cfg.Budget.abandon()
					continue
				}
				a, own, ok, err := do(ctx, u)
				if errors.Is(err, ErrAbort) {
					abortOnce.Do(func() { abortErr = err; cancel() })
					ok = false
				}
				if !ok {
					cfg.Budget.abandon()
					continue // abandoned: left undone, a resume does it again
				}
				cfg.Budget.release(own)
				results <- finished{a, stored}
				<-stored
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	res, sinkErr := commitAttempts(ctx, &cfg, sink, results, start, cancel)
	res.Elapsed = time.Since(start)
	res.BudgetStopped = budgetStopped.Load()
	res.Interrupted = stopped() || ctx.Err() != nil || res.BudgetStopped
	if abortErr != nil {
		return res, abortErr
	}
	if sinkErr != nil {
		return res, fmt.Errorf("run %s: %w", cfg.RunID, sinkErr)
	}
	if srcErr != nil {
		return res, fmt.Errorf("run %s: %w", cfg.RunID, srcErr)
	}
	return res, nil
}

// feedUnit returns the source's callback: it sends each unit to units, admitted by the budget,
// until the run stops.
func feedUnit(ctx context.Context, cfg *Config, units chan<- subject.Unit, budgetStopped *atomic.Bool) func(subject.Unit) error {
	return func(u subject.Unit) error {
		if cfg.Budget != nil && !cfg.Budget.admit() {
			budgetStopped.Store(true)
			return errStopped
		}
		select {
		case units <- u:
			return nil
		case <-cfg.Stop:
		case <-ctx.Done():
		}
		cfg.Budget.abandon()
		return errStopped
	}
}

// commitAttempts stores the workers' attempts as they finish, those waiting at once in one
// transaction, releases each worker once its attempt is stored and counts the stored verdicts.
// After a store error it keeps draining (so workers can exit) and returns the error.
func commitAttempts(ctx context.Context, cfg *Config, sink Sink, results <-chan finished, start time.Time, cancel context.CancelFunc) (res Result, sinkErr error) {
	batch := make([]store.Attempt, 0, 256)
	waiting := make([]chan struct{}, 0, 256)
	release := func() {
		for _, w := range waiting {
			w <- struct{}{}
		}
	}
	for v := range results {
		batch, waiting = append(batch[:0], v.attempt), append(waiting[:0], v.stored)
	drain:
		for len(batch) < cap(batch) {
			select {
			case v, ok := <-results:
				if !ok {
					break drain
				}
				batch, waiting = append(batch, v.attempt), append(waiting, v.stored)
			default:
				break drain
			}
		}
		if sinkErr != nil {
			release()
			continue // keep draining so workers can exit
		}
		// Store with a context that survives an interrupt: what was computed is kept.
		err := sink.PutAttempts(context.WithoutCancel(ctx), cfg.RunID, batch)
		release()
		if err != nil {
			sinkErr = err
			cancel()
			continue
		}
		for i := range batch {
			res.add(&batch[i].Verdict)
		}
		if cfg.OnEvent != nil {
			last := batch[len(batch)-1].Verdict
			cfg.OnEvent(Event{Done: res.Done, Total: cfg.Total, OK: res.OK, Failed: res.Failed, Err: res.Errors,
				Elapsed: time.Since(start), Last: &last})
		}
	}
	return res, sinkErr
}

// finished is an attempt for the committer, and where its worker waits for it to be stored.
type finished struct {
	attempt store.Attempt
	stored  chan struct{}
}

func (r *Result) add(v *verdict.Verdict) {
	r.Done++
	switch v.Status {
	case verdict.OK:
		r.OK++
	case verdict.Failed:
		r.Failed++
	default:
		r.Errors++
	}
	r.Usage.Add(v.Usage)
}

// Do runs one attempt with the timeout, refusal and environment of at. ok is false when the
// run's context was cancelled (the unit is abandoned, not stored). A subject's error, panic or timeout becomes a verdict with
// status error and the reason, and keeps the trace and the spend recorded until then; the error
// itself is returned too, so that ErrAbort can stop the run. own is the cost the subject reported
// beyond the metered calls (the budget has not seen it yet).
func (at *Attempts) Do(ctx context.Context, u subject.Unit) (a store.Attempt, own *float64, ok bool, _ error) {
	start := time.Now()
	buf := trace.NewBuffer()
	finish := func(v verdict.Verdict, metered verdict.Usage) store.Attempt {
		if !v.Status.Valid() {
			v = verdict.Verdict{Status: verdict.Error, Reason: fmt.Sprintf("subject returned status %q", v.Status), Usage: v.Usage}
		}
		if metered.Calls > 0 || metered.CacheHits > 0 {
			tc := v.Usage.ToolCalls
			v.Usage = metered
			v.Usage.ToolCalls += tc
		}
		v.CaseID, v.Repeat, v.Attempt = u.Case.ID, u.Repeat, u.Attempt
		v.Usage.WallMS = time.Since(start).Milliseconds()
		if v.Status == verdict.Error || verdict.IsStopped(v) {
			buf.Record(trace.Event{Kind: trace.Error, Content: v.Reason})
		}
		return store.Attempt{Verdict: v, Events: buf.Events(), Started: start, Finished: time.Now()}
	}
	if at.Refuse != nil {
		if why := at.Refuse(u.Case); why != "" {
			return finish(verdict.Verdict{Status: verdict.Error, Reason: why}, verdict.Usage{}), nil, true, nil
		}
	}
	var env *subject.Env
	metered := func() verdict.Usage { return verdict.Usage{} }
	if at.Prepare != nil {
		var m func() verdict.Usage
		env, m = at.Prepare(u, buf)
		if m != nil {
			metered = m
		}
	} else {
		env = subject.NewEnv(subject.EnvOptions{Trace: buf})
	}
	v, ok, err := assess(ctx, at.Timeout, at.Subject, u, env)
	env.Close()
	if !ok {
		return store.Attempt{}, nil, false, err
	}
	m := metered()
	if m.Calls == 0 && m.CacheHits == 0 {
		if errors.Is(err, ErrBudget) {
			return store.Attempt{}, nil, false, nil
		}
		own = v.Usage.CostUSD
	}
	return finish(v, m), own, true, err
}

// assess runs one unit with its timeout. ok is false when the run's context was cancelled
// before the subject completed its answer (the unit is abandoned, not stored). The caps' policy, one for every subject: a unit stopped by
// its --timeout or a unit limit (--max-steps, --unit-max-tokens, --unit-max-cost: the meter's
// subject.ErrLimit, however the subject passed it on) is a failed answer that counts
// (verdict.Stopped); any other error or a panic becomes a verdict with status error and the reason; the error itself is returned too, so that ErrAbort can stop the run.
func assess(ctx context.Context, timeout time.Duration, subj subject.Subject, u subject.Unit, env *subject.Env) (verdict.Verdict, bool, error) {
	uctx := ctx
	var cancel context.CancelFunc = func() {}
	if timeout > 0 {
		uctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	type answer struct {
		v   verdict.Verdict
		err error
	}
	done := make(chan answer, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- answer{err: fmt.Errorf("subject panicked: %v\n%s", p, debug.Stack())}
			}
		}()
		v, err := subj.Assess(uctx, u, env)
		done <- answer{v, err}
	}()
	var a answer
	answered := true
	select {
	case a = <-done:
	case <-uctx.Done():
		select {
		case a = <-done: // it answered as the context ended: the answer stands
		default:
			// A subject that ignores its context must not hold the run: leave it behind.
			a.err, answered = uctx.Err(), false
		}
	}
	// A cancelled run abandons what the cancel cut short, but an answer the subject completed
	// is paid work: it is stored, even when the cancel came while it was being returned.
	if ctx.Err() != nil && (!answered || a.err != nil) {
		return verdict.Verdict{}, false, a.err
	}
	v := a.v
	switch {
	case a.err == nil:
	case errors.Is(a.err, context.DeadlineExceeded) && uctx.Err() != nil:
		v = verdict.Stopped(fmt.Sprintf("--timeout %s (no answer within it: a failed answer, counted)", timeout), a.v.Usage)
	case errors.Is(a.err, subject.ErrLimit):
		msg := a.err.Error()
		if i := strings.Index(msg, subject.ErrLimit.Error()+": "); i >= 0 {
			msg = msg[i+len(subject.ErrLimit.Error())+2:]
		}
		v = verdict.Stopped("its limit: "+msg+" (a failed answer, counted)", a.v.Usage)
	default:
		v = verdict.Verdict{Status: verdict.Error, Reason: a.err.Error(), Usage: a.v.Usage}
	}
	return v, true, a.err
}
