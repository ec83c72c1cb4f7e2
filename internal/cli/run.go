package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/vulnbench/vulnbench/internal/batchrun"
	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/estimate"
	"github.com/vulnbench/vulnbench/internal/queue"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/runner"
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
` + subjectHelp(reg),
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
	addSubjectFlags(f, reg)
	o.scoreFlags.add(f)
	return c
}

// subjectHelp lists the subject kinds, each with the flags it reads: a flag is described under
// the first kind that reads it and named under the others.
func subjectHelp(reg *subject.Registry) string {
	var b strings.Builder
	described := map[string]bool{}
	for _, f := range reg.Factories() {
		fmt.Fprintf(&b, "  %-20s %s\n", f.Usage, f.Summary)
		own := pflag.NewFlagSet(f.Name, pflag.ContinueOnError)
		var again []string
		for _, fl := range f.Flags {
			switch {
			case fl.Hidden:
			case described[fl.Name]:
				again = append(again, "--"+fl.Name)
			default:
				described[fl.Name] = true
				addSubjectFlag(own, fl)
			}
		}
		for _, line := range strings.SplitAfter(own.FlagUsagesWrapped(0), "\n") {
			if line != "" {
				b.WriteString("      " + line)
			}
		}
		if len(again) > 0 {
			fmt.Fprintf(&b, "        also reads (see above): %s\n", strings.Join(again, " "))
		}
	}
	return b.String()
}

// addSubjectFlags registers every flag the subject kinds read, each once; subjectHelp describes
// them under their kinds, so the general flag list leaves them out.
func addSubjectFlags(f *pflag.FlagSet, reg *subject.Registry) {
	for _, fl := range reg.Flags() {
		addSubjectFlag(f, fl)
		_ = f.MarkHidden(fl.Name)
	}
}

func addSubjectFlag(f *pflag.FlagSet, fl subject.Flag) {
	switch d := fl.Default.(type) {
	case string:
		f.String(fl.Name, d, fl.Usage)
	case int:
		f.Int(fl.Name, d, fl.Usage)
	case int64:
		f.Int64(fl.Name, d, fl.Usage)
	case float64:
		f.Float64(fl.Name, d, fl.Usage)
	case bool:
		f.Bool(fl.Name, d, fl.Usage)
	case time.Duration:
		f.Duration(fl.Name, d, fl.Usage)
	default:
		panic(fmt.Sprintf("subject flag --%s: unsupported default %T", fl.Name, d))
	}
}

// subjectValues returns the values of f's flags as text, as the manifest keeps them (scrubbed),
// and as the subject reads them (not scrubbed).
func subjectValues(fs *pflag.FlagSet, fac subject.Factory) (stored, live runner.Values) {
	stored, live = runner.Values{}, runner.Values{}
	for _, fl := range fac.Flags {
		v := fs.Lookup(fl.Name).Value.String()
		live[fl.Name] = v
		if fl.Scrub != nil {
			v = fl.Scrub(v)
		}
		stored[fl.Name] = v
	}
	return stored, live
}

func runRun(ctx context.Context, e *env, reg *subject.Registry, o *runOpts, fs *pflag.FlagSet) error {
	changed := fs.Changed
	if err := o.scoreFlags.validate(); err != nil {
		return err
	}
	if o.estimate {
		return runEstimate(ctx, e, reg, o, fs)
	}
	if err := checkRunFlags(o); err != nil {
		return err
	}
	if o.resume == "" {
		if o.suite == "" || o.subject == "" {
			return usageErr("run needs --suite SUITE and --subject SPEC (or --resume RUN_ID)")
		}
		if changed("retry-errors") {
			return usageErr("--retry-errors only applies with --resume")
		}
		if err := runPreflight(ctx, e, reg, o, fs); err != nil {
			return err
		}
	} else if err := resumeFlags(fs, reg); err != nil {
		return err
	}
	open := store.Open
	if o.resume != "" {
		open = openExisting
	}
	st, err := open(ctx, o.db)
	if err != nil {
		return err
	}
	defer st.Close()
	st.SetRetry(o.storeRetry)

	host := runner.Host{Deps: subject.Deps{Cache: st, Getenv: os.Getenv, Reading: e.reading}, Repos: o.repos, SnapshotCache: o.snapCache,
		Concurrency: o.concurrency, MaxCost: o.maxCost}
	if host.Deps.Sandbox, err = openSandbox(ctx, o.sandbox, changed("sandbox"), e.stderr); err != nil {
		return err
	}
	r, live, err := openRun(ctx, st, reg, o, fs, host)
	if err != nil {
		return runFailure(e.stderr, err)
	}
	defer r.Close()
	if err := foreignFlags(fs, reg, r.Factory()); err != nil {
		return err
	}
	if o.resume != "" {
		if err := resumeQueue(r, o, changed("queue")); err != nil {
			return err
		}
	}
	if o.queue == store.QueueRiver {
		if live["batch"] == "true" {
			return usageErr("%v", errBatchQueue)
		}
		return runRiver(ctx, e, st, r, o)
	}

	// First signal: stop starting units. Second: abandon those in flight.
	stop := make(chan struct{})
	hardCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer onSignals(func() {
		fmt.Fprintln(e.stderr, "\nvulnbench: stopping: finishing the cases in flight (press Ctrl-C again to abandon them)")
		close(stop)
	}, cancel)()
	local, finish := runProgress(e, o, r)
	local.Stop = stop
	if live["batch"] == "true" {
		batch, err := batchrun.Wire(e.stderr, st, r, o.batchPoll, live)
		if err != nil {
			return &exitError{code: ExitFail, err: err}
		}
		local.OnStart = chain(batch, local.OnStart)
	}
	out, runErr := r.Execute(hardCtx, local)
	finish()
	if out == nil {
		return runFailure(e.stderr, runErr)
	}
	return reportRun(ctx, e, st, o, r, out, runErr)
}

// openRun creates the run the flags describe, or resumes the one --resume names (its settings
// the manifest's, but for the flags that may change on a resume); live are the subject's flag
// values as it reads them.
func openRun(ctx context.Context, st *store.Store, reg *subject.Registry, o *runOpts, fs *pflag.FlagSet, host runner.Host) (*runner.Run, runner.Values, error) {
	if o.resume != "" {
		ov := runner.Overrides{Registry: reg, RetryErrors: o.retryErrors, Host: host, Flags: map[string]string{}}
		for _, fl := range reg.Flags() {
			if fl.Resumable && fs.Changed(fl.Name) {
				ov.Flags[fl.Name] = fs.Lookup(fl.Name).Value.String()
			}
		}
		if fs.Changed("timeout") {
			ov.Timeout = o.timeout
		}
		if fs.Changed("max-steps") || fs.Changed("unit-max-tokens") || fs.Changed("unit-max-cost") {
			ov.Limits = &subject.Limits{Steps: o.maxSteps, Tokens: o.unitTokens, CostUSD: o.unitCost}
		}
		r, err := runner.Resume(ctx, st, o.resume, ov)
		if err != nil {
			return nil, nil, err
		}
		o.subject, o.after.raw = r.Manifest().Subject, r.Manifest().After
		return r, runner.Values(r.Manifest().FlagValues()), nil
	}
	fac, arg, err := reg.Lookup(o.subject)
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	if err := subject.CheckNeeds(fac); err != nil {
		return nil, nil, err
	}
	stored, live := subjectValues(fs, fac)
	cfg, err := fac.Configure(arg, live)
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	recorded, err := fac.Configure(arg, stored) // what the manifest keeps: no secret
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	r, err := runner.Create(ctx, st, runner.Spec{Version: version.String(), RunID: o.runID, Suite: o.suite, After: o.after.raw,
		Subject: runner.Subject{Factory: fac, Spec: o.subject, Config: cfg, Recorded: recorded, Flags: stored},
		Repeats: o.repeats, Timeout: o.timeout, Limits: subject.Limits{Steps: o.maxSteps, Tokens: o.unitTokens, CostUSD: o.unitCost},
		SkipUnsupported: o.skipUnsupported, Host: host})
	return r, live, err
}

// resumeQueue keeps a resumed run on the queue it went to.
func resumeQueue(r *runner.Run, o *runOpts, given bool) error {
	rec := r.Record()
	river := rec.Queue == store.QueueRiver
	if given && river != (o.queue == store.QueueRiver) {
		return usageErr("--queue cannot change on --resume: run %s went to the %s queue", rec.ID, rec.Queue)
	}
	if river {
		o.queue = store.QueueRiver
	} else if o.detach {
		return usageErr("--detach only applies to runs queued on River")
	}
	return nil
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

// runProgress prints the run's start and its progress on stderr; finish ends the progress line.
func runProgress(e *env, o *runOpts, r *runner.Run) (local runner.Local, finish func()) {
	var prog *progress
	local.OnStart = func(_ context.Context, run *store.Run, cases, done int) error {
		if o.resume != "" {
			fmt.Fprintf(e.stderr, "run %s: resuming, %d of %d units already stored\n", run.ID, done, run.Units)
		} else {
			fmt.Fprintf(e.stderr, "run %s: %s on %s (%d cases × %d repeats)\n", run.ID, o.subject, o.suite, cases, r.Repeats())
		}
		prog = newProgress(e.stderr, run.Units-done)
		return nil
	}
	local.OnEvent = func(ev engine.Event) {
		if prog != nil {
			prog.event(ev)
		}
	}
	return local, func() {
		if prog != nil {
			prog.finish()
		}
	}
}

// reportRun says on stderr how the run ended and prints its score; the error is the run's exit.
func reportRun(ctx context.Context, e *env, st *store.Store, o *runOpts, r *runner.Run, out *runner.Outcome, runErr error) error {
	if o.after.raw != "" {
		fmt.Fprintf(e.stderr, "kept %d of %d cases dated after %s (%d without a date left out)\n", out.Cases, out.All, o.after.raw, out.Undated)
	}
	run, res := out.Run, out.Result
	if runErr != nil {
		return fmt.Errorf("%w (stored attempts are kept: vulnbench run --resume %s --db %s)", runErr, run.ID, o.db)
	}
	fmt.Fprintf(e.stderr, "run %s: %d units in %s: %d ok, %d failed, %d errors\n", run.ID, res.Done, res.Elapsed.Round(time.Millisecond), res.OK, res.Failed, res.Errors)
	if out.Unsupported > 0 {
		fmt.Fprintf(e.stderr, "run %s: %d cases the subject cannot judge were given error verdicts (--skip-unsupported)\n", run.ID, out.Unsupported)
	}
	printUsage(e.stderr, res.Usage, res.Elapsed, out.Priced, out.PriceNote)
	if res.BudgetStopped {
		fmt.Fprintf(e.stderr, "\n*** STOPPED: --max-cost $%.4f reached (run total $%.4f); cases not started are left for later.\n*** Resume with: vulnbench run --resume %s --db %s --max-cost HIGHER\n\n",
			o.maxCost, out.Budget.Spent(), run.ID, o.db)
		return silentFail
	}
	if res.Interrupted {
		fmt.Fprintf(e.stderr, "run %s: interrupted; resume with: vulnbench run --resume %s --db %s\n", run.ID, run.ID, o.db)
		return silentFail
	}
	if err := printRunScore(ctx, e, st, o, r); err != nil {
		return err
	}
	if res.OK+res.Failed == 0 && res.Errors > 0 && out.Scored == 0 {
		return &exitError{code: ExitFail, err: errors.New("every case ended in an error; see the reasons with: vulnbench run --out FILE or the store")}
	}
	return nil
}

// printRunScore writes the run's predictions (--out) and prints its id and score table, scored
// as score --run scores it.
func printRunScore(ctx context.Context, e *env, st *store.Store, o *runOpts, r *runner.Run) error {
	if o.out != "" {
		if err := writeRunPredictions(ctx, st, r.ID(), o.out); err != nil {
			return err
		}
	}
	if o.fixChecks {
		if err := checkFixes(context.WithoutCancel(ctx), e, st, r.ID(), 0); err != nil {
			return &exitError{code: ExitFail, err: err}
		}
	}
	fmt.Fprintf(e.stdout, "run %s: %s on %s\n", r.ID(), r.Manifest().Subject, r.Manifest().Suite.Path)
	if o.noScore {
		return nil
	}
	o.scoreFlags.ciSeed = seedOf(r.Manifest().FlagValues())
	sc := o.scoreFlags.scoring()
	rep, err := r.Score(context.WithoutCancel(ctx), report.Request{Score: sc.opt, CI: sc.ci, Reading: e.reading})
	if err != nil {
		return &exitError{code: ExitFail, err: err}
	}
	printNotes(e.stderr, rep.Notes()) // the kept count was printed above
	return writeScores(e.stdout, o.format, rep)
}

// seedOf is the seed the bootstrap uses: the run's --seed.
func seedOf(flags map[string]string) uint64 {
	n, err := strconv.ParseUint(flags["seed"], 10, 64)
	if err != nil {
		return 42
	}
	return n
}

// runFailure renders a run that did not start: the suite's problems, or the reason.
func runFailure(w io.Writer, err error) error {
	var se *runner.SuiteError
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return err
	case errors.As(err, &se):
		reportProblems(w, se.Problems, 20)
		return &exitError{code: ExitFail, err: err}
	case errors.Is(err, runner.ErrUnpriced):
		return usageErr("%v", err)
	}
	return &exitError{code: ExitFail, err: err}
}

// foreignFlags refuses subject flags given to a subject that does not read them: a typo'd
// subject or a forgotten --subject would otherwise run with the flag silently ignored.
func foreignFlags(fs *pflag.FlagSet, reg *subject.Registry, fac subject.Factory) error {
	own := map[string]bool{}
	for _, fl := range fac.Flags {
		own[fl.Name] = true
	}
	for _, fl := range reg.Flags() {
		if !fs.Changed(fl.Name) || own[fl.Name] {
			continue
		}
		var users []string
		for _, f := range reg.Factories() {
			for _, x := range f.Flags {
				if x.Name == fl.Name {
					users = append(users, f.Name)
				}
			}
		}
		return usageErr("--%s does not apply to subject %s (it is read by: %s)", fl.Name, fac.Name, strings.Join(users, ", "))
	}
	return nil
}

// resumeFlags refuses flags that cannot change on --resume: the run keeps the settings it
// started with.
func resumeFlags(fs *pflag.FlagSet, reg *subject.Registry) error {
	fixed := []string{"subject", "repeats", "after", "skip-unsupported"}
	for _, fl := range reg.Flags() {
		if !fl.Resumable {
			fixed = append(fixed, fl.Name)
		}
	}
	sort.Strings(fixed)
	for _, name := range fixed {
		if fs.Changed(name) {
			return usageErr("--%s cannot change on --resume: the run keeps the settings it started with (vulnbench runs --db DB shows them)", name)
		}
	}
	return nil
}
