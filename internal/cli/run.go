package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/estimate"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/preflight"
	"github.com/vulnbench/vulnbench/internal/queue"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/builtin"
	"github.com/vulnbench/vulnbench/internal/textnorm"
	"github.com/vulnbench/vulnbench/internal/version"
)

type runOpts struct {
	suite, subject, db, resume, out, runID string
	repos, snapCache                       string
	sandbox                                sandboxOpts
	concurrency, repeats, maxSteps         int
	timeout, batchPoll                     time.Duration
	storeRetry                             time.Duration
	unitTokens                             int64
	unitCost, maxCost                      float64
	retryErrors, noScore, skipUnsupported  bool
	fixChecks                              bool
	queue, riverQueue                      string
	detach, estimate                       bool
	scoreFlags
}

func newRunCmd(e *env) *cobra.Command {
	o := &runOpts{}
	reg := builtin.Registry()
	c := &cobra.Command{
		Use:   "run --suite SUITE --subject SPEC",
		Short: "Run a subject on every case of a suite, storing each attempt as it completes",
		Long: `Runs a subject on every (case, repeat) of a suite with a bounded pool of workers. The suite is
checked first (schema, ids, pairs, and whether the subject can judge every case's kind and
language); nothing is stored when it fails. The suite's cases are stored with the run, and each
attempt is committed to the store (--db) as soon as it completes, with its trace, so nothing
finished is ever lost: after a crash, Ctrl-C or kill, resume with --resume RUN_ID and only the
missing units are done. A case whose subject fails gets status error with the reason, and the run
goes on; only a fault every case would hit (a rejected API key, an unknown model) stops it.
--resume --retry-errors tries the error units again; earlier attempts are kept, never overwritten.

--max-cost is checked before every model call, counting every attempt of the run.

--queue river spreads the run over workers: the run, its cases and one River job per (case,
repeat) are stored in one transaction, and vulnbench worker processes on any hosts that reach the
store (--db postgres://..., or one SQLite file on one host) do the units. run then follows the
run's progress and prints the score as usual (Ctrl-C stops following, not the run), or returns at
once with --detach. --max-cost becomes a ledger every worker reserves from, --rpm a rate they
share; vulnbench stop, cancel and runs work from any host, and --resume enqueues only the missing
units.

Ctrl-C (or SIGTERM) once: start nothing new, finish what is in flight, stop. Twice: abandon the
cases in flight too (they are not stored, so a resume does them again).

At the end run prints the run id, the score table and the usage.

Subjects:
` + reg.Help(),
		Example: `  vulnbench run --suite suites/demo/demo.jsonl --subject flawfinder
  vulnbench run --suite suites/demo/demo.jsonl --subject random --seed 7 --repeats 3
  vulnbench run --suite primevul-test.jsonl --subject predictions:predictions.txt
  vulnbench run --suite appsec/suite.jsonl --subject flawfinder --skip-unsupported
  vulnbench run --resume 20261129T201500-3f9a`,
		Args: exactArgs(0, "no arguments (use --suite and --subject)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRun(cmd.Context(), e, reg, o, cmd.Flags())
		},
	}
	f := c.Flags()
	f.StringVar(&o.suite, "suite", "", "suite file (JSONL)")
	f.StringVar(&o.subject, "subject", "", "what to run (see the list above)")
	f.StringVar(&o.db, "db", "vulnbench.db", "store: a SQLite file path, or a postgres:// URL")
	f.IntVar(&o.concurrency, "concurrency", 4, "cases judged at once")
	f.IntVar(&o.repeats, "repeats", 1, "times each case is judged (scores show mean and std)")
	f.DurationVar(&o.timeout, "timeout", 10*time.Minute, "limit per attempt; an attempt over it gets status error and keeps its trace and spend")
	f.DurationVar(&o.storeRetry, "store-retry", store.DefaultRetry, "how long store writes keep trying through a database outage (a restarted Postgres) before the run fails (0: not at all)")
	f.StringVar(&o.runID, "run-id", "", "id for the new run (default: start time and a random suffix)")
	f.StringVar(&o.resume, "resume", "", "resume run RUN_ID: do only the (case, repeat) units not yet stored")
	f.BoolVar(&o.retryErrors, "retry-errors", false, "with --resume, also redo units whose latest attempt is an error (as a new attempt)")
	f.BoolVar(&o.skipUnsupported, "skip-unsupported", false, "give cases the subject cannot judge (kind or language) error verdicts that say why, instead of refusing the suite")
	f.BoolVar(&o.noScore, "no-score", false, "skip the score table at the end (score later with vulnbench score)")
	f.BoolVar(&o.fixChecks, "fix-checks", true, "AppSecBench suites: at the end, check the fix each answer proposes (parser, scanners on PATH, in the sandbox) and store the checks with the attempts (vulnbench grade makes them later)")
	f.StringVar(&o.out, "out", "", "also write the run's verdicts as predictions JSONL to this file")
	f.Float64Var(&o.maxCost, "max-cost", 0, "stop once the run's cost (every attempt, and the calls in flight) reaches this many USD; checked before every model call; resumable")
	f.StringVar(&o.repos, "repos", "", "where the cases' repositories are cloned: a case's https://HOST/OWNER/NAME is found at DIR/HOST/OWNER/NAME, DIR/OWNER/NAME, DIR/OWNER+NAME or DIR/NAME (each also with .git)")
	o.sandbox.register(f, sandboxUsage)
	f.StringVar(&o.snapCache, "snapshot-cache", "", "where repositories are materialised at their commits, without .git (default: the user's cache directory, vulnbench/snapshots)")
	f.IntVar(&o.maxSteps, "max-steps", 0, "limit of model calls per attempt (0: none)")
	f.Int64Var(&o.unitTokens, "unit-max-tokens", 0, "limit of tokens (in + out) per attempt (0: none)")
	f.Float64Var(&o.unitCost, "unit-max-cost", 0, "limit of USD per attempt (0: none)")
	f.StringVar(&o.queue, "queue", store.QueueLocal, "where the units are done: local (this process's pool) or river (workers on any host: vulnbench worker; see --help)")
	f.StringVar(&o.riverQueue, "river-queue", queue.DefaultQueue, "with --queue river: the River queue the units go to (workers take from theirs with --queues)")
	f.BoolVar(&o.detach, "detach", false, "with --queue river: return once the units are queued, without following the run (watch it with vulnbench runs)")
	f.DurationVar(&o.batchPoll, "batch-poll", 30*time.Second, "with --batch: time between polls of the batches in flight")
	_ = f.MarkHidden("batch-poll")
	f.BoolVar(&o.estimate, "estimate", false, "make no run and call no model: print the tokens, cost (list and batch prices) and time the run would take (its table in any "+formatUsage(estimate.Rows{})+")")
	reg.AddFlags(f)
	o.scoreFlags.add(f)
	return c
}

