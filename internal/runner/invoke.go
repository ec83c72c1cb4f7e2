package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/vulnbench/vulnbench/internal/batchrun"
	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/preflight"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Invocation is one `vulnbench run`: a new run or a resumed one, what it opens, how this process
// follows it and what it does at the end (Invoke). The CLI fills it from flags and renders the
// Outcome; the sequence is here.
type Invocation struct {
	// New is a new run. Its subject is configured here, once, from Subject.Arg and
	// Subject.Values unless Subject.Config is set; nil with Resume.
	New *Spec
	// Resume is the id of a stored run to go on with; Overrides are what may change.
	Resume    string
	Overrides Overrides
	// Host is this process's: its Deps' Cache and Sandbox are the store and sandbox opened here.
	Host Host
	// Queue is where the units go: local, river, or "" for the run's own (a new run: local). A
	// resume refuses a queue other than the one the run went to.
	Queue string
	// Detach returns once a river run's units are queued.
	Detach bool

	// What Invoke opens, once the preflight passed: the store, the sandbox (nil: none) and, for
	// a river run, River's queue on that store.
	OpenStore   func(ctx context.Context) (*store.Store, error)
	OpenSandbox func(ctx context.Context) (*sandbox.Sandbox, error)
	OpenRiver   func(ctx context.Context, st *store.Store) (River, error)

	// Local follows the units this process does (the local pool): its Stop also ends following
	// a river run (the run goes on with its workers).
	Local Local
	// OnQueued is told a river run's units were queued (Outcome.Queued, Outcome.DSN).
	OnQueued func(out *Outcome)
	// Follow is a river run's progress, every FollowEvery (0: a second).
	Follow      func(Progress)
	FollowEvery time.Duration
	// BatchPoll is the time between polls of a --batch run's batches; Progress takes the batch
	// phase's lines (nil: none).
	BatchPoll time.Duration
	Progress  io.Writer
	// Warn is told the preflight's warnings (an unpriced model).
	Warn func(string)

	// At the end of a run whose units all ran: its predictions written to Out ("": not), what
	// Finish does to it (the fix checks AppSecBench answers get; nil: nothing), then its score
	// from the request Score makes of its manifest (nil: not scored).
	Out    string
	Finish func(ctx context.Context, st *store.Store, runID string) error
	Score  func(*manifest.Manifest) report.Request
}

// River is the queue River's workers take a run's units from (queue.Queue).
type River interface {
	Queue
	// Follow watches the run every interval until it ends, calling fn with its progress; a
	// cancelled ctx stops following, not the run.
	Follow(ctx context.Context, id string, every time.Duration, fn func(Progress)) (Progress, error)
	Close() error
}

// Progress is how far a run done by River's workers is.
type Progress struct {
	State                string
	Stored, Scored, Errs int // units with an attempt; with a scored verdict; whose attempts are all errors
	Workers              []store.WorkerRun
	Budget               *store.Budget // nil: no --max-cost
}

// UsageError is an invocation that cannot be done as given (a flag value the subject refuses,
// --batch on River, another queue on a resume): the CLI's exit status 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(format string, a ...any) error { return &UsageError{Err: fmt.Errorf(format, a...)} }

// Ending is how an invocation ended.
type Ending int

// The endings of an invocation.
const (
	EndDone        Ending = iota // every unit ran (Outcome.Report: its score, when asked)
	EndFailed                    // a fault stopped the run (the error Invoke returns)
	EndBudget                    // --max-cost reached
	EndInterrupted               // stopped (a signal, vulnbench stop)
	EndCancelled                 // cancelled (vulnbench cancel)
	EndDetached                  // a river run queued, not followed (--detach)
	EndUnfollowed                // following a river run stopped; it goes on with its workers
)

