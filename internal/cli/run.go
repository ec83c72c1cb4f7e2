package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

type runOpts struct {
	suite, subject, db, resume, out, runID string
	concurrency, repeats, minLevel         int
	seed                                   int64
	timeout, delay                         time.Duration
	retryErrors, noScore                   bool
	scoreFlags
	llm llmFlags
}

func newRunCmd(e *env) *cobra.Command {
	o := &runOpts{}
	reg := subject.Builtin()
	c := &cobra.Command{
		Use:   "run --suite SUITE --subject SPEC",
		Short: "Run a subject on every case of a suite, storing each verdict as it completes",
		Long: `Runs a subject on every (case, repeat) of a suite with a bounded pool of workers. Each verdict
is committed to the store (--db) as soon as it completes, so nothing finished is ever lost: after a
crash, Ctrl-C or kill, resume with --resume RUN_ID and only the missing units are done.
A case whose subject fails gets status error with the reason, and the run goes on.

Ctrl-C (or SIGTERM) once: start nothing new, finish what is in flight, stop. Twice: abandon the
cases in flight too (they are not stored, so a resume does them again).

At the end run prints the run id, the score table and the usage.

Subjects:
` + subjectHelp(reg),
		Example: `  vulnbench run --suite suites/demo/demo.jsonl --subject flawfinder
  vulnbench run --suite suites/demo/demo.jsonl --subject random --seed 7 --repeats 3
  vulnbench run --suite primevul-test.jsonl --subject predictions:predictions.txt
  vulnbench run --resume 20261129T201500-3f9a`,
		Args: exactArgs(0, "no arguments (use --suite and --subject)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRun(cmd.Context(), e, reg, o, cmd.Flags().Changed)
		},
	}
	f := c.Flags()
	f.StringVar(&o.suite, "suite", "", "suite file (JSONL)")
	f.StringVar(&o.subject, "subject", "", "what to run (see the list above)")
	f.StringVar(&o.db, "db", "vulnbench.db", "store: a SQLite file path")
	f.IntVar(&o.concurrency, "concurrency", 4, "cases judged at once")
	f.IntVar(&o.repeats, "repeats", 1, "times each case is judged (scores show mean and std)")
	f.DurationVar(&o.timeout, "timeout", 10*time.Minute, "limit per case; a case over it gets status error")
	f.StringVar(&o.runID, "run-id", "", "id for the new run (default: start time and a random suffix)")
	f.StringVar(&o.resume, "resume", "", "resume run RUN_ID: do only the (case, repeat) units not yet stored")
	f.BoolVar(&o.retryErrors, "retry-errors", false, "with --resume, also redo units whose verdict is an error")
	f.Int64Var(&o.seed, "seed", 42, "seed for subjects that draw random numbers")
	f.IntVar(&o.minLevel, "min-level", 1, "flawfinder: lowest hit level (0-5) that makes a case vul")
	f.BoolVar(&o.noScore, "no-score", false, "skip the score table at the end (score later with vulnbench score)")
	f.StringVar(&o.out, "out", "", "also write the run's verdicts as predictions JSONL to this file")
	f.DurationVar(&o.delay, "delay", 0, "wait this long before each predictions answer (for tests)")
	_ = f.MarkHidden("delay")
	o.scoreFlags.add(f)
	o.llm.add(f)
	return c
}

func subjectHelp(reg *subject.Registry) string {
	s := ""
	for _, f := range reg.Factories() {
		s += fmt.Sprintf("  %-20s %s\n", f.Usage, f.Summary)
	}
	return s
}