func runRun(ctx context.Context, e *env, reg *subject.Registry, o *runOpts, fs *pflag.FlagSet) error {
	if err := o.scoreFlags.validate(); err != nil {
		return err
	}
	if o.estimate {
		return runEstimate(ctx, e, reg, o, fs)
	}
	inv, err := invocation(e, reg, o, fs)
	if err != nil {
		return err
	}
	// First signal: stop starting units (a river run: stop following it). Second: abandon those
	// in flight.
	stop := make(chan struct{})
	hardCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var river atomic.Bool // a river run: the first signal stops following it, quietly
	defer onSignals(func() {
		if !river.Load() {
			fmt.Fprintln(e.stderr, "\nvulnbench: stopping: finishing the cases in flight (press Ctrl-C again to abandon them)")
		}
		close(stop)
	}, cancel)()
	var prog *progress
	inv.Local = runProgress(e, o, &prog)
	inv.Local.Stop = stop
	start, before, total := time.Now(), -1, 0
	inv.OnQueued = func(out *runner.Outcome) {
		river.Store(true)
		total = out.Queued
		keptLine(e, o, out)
		fmt.Fprintf(e.stderr, "run %s: %d units queued on River (queue %s); do them with: vulnbench worker --db %s\n",
			out.Run.ID, out.Queued, o.riverQueue, out.DSN)
		if !o.detach {
			prog = newProgress(e.stderr, out.Queued)
		}
	}
	inv.Follow = func(p runner.Progress) {
		if before < 0 {
			before = p.Stored
		}
		prog.event(engine.Event{Done: max(p.Stored-before, 0), Total: total, Err: p.Errs, Elapsed: time.Since(start)})
	}
	out, err := runner.Invoke(hardCtx, inv)
	if prog != nil {
		prog.finish()
	}
	return renderRun(e, o, out, err)
}