// Invoke does inv: a new run's subject configured once and checked by the preflight (every miss
// at once, as a *preflight.Error, before anything is opened), the store and sandbox opened, the
// run created or resumed, its units done on the local pool (through the provider's batch API
// when its settings say so) or queued on River and followed, and at the end its predictions and
// score. The error is nil, or the reason it stopped; out is nil when no run was opened.
func Invoke(ctx context.Context, inv Invocation) (*Outcome, error) {
	if inv.New != nil {
		if err := inv.check(ctx); err != nil {
			return nil, err
		}
	}
	st, err := inv.OpenStore(ctx)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	host := inv.Host
	host.Deps.Cache = st
	if inv.OpenSandbox != nil {
		if host.Deps.Sandbox, err = inv.OpenSandbox(ctx); err != nil {
			return nil, err
		}
	}
	var r *Run
	if inv.New != nil {
		spec := *inv.New
		spec.Host = host
		r, err = Create(ctx, st, spec)
	} else {
		ov := inv.Overrides
		ov.Host = host
		r, err = Resume(ctx, st, inv.Resume, ov)
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	river, err := inv.queue(r)
	if err != nil {
		return nil, err
	}
	if river {
		if r.Settings().Batch {
			return nil, usage("--batch runs in this process: it does not apply with --queue river")
		}
		return inv.river(ctx, st, r)
	}
	return inv.local(ctx, st, r)
}

// check configures a new run's subject (once) and checks its needs on the machine and the cases.
func (inv *Invocation) check(ctx context.Context) error {
	sj := &inv.New.Subject
	if sj.Config == nil {
		cfg, err := sj.Factory.Configure(sj.Arg, sj.Values)
		if err != nil {
			return &UsageError{Err: err}
		}
		sj.Config = cfg
	}
	keep, err := suite.After(inv.New.After)
	if err != nil {
		return usage("--after %v", err)
	}
	in := preflight.Input{Suite: inv.New.Suite, Reading: inv.Host.Deps.Reading, Keep: keep, Factory: sj.Factory, Config: sj.Config,
		Repos: inv.Host.Repos, Getenv: inv.Host.Deps.Getenv}
	rep, err := preflight.Check(ctx, in)
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		if inv.Warn != nil {
			inv.Warn(w)
		}
	}
	return rep.Err()
}

// queue says whether r's units go to River: a new run's --queue, a resumed run's own (another
// given is refused).
func (inv *Invocation) queue(r *Run) (bool, error) {
	river := inv.Queue == store.QueueRiver
	if inv.Resume != "" {
		rec := r.Record()
		was := rec.Queue == store.QueueRiver
		if inv.Queue != "" && river != was {
			return false, usage("--queue cannot change on --resume: run %s went to the %s queue", rec.ID, rec.Queue)
		}
		if !was && inv.Detach {
			return false, usage("--detach only applies to runs queued on River")
		}
		river = was
	}
	return river, nil
}

// local does r's units on this process's pool, through the batch API first when the subject's
// settings say so, and ends the run.
func (inv *Invocation) local(ctx context.Context, st *store.Store, r *Run) (*Outcome, error) {
	local := inv.Local
	if r.Settings().Batch {
		poll := inv.BatchPoll
		if poll == 0 {
			poll = 30 * time.Second
		}
		progress := inv.Progress
		if progress == nil {
			progress = io.Discard
		}
		batch, err := batchrun.Wire(progress, st, r, poll)
		if err != nil {
			return nil, err
		}
		local.OnStart = chain(batch, local.OnStart)
	}
	out, err := r.Execute(ctx, local)
	if out == nil {
		return nil, err
	}
	out.DSN = st.DSN()
	switch res := out.Result; {
	case err != nil:
		out.Ending = EndFailed
		return out, err
	case res.BudgetStopped:
		out.Ending = EndBudget
		return out, nil
	case res.Interrupted:
		out.Ending = EndInterrupted
		return out, nil
	}
	return out, inv.end(ctx, st, r, out)
}