func runRun(ctx context.Context, e *env, reg *subject.Registry, o *runOpts, changed func(string) bool) error {
	if err := o.scoreFlags.validate(); err != nil {
		return err
	}
	if err := o.llm.validate(); err != nil {
		return err
	}
	if o.concurrency < 1 || o.repeats < 1 {
		return usageErr("--concurrency and --repeats must be at least 1")
	}
	if o.resume == "" {
		if o.suite == "" || o.subject == "" {
			return usageErr("run needs --suite SUITE and --subject SPEC (or --resume RUN_ID)")
		}
		if changed("retry-errors") {
			return usageErr("--retry-errors only applies with --resume")
		}
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

	var run *store.Run
	var man engine.Manifest
	if o.resume != "" {
		if run, err = st.GetRun(ctx, o.resume); err != nil {
			return err
		}
		if err := json.Unmarshal(run.Manifest, &man); err != nil {
			return fmt.Errorf("run %s: unreadable manifest: %w", run.ID, err)
		}
		for _, fl := range append([]string{"subject", "repeats", "seed", "min-level", "after"}, llmFlagNames...) {
			if changed(fl) {
				return usageErr("--%s cannot change on --resume: run %s keeps the settings it started with", fl, run.ID)
			}
		}
		if !changed("suite") {
			o.suite = man.Suite.Path
		}
		o.subject, o.repeats, o.seed, o.minLevel = man.Subject, man.Repeats, man.Seed, man.MinLevel
		o.llm.restore(man.LLM)
		if man.After != "" {
			o.after.raw = man.After
			if err := o.after.validate(); err != nil {
				return err
			}
		}
	} else if o.runID != "" {
		if _, err := st.GetRun(ctx, o.runID); err == nil {
			return usageErr("run %s already exists in %s: resume it with --resume %s, or pick another --run-id", o.runID, o.db, o.runID)
		}
	}

	fac, arg, err := reg.Lookup(o.subject)
	if err != nil {
		return usageErr("%v", err)
	}
	if err := subject.CheckNeeds(fac); err != nil {
		return err
	}

	// Check the whole suite before anything is stored.
	var nCases, nAll, nUndated int
	kinds := map[suite.Kind]int{}
	hash, problems, err := suite.Scan(o.suite, true, func(c *suite.Case, _ int) error {
		nAll++
		if !o.after.keep(c) {
			if c.Date == "" {
				nUndated++
			}
			return nil
		}
		nCases++
		kinds[c.Kind]++
		return nil
	})
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		reportProblems(e.stderr, problems, 20)
		return &exitError{code: ExitFail, err: fmt.Errorf("%s: %d problems; nothing was run (vulnbench suite validate %s lists them all)", o.suite, len(problems), o.suite)}
	}
	if o.after.raw != "" {
		fmt.Fprintf(e.stderr, "kept %d of %d cases dated after %s (%d without a date left out)\n", nCases, nAll, o.after.raw, nUndated)
		if nCases == 0 {
			return &exitError{code: ExitFail, err: fmt.Errorf("%s: no case is dated after %s", o.suite, o.after.raw)}
		}
	}
	if nCases == 0 {
		return &exitError{code: ExitFail, err: fmt.Errorf("%s: the suite has no cases", o.suite)}
	}
	for k, n := range kinds {
		if !fac.Supports(k) {
			return &exitError{code: ExitFail, err: fmt.Errorf("subject %s cannot judge %s cases (%d in %s)", fac.Name, k, n, o.suite)}
		}
	}
	if run != nil && hash != run.SuiteHash {
		return &exitError{code: ExitFail, err: fmt.Errorf("%s changed since run %s started (sha256 %.12s, now %.12s): resuming would mix verdicts of two suites; start a new run", o.suite, run.ID, run.SuiteHash, hash)}
	}

	subj, err := fac.New(arg, subject.Options{Seed: o.seed, MinLevel: o.minLevel, Delay: o.delay, LLM: o.llm.options(st)})
	if err != nil {
		return err
	}
	priced := false
	if p, ok := subj.(subject.Priced); ok {
		priced = p.Priced()
	}
	var budget *engine.Budget
	if o.llm.maxCost > 0 {
		if !priced {
			return usageErr("--max-cost needs a subject whose prices are known: %s is unpriced (add it with --prices FILE)", o.subject)
		}
		spent := 0.0
		if run != nil {
			if spent, err = st.Spent(ctx, run.ID); err != nil {
				return err
			}
		}
		budget = engine.NewBudget(o.llm.maxCost, spent)
	}

	units := nCases * o.repeats
	if run == nil {
		now := time.Now()
		man = engine.Manifest{Version: Version, Suite: engine.SuiteRef{Path: o.suite, Hash: hash, Cases: nCases},
			Subject: o.subject, Seed: o.seed, Repeats: o.repeats, Concurrency: o.concurrency,
			Timeout: o.timeout.String(), MinLevel: o.minLevel, LLM: o.llm.ref(), After: o.after.raw, Created: now.UTC()}
		if d, ok := subj.(subject.Describer); ok {
			man.Config = d.Describe()
		}
		mj, err := json.Marshal(man)
		if err != nil {
			return fmt.Errorf("manifest: %w", err)
		}
		id := o.runID
		if id == "" {
			id = engine.NewRunID(now)
		}
		run = &store.Run{ID: id, CreatedAt: now, State: store.StateRunning, SuitePath: o.suite,
			SuiteHash: hash, Subject: o.subject, Repeats: o.repeats, Units: units, Manifest: mj}
		if err := st.CreateRun(ctx, run); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "run %s: %s on %s (%d cases × %d repeats)\n", run.ID, o.subject, o.suite, nCases, o.repeats)
	} else if err := st.SetState(ctx, run.ID, store.StateRunning); err != nil {
		return err
	}

	done := map[store.Unit]bool{}
	if err := st.Done(ctx, run.ID, o.retryErrors, func(u store.Unit) { done[u] = true }); err != nil {
		return err
	}
	if o.resume != "" {
		fmt.Fprintf(e.stderr, "run %s: resuming, %d of %d units already stored\n", run.ID, len(done), units)
	}

	// First signal: stop starting units. Second: abandon those in flight.
	stop := make(chan struct{})
	hardCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case <-sigs:
			fmt.Fprintln(e.stderr, "\nvulnbench: stopping: finishing the cases in flight (press Ctrl-C again to abandon them)")
			close(stop)
		case <-hardCtx.Done():
			return
		}
		select {
		case <-sigs:
			cancel()
		case <-hardCtx.Done():
		}
	}()

	prog := newProgress(e.stderr, units-len(done))
	src := func(fn func(*suite.Case) error) error {
		h, _, err := suite.Scan(o.suite, false, func(c *suite.Case, _ int) error {
			if !o.after.keep(c) {
				return nil
			}
			return fn(c)
		})
		if err == nil && h != hash {
			return fmt.Errorf("%s changed while the run was reading it", o.suite)
		}
		return err
	}
	res, runErr := engine.Run(hardCtx, engine.Config{RunID: run.ID, Concurrency: o.concurrency, Repeats: o.repeats,
		Timeout: o.timeout, Done: done, Total: units - len(done), Stop: stop, OnEvent: prog.event, Budget: budget}, src, subj, st)
	prog.finish()

	state := store.StateDone
	if res.Interrupted || runErr != nil {
		state = store.StateInterrupted
	}
	if err := st.SetState(context.WithoutCancel(ctx), run.ID, state); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return fmt.Errorf("%w (stored verdicts are kept: vulnbench run --resume %s --db %s)", runErr, run.ID, o.db)
	}
	fmt.Fprintf(e.stderr, "run %s: %d units in %s: %d ok, %d failed, %d errors\n", run.ID, res.Done, res.Elapsed.Round(time.Millisecond), res.OK, res.Failed, res.Errors)
	printUsage(e.stderr, res.Usage, res.Elapsed, priced, o.llm.priceNote())
	if res.BudgetStopped {
		fmt.Fprintf(e.stderr, "\n*** STOPPED: --max-cost $%.4f reached (run total $%.4f); cases not started are left for later.\n*** Resume with: vulnbench run --resume %s --db %s --max-cost HIGHER\n\n",
			o.llm.maxCost, budget.Spent(), run.ID, o.db)
		return silentFail
	}
	if res.Interrupted {
		fmt.Fprintf(e.stderr, "run %s: interrupted; resume with: vulnbench run --resume %s --db %s\n", run.ID, run.ID, o.db)
		return silentFail
	}

	if o.out != "" {
		if err := writeRunPredictions(ctx, st, run.ID, o.out); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "run %s: %s on %s\n", run.ID, o.subject, o.suite)
	if !o.noScore {
		t, err := loadTruth(o.suite, &o.after, io.Discard) // the kept count was printed above
		if err != nil {
			return err
		}
		o.scoreFlags.ciSeed = uint64(o.seed)
		col, err := runColumn(context.WithoutCancel(ctx), st, run.ID, t, o.scoreFlags.scoring(), e.stderr)
		if err != nil {
			return err
		}
		if err := writeScores(e.stdout, o.format, col); err != nil {
			return err
		}
	}
	if res.OK+res.Failed == 0 && res.Errors > 0 {
		return &exitError{code: ExitFail, err: errors.New("every case ended in an error; see the reasons with: vulnbench run --out FILE or the store")}
	}
	return nil
}