// invocation is the run the flags describe: a new one (the subject's flags checked, its values
// as given and as the manifest keeps them), or the resume of --resume (the flags that may
// change on a resume).
func invocation(e *env, reg *subject.Registry, o *runOpts, fs *pflag.FlagSet) (runner.Invocation, error) {
	changed := fs.Changed
	if err := checkRunFlags(o); err != nil {
		return runner.Invocation{}, err
	}
	inv := runner.Invocation{Detach: o.detach, BatchPoll: o.batchPoll, Progress: e.stderr, FollowEvery: followEvery, Out: o.out,
		Host: runner.Host{Deps: subject.Deps{Getenv: os.Getenv, Reading: e.reading}, Repos: o.repos, SnapshotCache: o.snapCache,
			Concurrency: o.concurrency, MaxCost: o.maxCost},
		Warn: func(w string) { fmt.Fprintf(e.stderr, "vulnbench: warning: %s\n", w) },
		OpenSandbox: func(ctx context.Context) (*sandbox.Sandbox, error) {
			return openSandbox(ctx, o.sandbox, changed("sandbox"), e.stderr)
		},
		OpenRiver: func(ctx context.Context, st *store.Store) (runner.River, error) {
			q, err := queue.Open(ctx, st, queue.Options{DSN: o.db, Queue: o.riverQueue, Log: e.stderr})
			if err != nil {
				return nil, &exitError{code: ExitFail, err: err}
			}
			return q, nil
		}}
	if changed("queue") || o.resume == "" {
		inv.Queue = o.queue
	}
	if o.fixChecks {
		inv.Finish = func(ctx context.Context, st *store.Store, runID string) error {
			return checkFixes(ctx, e, st, runID, 0)
		}
	}
	if !o.noScore {
		inv.Score = func(m *manifest.Manifest) report.Request {
			o.scoreFlags.ciSeed = 42 // the run's --seed, where it draws random numbers
			if s := m.Settings().Seed; s != nil {
				o.scoreFlags.ciSeed = uint64(*s)
			}
			sc := o.scoreFlags.scoring()
			return report.Request{Score: sc.opt, CI: sc.ci, Reading: e.reading}
		}
	}
	if o.resume != "" {
		if err := reg.Fixed(changed, "subject", "repeats", "after", "skip-unsupported"); err != nil {
			return inv, usageErr("%v", err)
		}
		inv.Resume, inv.OpenStore = o.resume, storeOpener(openExisting, o)
		inv.Overrides = runner.Overrides{Registry: reg, RetryErrors: o.retryErrors, Flags: map[string]string{}}
		for _, fl := range reg.Flags() {
			if fl.Resumable && changed(fl.Name) {
				inv.Overrides.Flags[fl.Name] = fs.Lookup(fl.Name).Value.String()
			}
		}
		if changed("timeout") {
			inv.Overrides.Timeout = o.timeout
		}
		if changed("max-steps") || changed("unit-max-tokens") || changed("unit-max-cost") {
			inv.Overrides.Limits = &subject.Limits{Steps: o.maxSteps, Tokens: o.unitTokens, CostUSD: o.unitCost}
		}
		return inv, nil
	}
	switch {
	case o.suite == "" || o.subject == "":
		return inv, usageErr("run needs --suite SUITE and --subject SPEC (or --resume RUN_ID)")
	case changed("retry-errors"):
		return inv, usageErr("--retry-errors only applies with --resume")
	}
	fac, arg, err := reg.Lookup(o.subject)
	if err != nil {
		return inv, usageErr("%v", err)
	}
	if err := reg.Foreign(fac, changed); err != nil {
		return inv, usageErr("%v", err)
	}
	stored, live := fac.ValuesOf(fs)
	inv.OpenStore = storeOpener(store.Open, o)
	inv.New = &runner.Spec{Version: version.String(), RunID: o.runID, Suite: o.suite, After: o.after.raw,
		Subject: runner.Subject{Factory: fac, Spec: o.subject, Arg: arg, Values: live, Flags: stored},
		Repeats: o.repeats, Timeout: o.timeout, Limits: subject.Limits{Steps: o.maxSteps, Tokens: o.unitTokens, CostUSD: o.unitCost},
		SkipUnsupported: o.skipUnsupported}
	return inv, nil
}

