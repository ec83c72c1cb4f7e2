package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/queue"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/builtin"
)

type workerOpts struct {
	db, queues, repos, snapCache string
	sandbox                      sandboxOpts
	concurrency                  int
	storeRetry                   time.Duration
}

func newWorkerCmd(e *env) *cobra.Command {
	o := &workerOpts{}
	c := &cobra.Command{
		Use:   "worker --db postgres://...",
		Short: "Do the units of runs queued on River (run --queue river), on this host",
		Long: `Claims units of any run queued on River in the store (vulnbench run --queue river) and does them:
each unit's case is read from the store (no suite file here), the subject is built from the run's
manifest, and the attempt is stored with its trace in the same transaction that completes its job,
so a unit is never stored twice nor lost. Start as many workers as you like, on any hosts that reach
the store; each materialises repositories from its own --repos. API keys come from this host's
environment. Scanners, git and agent CLIs run on case code in this host's sandbox (--sandbox, as for
vulnbench run); a run started in bwrap is refused by a worker with --sandbox none.

The run's --max-cost is a ledger in the store that every worker reserves from before each model call
and settles after, so workers together never overspend; its --rpm is shared the same way (one window
of calls per second in the store, whichever worker sends them).

SIGTERM or Ctrl-C once: take nothing new, finish the units in flight, store them, exit. Twice:
abandon them (River gives them to another worker). A worker killed outright (kill -9, a lost host)
loses nothing stored: the other workers see its heartbeat (every second) stop for 10 s, and make its
units available again (about 12 s after the kill); a slow unit of a live worker is never taken away.
River's rescuer, at each job's timeout (the run's --timeout plus 10 % and 5 s), is the backstop.
vulnbench runs shows each worker's progress; one found dead shows as dead.

On SQLite the same code runs on one host: vulnbench run --queue river --db FILE and workers with
--db FILE.`,
		Example: `  vulnbench worker --db 'postgres://vb@db.example/vulnbench' --concurrency 16 --repos ~/clones
  vulnbench worker --db vulnbench.db --concurrency 4`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWorker(cmd.Context(), e, o, cmd.Flags().Changed("sandbox"))
		},
	}
	f := c.Flags()
	f.StringVar(&o.db, "db", "vulnbench.db", "store the runs are queued in: a postgres:// URL (or a SQLite file, on one host)")
	f.IntVar(&o.concurrency, "concurrency", 4, "units done at once by this worker")
	f.DurationVar(&o.storeRetry, "store-retry", store.DefaultRetry, "how long store writes keep trying through a database outage (a restarted Postgres) before a unit's job fails (0: not at all)")
	f.StringVar(&o.queues, "queues", queue.DefaultQueue, "River queues to take units from, comma-separated (run --river-queue picks a run's)")
	f.StringVar(&o.repos, "repos", "", "where this host's clones of the cases' repositories are (see vulnbench run --help)")
	f.StringVar(&o.snapCache, "snapshot-cache", "", "where this host materialises repositories at their commits (default: the user's cache directory)")
	o.sandbox.register(f, sandboxUsage+"; a run started in bwrap is refused under none")
	return c
}

func runWorker(ctx context.Context, e *env, o *workerOpts, sandboxGiven bool) error {
	if o.concurrency < 1 {
		return usageErr("--concurrency must be at least 1")
	}
	queues, err := queue.ParseQueues(o.queues)
	if err != nil {
		return usageErr("%v", err)
	}
	sb, err := openSandbox(ctx, o.sandbox, sandboxGiven, e.stderr)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, o.db)
	if err != nil {
		return err
	}
	defer st.Close()
	st.SetRetry(o.storeRetry)
	wo := queue.WorkerOptions{Options: queue.Options{DSN: o.db, Log: e.stderr}, Concurrency: o.concurrency, Queues: queues,
		Open: runner.OpenOptions{Registry: builtin.Registry(), Deps: subject.Deps{Cache: st, Getenv: os.Getenv, Sandbox: sb},
			Repos: o.repos, SnapshotCache: o.snapCache, Preflight: runner.HostPreflight(st, o.repos, os.Getenv)}}
	wo.This()
	id := wo.ID

	// First signal: finish what is in flight. Second: abandon it.
	soft, stop := context.WithCancel(ctx)
	defer stop()
	hard := make(chan struct{})
	defer onSignals(func() {
		fmt.Fprintln(e.stderr, "vulnbench worker: stopping: finishing the units in flight (signal again to abandon them)")
		stop()
	}, func() { close(hard) })()
	fmt.Fprintf(e.stderr, "worker %s: %d at once from queue %s of %s\n", id, o.concurrency, strings.Join(queues, ","), st.DSN())
	wo.Hard, wo.OnNote = hard, func(s string) { fmt.Fprintf(e.stderr, "worker %s: %s\n", id, s) }
	if err := queue.Work(soft, st, wo); err != nil {
		return &exitError{code: ExitFail, err: err}
	}
	fmt.Fprintf(e.stderr, "worker %s: stopped\n", id)
	return nil
}
