package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/queue"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// followEvery is how often run --queue river reads the run's progress.
const followEvery = time.Second

// runRiver queues the run's units on River and follows it to the end (or returns, --detach).
func runRiver(ctx context.Context, e *env, st *store.Store, r *runner.Run, o *runOpts) error {
	q, err := queue.Open(ctx, st, queue.Options{DSN: o.db, Queue: o.riverQueue, Log: e.stderr})
	if err != nil {
		return &exitError{code: ExitFail, err: err}
	}
	defer q.Close()
	start := time.Now()
	out, err := r.Enqueue(ctx, q)
	if out == nil {
		return runFailure(e.stderr, err)
	}
	run := out.Run
	if o.after.raw != "" {
		fmt.Fprintf(e.stderr, "kept %d of %d cases dated after %s (%d without a date left out)\n", out.Cases, out.All, o.after.raw, out.Undated)
	}
	fmt.Fprintf(e.stderr, "run %s: %d units queued on River (queue %s); do them with: vulnbench worker --db %s\n",
		run.ID, out.Queued, o.riverQueue, st.DSN())
	if o.detach {
		fmt.Fprintln(e.stdout, run.ID)
		return nil
	}

	// Ctrl-C stops following; the run goes on with its workers.
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer onSignals(cancel, nil)()
	prog := newProgress(e.stderr, out.Queued)
	before := -1
	p, err := q.Follow(fctx, run.ID, followEvery, func(p queue.Progress) {
		if before < 0 {
			before = p.Stored
		}
		done := max(p.Stored-before, 0)
		prog.event(engine.Event{Done: done, Total: out.Queued, Err: p.Errs, Elapsed: time.Since(start)})
	})
	prog.finish()
	if errors.Is(err, context.Canceled) && ctx.Err() == nil {
		fmt.Fprintf(e.stderr, "run %s goes on with its workers: watch it with vulnbench runs --db %s; stop it with vulnbench stop %s --db %s\n",
			run.ID, st.DSN(), run.ID, st.DSN())
		return silentFail
	}
	if err != nil {
		return &exitError{code: ExitFail, err: err}
	}
	var res engine.Result
	if err := st.AllAttempts(context.WithoutCancel(ctx), run.ID, func(v verdict.Verdict) error {
		res.Usage.Add(v.Usage)
		return nil
	}); err != nil {
		return err
	}
	if err := st.Labels(context.WithoutCancel(ctx), run.ID, func(v verdict.Verdict) error {
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
	}); err != nil {
		return err
	}
	elapsed := time.Since(start)
	fmt.Fprintf(e.stderr, "run %s: %d units stored in %s by %d workers: %d ok, %d failed, %d errors\n", run.ID, res.Done,
		elapsed.Round(time.Millisecond), len(p.Workers), res.OK, res.Failed, res.Errors)
	printUsage(e.stderr, res.Usage, elapsed, out.Priced, out.PriceNote)
	switch p.State {
	case store.StateCancelled:
		fmt.Fprintf(e.stderr, "run %s: cancelled; what was stored is kept (vulnbench run --resume %s --db %s does the rest)\n", run.ID, run.ID, st.DSN())
		return silentFail
	case store.StateInterrupted:
		if p.Budget != nil && p.Budget.Refused {
			fmt.Fprintf(e.stderr, "\n*** STOPPED: --max-cost $%.4f reached (run total $%.4f); units not started are left for later.\n*** Resume with: vulnbench run --resume %s --db %s --max-cost HIGHER\n\n",
				p.Budget.Cap, p.Budget.Spent, run.ID, st.DSN())
		} else {
			fmt.Fprintf(e.stderr, "run %s: interrupted; resume with: vulnbench run --resume %s --db %s\n", run.ID, run.ID, st.DSN())
		}
		return silentFail
	}
	return printRunScore(ctx, e, st, o, r)
}