// chain calls first, then next (when set).
func chain(first, next func(context.Context, *store.Run, int, int) error) func(context.Context, *store.Run, int, int) error {
	return func(ctx context.Context, run *store.Run, cases, done int) error {
		if err := first(ctx, run, cases, done); err != nil || next == nil {
			return err
		}
		return next(ctx, run, cases, done)
	}
}

// river queues r's units on River and follows the run to its end (Local.Stop stops following),
// or returns once they are queued (Detach).
func (inv *Invocation) river(ctx context.Context, st *store.Store, r *Run) (*Outcome, error) {
	q, err := inv.OpenRiver(ctx, st)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	start := time.Now()
	out, err := r.Enqueue(ctx, q)
	if out == nil {
		return nil, err
	}
	out.DSN, out.River = st.DSN(), true
	if inv.OnQueued != nil {
		inv.OnQueued(out)
	}
	if inv.Detach {
		out.Ending = EndDetached
		return out, nil
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if stop := inv.Local.Stop; stop != nil {
		go func() {
			select {
			case <-stop:
				cancel()
			case <-fctx.Done():
			}
		}()
	}
	p, err := q.Follow(fctx, out.Run.ID, inv.FollowEvery, inv.Follow)
	out.Progress = p
	switch {
	case errors.Is(err, context.Canceled) && ctx.Err() == nil:
		out.Ending = EndUnfollowed
		return out, nil
	case err != nil:
		out.Ending = EndFailed
		return out, err
	}
	if out.Result, err = tally(context.WithoutCancel(ctx), st, out.Run.ID); err != nil {
		out.Ending = EndFailed
		return out, err
	}
	out.Result.Elapsed = time.Since(start)
	switch p.State {
	case store.StateCancelled:
		out.Ending = EndCancelled
		return out, nil
	case store.StateInterrupted:
		out.Ending = EndInterrupted
		if p.Budget != nil && p.Budget.Refused {
			out.Ending = EndBudget
		}
		return out, nil
	}
	return out, inv.end(ctx, st, r, out)
}

// tally sums a run's stored attempts: the usage of every attempt, and the units by the status
// of their scored verdict.
func tally(ctx context.Context, st *store.Store, runID string) (res engine.Result, err error) {
	if err := st.AllAttempts(ctx, runID, func(v verdict.Verdict) error {
		res.Usage.Add(v.Usage)
		return nil
	}); err != nil {
		return res, err
	}
	err = st.Labels(ctx, runID, func(v verdict.Verdict) error {
		res.Done++
		switch v.Status {
		case verdict.OK:
			res.OK++
		case verdict.Failed:
			res.Failed++
		default:
			res.Errors++
		}
		return nil
	})
	return res, err
}

// end writes a finished run's predictions (Out), finishes it (Finish) and scores it (Score), as
// score --run does.
func (inv *Invocation) end(ctx context.Context, st *store.Store, r *Run, out *Outcome) error {
	out.Ending = EndDone
	ctx = context.WithoutCancel(ctx)
	if inv.Out != "" {
		vs, err := report.Verdicts(ctx, st, r.ID())
		if err != nil {
			return err
		}
		if err := suite.WriteFileAtomic(inv.Out, func(w io.Writer) error { return verdict.WriteJSONL(w, vs) }); err != nil {
			return err
		}
	}
	if inv.Finish != nil {
		if err := inv.Finish(ctx, st, r.ID()); err != nil {
			return err
		}
	}
	if inv.Score == nil {
		return nil
	}
	rep, err := r.Score(ctx, inv.Score(r.Manifest()))
	if err != nil {
		return &ScoreError{Err: err}
	}
	out.Report = rep
	return nil
}

// ScoreError is a run that ended and could not be scored.
type ScoreError struct{ Err error }

func (e *ScoreError) Error() string { return e.Err.Error() }
func (e *ScoreError) Unwrap() error { return e.Err }