// followEvery is how often run --queue river reads the run's progress.
const followEvery = time.Second

// storeOpener opens --db with open and sets its --store-retry.
func storeOpener(open func(context.Context, string) (*store.Store, error), o *runOpts) func(context.Context) (*store.Store, error) {
	return func(ctx context.Context) (*store.Store, error) {
		st, err := open(ctx, o.db)
		if err != nil {
			return nil, err
		}
		st.SetRetry(o.storeRetry)
		return st, nil
	}
}

// checkRunFlags refuses the flag values no run takes.
func checkRunFlags(o *runOpts) error {
	switch {
	case o.concurrency < 1 || o.repeats < 1:
		return usageErr("--concurrency and --repeats must be at least 1")
	case !(o.maxCost >= 0) || o.maxCost > 1e12:
		return usageErr("--max-cost %v is not a number of USD (0 for no cap)", o.maxCost)
	case !(o.unitCost >= 0) || o.unitCost > 1e12 || o.maxSteps < 0 || o.unitTokens < 0:
		return usageErr("--max-steps, --unit-max-tokens and --unit-max-cost cannot be negative")
	case o.runID != "" && textnorm.CheckID(o.runID) != nil: // issue 25: ids are printable
		return usageErr("--run-id: %v", textnorm.CheckID(o.runID))
	}
	switch {
	case o.queue != store.QueueLocal && o.queue != store.QueueRiver:
		return usageErr("--queue %q is not local or river", o.queue)
	case o.detach && o.queue != store.QueueRiver && o.resume == "":
		return usageErr("--detach only applies with --queue river")
	}
	return nil
}

// runProgress prints the local pool's start and its progress on stderr (into *prog).
func runProgress(e *env, o *runOpts, prog **progress) (local runner.Local) {
	local.OnStart = func(_ context.Context, run *store.Run, cases, done int) error {
		if o.resume != "" {
			fmt.Fprintf(e.stderr, "run %s: resuming, %d of %d units already stored\n", run.ID, done, run.Units)
		} else {
			fmt.Fprintf(e.stderr, "run %s: %s on %s (%d cases × %d repeats)\n", run.ID, o.subject, o.suite, cases, run.Repeats)
		}
		*prog = newProgress(e.stderr, run.Units-done)
		return nil
	}
	local.OnEvent = func(ev engine.Event) {
		if *prog != nil {
			(*prog).event(ev)
		}
	}
	return local
}

// keptLine says how many cases --after kept.
func keptLine(e *env, o *runOpts, out *runner.Outcome) {
	if after := out.Manifest.After; after != "" {
		fmt.Fprintf(e.stderr, "kept %d of %d cases dated after %s (%d without a date left out)\n", out.Cases, out.All, after, out.Undated)
	}
}

