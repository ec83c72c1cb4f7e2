package cli

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/probe"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/builtin"
	"github.com/vulnbench/vulnbench/internal/subject/memprobe"
)

func newProbeCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "probe", Short: "Probes of a model that are not benchmarks: probe memory"}
	c.AddCommand(newProbeMemoryCmd(e))
	return c
}

type probeOpts struct {
	run         runOpts
	format      string
	controlSeed uint64
}

func newProbeMemoryCmd(e *env) *cobra.Command {
	o := &probeOpts{}
	reg := builtin.Registry()
	c := &cobra.Command{
		Use:   "memory --suite SUITE --model PROVIDER:MODEL",
		Short: "Memorisation probe: does the model continue the suite's code from a cut, exactly?",
		Long: `Runs the memory-probe subject on every case of a suite, as vulnbench run does (stored in --db,
resumable with --resume RUN_ID, model responses cached, priced, --max-cost): each case's code is
cut at the line boundary nearest its middle, the model is shown the lines before the cut and
asked to continue, and an answer whose first --probe-tokens lexical tokens (default 10) are the
code's own counts as memorised. Then prints, per year of the cases' date and in all: cases,
memorised share, and the control's share: each answer checked against the continuation of
another case (a seeded derangement of the answered cases, --control-seed), which is what
chance and common idioms give. A share near the control's says the model has not seen the
code; cases too short to cut are counted apart.

The run's verdicts say memorised (label vul, category memorised) or not (ben, unseen) per
case; vulnbench score --run ID treats them as labels, which measures nothing: use probe memory
--resume ID to print the table of a finished run again.`,
		Example: `  vulnbench probe memory --suite osv.jsonl --model openai:gpt-4o-mini
  vulnbench probe memory --suite osv.jsonl --model openai:my-model --base-url http://127.0.0.1:8000/v1 --format md
  vulnbench probe memory --resume 20261202T040000-3f9a`,
		Args: exactArgs(0, "no arguments (use --suite and --model)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runProbeMemory(cmd.Context(), e, reg, o, cmd.Flags())
		},
	}
	f := c.Flags()
	r := &o.run
	f.StringVar(&r.suite, "suite", "", "suite file (JSONL)")
	f.StringVar(&r.db, "db", "vulnbench.db", "store: a SQLite file path, or a postgres:// URL")
	f.StringVar(&r.resume, "resume", "", "resume run RUN_ID (or print its table when it is complete)")
	f.StringVar(&r.runID, "run-id", "", "id for the new run (default: start time and a random suffix)")
	f.IntVar(&r.concurrency, "concurrency", 4, "cases asked at once")
	f.DurationVar(&r.timeout, "timeout", 5*time.Minute, "limit per attempt")
	f.Float64Var(&r.maxCost, "max-cost", 0, "stop once the run's cost reaches this many USD; resumable")
	f.BoolVar(&r.retryErrors, "retry-errors", false, "with --resume, also redo units whose latest attempt is an error")
	f.StringVar(&o.format, "format", "text", "table "+formatUsage(probe.Report{}))
	f.Uint64Var(&o.controlSeed, "control-seed", 1, "seed of the derangement that pairs answers with other cases' continuations")
	fac, _, err := reg.Lookup(memprobe.Name)
	if err != nil {
		panic(err) // the builtin registry lists the kind: a test runs this
	}
	for _, fl := range fac.Flags {
		subject.AddFlag(f, fl)
	}
	return c
}

func runProbeMemory(ctx context.Context, e *env, reg *subject.Registry, o *probeOpts, fs *pflag.FlagSet) error {
	if err := checkFormat(o.format, probe.Report{}); err != nil {
		return err
	}
	if o.run.resume == "" && o.run.suite == "" {
		return usageErr("probe memory needs --suite SUITE and --model PROVIDER:MODEL (or --resume RUN_ID)")
	}
	r := &o.run
	r.subject, r.repeats, r.noScore, r.queue = memprobe.Name, 1, true, store.QueueLocal
	r.sandbox.mode = "bwrap" // run's default; the probe starts no process
	defaults := pflag.NewFlagSet("score", pflag.ContinueOnError)
	r.scoreFlags.add(defaults) // the run's score is not printed: the flags keep their defaults
	id := r.resume
	if id != "" { // a run of another subject is refused before it is resumed
		if _, err := probeManifest(ctx, r.db, id); err != nil {
			return err
		}
	} else {
		if r.runID == "" {
			r.runID = runner.NewRunID(time.Now())
		}
		id = r.runID
	}
	runErr := executeProbeRun(ctx, e, reg, r, fs)
	if runErr != nil && !errors.Is(runErr, silentFail) {
		return runErr
	}
	// Stopped by --max-cost or a signal (silentFail: the run said so): the table of what is stored.
	st, err := openExisting(ctx, r.db)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := probeErr(memprobe.Load(ctx, st, id, o.controlSeed))
	if err != nil {
		return err
	}
	if err := present(e.stdout, o.format, rep); err != nil {
		return err
	}
	return runErr
}

// executeProbeRun does the run as vulnbench run does: the one call to port when the runner's
// API changes.
func executeProbeRun(ctx context.Context, e *env, reg *subject.Registry, r *runOpts, fs *pflag.FlagSet) error {
	return runRun(ctx, e, reg, r, fs)
}

// probeManifest is the manifest of run id in db, which must be a memory-probe run.
func probeManifest(ctx context.Context, db, id string) (*manifest.Manifest, error) {
	st, err := openExisting(ctx, db)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return probeErr(memprobe.Manifest(ctx, st, id))
}

// probeErr is a run of another kind as a usage error.
func probeErr[T any](v T, err error) (T, error) {
	if errors.Is(err, memprobe.ErrOtherKind) {
		return v, usageErr("%v", err)
	}
	return v, err
}
