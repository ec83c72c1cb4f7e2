// Package engine runs a subject over a suite's cases: a bounded pool of workers, a timeout per
// case, repeats, resume, and a single writer that commits each verdict as it completes. It never
// prints: it reports progress as events.
package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Subject judges one case; subject.Subject is the same interface.
type Subject interface {
	Assess(ctx context.Context, c *suite.Case, repeat int) (verdict.Verdict, error)
}

// Sink stores verdicts; *store.Store is one.
type Sink interface {
	PutVerdicts(ctx context.Context, runID string, vs []verdict.Verdict) error
}

// Source calls fn with every case of a suite, in order, and stops when fn returns an error.
type Source func(fn func(*suite.Case) error) error

// Config is one run's settings.
type Config struct {
	RunID       string
	Concurrency int
	Repeats     int
	Timeout     time.Duration // per (case, repeat); 0 means none
	// Done holds the units already stored: they are skipped (resume).
	Done map[store.Unit]bool
	// Total is the number of units to do (for progress); 0 if unknown.
	Total int
	// Stop, when closed, makes the run start no new unit and finish those in flight.
	// Cancelling the context passed to Run abandons those too (nothing half-done is stored).
	Stop <-chan struct{}
	// OnEvent receives progress; it is called from one goroutine at a time.
	OnEvent func(Event)
	// Budget, when set, stops starting units once the cost spent plus the estimate of those in
	// flight reaches its cap.
	Budget *Budget
}

// ErrAbort, wrapped in a subject's error, stops the whole run: a fault that every case would
// hit (a rejected API key, an unknown model). The unit is not stored, so a resume redoes it.
var ErrAbort = errors.New("run aborted")

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

// Run does every unit of the suite not yet done and stores each verdict as it completes.
func Run(ctx context.Context, cfg Config, src Source, subj Subject, sink Sink) (Result, error) {
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 1
	}
	if cfg.Repeats < 1 {
		cfg.Repeats = 1
	}
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type unit struct {
		c      *suite.Case
		repeat int
	}
	units := make(chan unit)
	results := make(chan verdict.Verdict, 2*cfg.Concurrency)

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
		err := src(func(c *suite.Case) error {
			for r := 0; r < cfg.Repeats; r++ {
				if cfg.Done[store.Unit{CaseID: c.ID, Repeat: r}] {
					continue
				}
				if cfg.Budget != nil && !cfg.Budget.admit() {
					budgetStopped.Store(true)
					return errStopped
				}
				select {
				case units <- unit{c, r}:
				case <-cfg.Stop:
					cfg.Budget.release(nil)
					return errStopped
				case <-ctx.Done():
					cfg.Budget.release(nil)
					return errStopped
				}
			}
			return nil
		})
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
			for u := range units {
				if stopped() || ctx.Err() != nil {
					cfg.Budget.release(nil)
					continue
				}
				v, err, ok := assess(ctx, cfg.Timeout, subj, u.c, u.repeat)
				if errors.Is(err, ErrAbort) {
					abortOnce.Do(func() { abortErr = err; cancel() })
					ok = false
				}
				if !ok {
					cfg.Budget.release(nil)
					continue // abandoned: left undone, a resume does it again
				}
				cfg.Budget.release(v.Usage.CostUSD)
				results <- v
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	res := Result{}
	var sinkErr error
	batch := make([]verdict.Verdict, 0, 256)
	for v := range results {
		batch = append(batch[:0], v)
	drain:
		for len(batch) < cap(batch) {
			select {
			case v, ok := <-results:
				if !ok {
					break drain
				}
				batch = append(batch, v)
			default:
				break drain
			}
		}
		if sinkErr != nil {
			continue // keep draining so workers can exit
		}
		// Store with a context that survives an interrupt: what was computed is kept.
		if err := sink.PutVerdicts(context.WithoutCancel(ctx), cfg.RunID, batch); err != nil {
			sinkErr = err
			cancel()
			continue
		}
		for i := range batch {
			res.add(&batch[i])
		}
		if cfg.OnEvent != nil {
			last := batch[len(batch)-1]
			cfg.OnEvent(Event{Done: res.Done, Total: cfg.Total, OK: res.OK, Failed: res.Failed, Err: res.Errors,
				Elapsed: time.Since(start), Last: &last})
		}
	}
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
	u := &r.Usage
	u.InputTokens += v.Usage.InputTokens
	u.CachedInputTokens += v.Usage.CachedInputTokens
	u.OutputTokens += v.Usage.OutputTokens
	u.ToolCalls += v.Usage.ToolCalls
	u.Calls += v.Usage.Calls
	u.Retries += v.Usage.Retries
	u.CacheHits += v.Usage.CacheHits
	u.WaitMS += v.Usage.WaitMS
	if v.Usage.CostUSD != nil {
		if u.CostUSD == nil {
			u.CostUSD = verdict.Float(0)
		}
		*u.CostUSD += *v.Usage.CostUSD
	}
}

// assess runs one unit with its timeout. ok is false when the run's context was cancelled
// (the unit is abandoned, not stored). A subject's error, panic or timeout becomes a verdict with
// status error and the reason; the error itself is returned too, so that ErrAbort can stop the run.
func assess(ctx context.Context, timeout time.Duration, subj Subject, c *suite.Case, repeat int) (verdict.Verdict, error, bool) {
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
	start := time.Now()
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- answer{err: fmt.Errorf("subject panicked: %v\n%s", p, debug.Stack())}
			}
		}()
		v, err := subj.Assess(uctx, c, repeat)
		done <- answer{v, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-uctx.Done():
		// A subject that ignores its context must not hold the run: leave it behind.
		a.err = uctx.Err()
	}
	if ctx.Err() != nil {
		return verdict.Verdict{}, a.err, false
	}
	v := a.v
	if a.err != nil {
		reason := a.err.Error()
		if errors.Is(a.err, context.DeadlineExceeded) {
			reason = fmt.Sprintf("timed out after %s (raise --timeout)", timeout)
		}
		v = verdict.Verdict{Status: verdict.Error, Reason: reason, Usage: a.v.Usage}
	}
	if !v.Status.Valid() {
		v = verdict.Verdict{Status: verdict.Error, Reason: fmt.Sprintf("subject returned status %q", v.Status), Usage: v.Usage}
	}
	v.CaseID, v.Repeat = c.ID, repeat
	if v.Usage.WallMS == 0 {
		v.Usage.WallMS = time.Since(start).Milliseconds()
	}
	return v, a.err, true
}