// renderRun says on stderr how the run ended and prints its score; the error is the run's exit.
func renderRun(e *env, o *runOpts, out *runner.Outcome, err error) error {
	if out == nil {
		return runFailure(e.stderr, err)
	}
	run, res := out.Run, out.Result
	resume := fmt.Sprintf("vulnbench run --resume %s --db %s", run.ID, out.DSN)
	switch out.Ending {
	case runner.EndDetached:
		fmt.Fprintln(e.stdout, run.ID)
		return nil
	case runner.EndUnfollowed:
		fmt.Fprintf(e.stderr, "run %s goes on with its workers: watch it with vulnbench runs --db %s; stop it with vulnbench stop %s --db %s\n",
			run.ID, out.DSN, run.ID, out.DSN)
		return silentFail
	case runner.EndFailed:
		if out.River {
			return &exitError{code: ExitFail, err: err}
		}
		keptLine(e, o, out)
		return fmt.Errorf("%w (stored attempts are kept: %s)", err, resume)
	}
	if !out.River {
		keptLine(e, o, out)
		fmt.Fprintf(e.stderr, "run %s: %d units in %s: %d ok, %d failed, %d errors\n", run.ID, res.Done, res.Elapsed.Round(time.Millisecond), res.OK, res.Failed, res.Errors)
		if out.Unsupported > 0 {
			fmt.Fprintf(e.stderr, "run %s: %d cases the subject cannot judge were given error verdicts (--skip-unsupported)\n", run.ID, out.Unsupported)
		}
	} else {
		fmt.Fprintf(e.stderr, "run %s: %d units stored in %s by %d workers: %d ok, %d failed, %d errors\n", run.ID, res.Done,
			res.Elapsed.Round(time.Millisecond), len(out.Progress.Workers), res.OK, res.Failed, res.Errors)
	}
	printUsage(e.stderr, res.Usage, res.Elapsed, out.Priced, out.PriceNote)
	switch out.Ending {
	case runner.EndBudget:
		capUSD, spent, left := o.maxCost, 0.0, "cases"
		if out.Budget != nil {
			spent = out.Budget.Spent()
		}
		if b := out.Progress.Budget; out.River && b != nil {
			capUSD, spent, left = b.Cap, b.Spent, "units"
		}
		fmt.Fprintf(e.stderr, "\n*** STOPPED: --max-cost $%.4f reached (run total $%.4f); %s not started are left for later.\n*** Resume with: %s --max-cost HIGHER\n\n",
			capUSD, spent, left, resume)
		return silentFail
	case runner.EndCancelled:
		fmt.Fprintf(e.stderr, "run %s: cancelled; what was stored is kept (%s does the rest)\n", run.ID, resume)
		return silentFail
	case runner.EndInterrupted:
		fmt.Fprintf(e.stderr, "run %s: interrupted; resume with: %s\n", run.ID, resume)
		return silentFail
	}
	var se *runner.ScoreError
	if err != nil && !errors.As(err, &se) {
		return err // the predictions file could not be written
	}
	fmt.Fprintf(e.stdout, "run %s: %s on %s\n", run.ID, out.Manifest.Subject, out.Manifest.Suite.Path)
	if se != nil {
		return &exitError{code: ExitFail, err: se.Err}
	}
	if out.Report != nil {
		printNotes(e.stderr, out.Report.Notes()) // the kept count was printed above
		if err := writeScores(e.stdout, o.format, out.Report); err != nil {
			return err
		}
	}
	if !out.River && res.OK+res.Failed == 0 && res.Errors > 0 && out.Scored == 0 {
		return &exitError{code: ExitFail, err: errors.New("every case ended in an error; see the reasons with: vulnbench run --out FILE or the store")}
	}
	return nil
}

// runFailure renders a run that did not start: the suite's problems, or the reason.
func runFailure(w io.Writer, err error) error {
	var se *runner.SuiteError
	var ee *exitError
	var ue *runner.UsageError
	var pe *preflight.Error
	switch {
	case errors.As(err, &ee):
		return err
	case errors.As(err, &ue), errors.As(err, &pe):
		return &exitError{code: ExitUsage, err: err}
	case errors.As(err, &se):
		reportProblems(w, se.Problems, 20)
		return &exitError{code: ExitFail, err: err}
	case errors.Is(err, runner.ErrUnpriced):
		return usageErr("%v", err)
	}
	return &exitError{code: ExitFail, err: err}
}
