// Package queue spreads a run's units over worker processes on any number of hosts with River
// (github.com/riverqueue/river) on the run's own store: Postgres through riverdatabasesql (with a
// pgx listener for LISTEN/NOTIFY), or SQLite through riversqlite on one host. Both drivers work
// in database/sql transactions, the store's own, so a run, its cases and one job per unit are
// stored in one transaction (Enqueue), and a worker stores an attempt with its trace and marks
// its job completed in one transaction (Work): the two cannot disagree. The local pool stays in
// internal/engine; both do a unit through engine.Attempt.
package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/store"
)

// Version of the job format (UnitArgs) and of the worker's protocol.
const Version = "1"

// DefaultQueue is the River queue units go to unless --river-queue names another.
const DefaultQueue = "vulnbench"

// UnitArgs is one unit's job: run, case, repeat and the attempt number its verdict is stored
// as. A job is done once an attempt with that number or a later one is stored for its unit.
type UnitArgs struct {
	Run       string `json:"run"`
	Case      string `json:"case"`
	Repeat    int    `json:"repeat"`
	Attempt   int    `json:"attempt"`
	TimeoutMS int64  `json:"timeout_ms"` // the run's --timeout per attempt
}

// Kind is River's name of the job kind.
func (UnitArgs) Kind() string { return "vulnbench_unit" }

// jobTimeout is how long River lets a unit's job run before it cancels it and, once the
// worker is gone, how long before the leader's rescuer (every 30 s) may hand it to another
// worker: the run's --timeout per attempt (the engine enforces it itself and stores an error
// verdict) plus a margin for reading the case and committing. A real agent run's 10 minutes
// make it 11 min 5 s; a test's 3 s, 8.3 s.
func (a UnitArgs) jobTimeout() time.Duration {
	t := time.Duration(a.TimeoutMS) * time.Millisecond
	if t <= 0 {
		t = 10 * time.Minute
	}
	return t + t/10 + 5*time.Second
}

// Options configure a queue.
type Options struct {
	// DSN is the store's, with its password if any: River's listener opens its own connection.
	DSN string
	// Queue is the River queue new units go to ("": DefaultQueue).
	Queue string
	// Log receives River's warnings (nil: discarded).
	Log io.Writer
}

// Queue is River over a store.
type Queue struct {
	st     *store.Store
	client *river.Client[*sql.Tx]
	pool   *pgxpool.Pool
	queue  string
}

// driver returns River's driver for the store and, for Postgres, the pool its listener uses.
func driver(ctx context.Context, st *store.Store, dsn string) (riverdriver.Driver[*sql.Tx], *pgxpool.Pool, error) {
	if st.Dialect() != "postgres" {
		return riversqlite.New(st.DB()), nil, nil
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("river listener: %w", err)
	}
	return riverdatabasesql.NewWithPgxListener(st.DB(), pool), pool, nil
}

// migrateLock is the Postgres advisory lock that serialises River's migrations between
// processes starting at once. River's migrations cannot share one transaction on Postgres (one
// adds an enum value that a later one uses), so the lock is a session's, held around them.
const migrateLock = 0x76627269766572 // "vbriver"

// migrate brings River's tables up to date.
func migrate(ctx context.Context, st *store.Store, drv riverdriver.Driver[*sql.Tx]) error {
	m, err := rivermigrate.New(drv, &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	if st.Dialect() == "postgres" {
		conn, err := st.DB().Conn(ctx)
		if err != nil {
			return fmt.Errorf("river migrations: %w", err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrateLock); err != nil {
			return fmt.Errorf("river migrations: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrateLock)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		// Two processes migrating one SQLite store at once: the loser fails on what the winner
		// did; what matters is that the schema is up to date.
		if again, verr := m.Validate(ctx, nil); verr == nil && again.OK {
			return nil
		}
		return fmt.Errorf("river migrations: %w", err)
	}
	return nil
}

func logger(w io.Writer) *slog.Logger {
	if w == nil {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// Open opens River on st for enqueuing and following runs (no worker), migrating its tables.
func Open(ctx context.Context, st *store.Store, o Options) (*Queue, error) {
	drv, pool, err := driver(ctx, st, o.DSN)
	if err != nil {
		return nil, err
	}
	if err := migrate(ctx, st, drv); err != nil {
		closePool(pool)
		return nil, err
	}
	client, err := river.NewClient(drv, &river.Config{Logger: logger(o.Log), SkipUnknownJobCheck: true})
	if err != nil {
		closePool(pool)
		return nil, fmt.Errorf("river: %w", err)
	}
	q := o.Queue
	if q == "" {
		q = DefaultQueue
	}
	return &Queue{st: st, client: client, pool: pool, queue: q}, nil
}

func closePool(p *pgxpool.Pool) {
	if p != nil {
		p.Close()
	}
}

// Close releases the listener's connections.
func (q *Queue) Close() error {
	closePool(q.pool)
	return nil
}

// maxJobAttempts is how many times River tries a unit's job: a try ends in an error only when
// the store failed (a subject's fault is a stored error verdict, not a failed job).
const maxJobAttempts = 10

// Enqueue implements runner.Queue: one job per unit, inserted in tx. A unit whose job is still
// waiting or running is not inserted twice (River's unique jobs, by arguments).
func (q *Queue) Enqueue(ctx context.Context, tx *store.Tx, units []runner.QueuedUnit) error {
	params := make([]river.InsertManyParams, len(units))
	for i, u := range units {
		params[i] = river.InsertManyParams{
			Args: UnitArgs{Run: u.Run, Case: u.Case, Repeat: u.Repeat, Attempt: u.Attempt, TimeoutMS: u.Timeout.Milliseconds()},
			InsertOpts: &river.InsertOpts{Queue: q.queue, MaxAttempts: maxJobAttempts,
				UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: uniqueStates}},
		}
	}
	if _, err := q.client.InsertManyTx(ctx, tx.SQL(), params); err != nil {
		return fmt.Errorf("enqueue units: %w", err)
	}
	return nil
}

// uniqueStates are the job states in which a unit's job blocks inserting it again: waiting,
// running, or about to be retried.
var uniqueStates = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
	rivertype.JobStateRunning, rivertype.JobStateScheduled}

// hasJobs reports whether run has unit jobs in any of states. It asks River's table directly
// rather than through JobList, which sorts every match by id to return the first: with no order,
// Postgres walks River's fetching index (state first) and stops at the first job of the run, so a
// run's check each second costs the same whether it has 40 jobs or 400,000.
func hasJobs(ctx context.Context, st *store.Store, run string, states []rivertype.JobState) (bool, error) {
	args := make([]any, 0, len(states)+2)
	for _, s := range states {
		args = append(args, string(s))
	}
	args = append(args, UnitArgs{}.Kind(), run)
	ph := make([]string, len(args))
	for i := range ph {
		ph[i] = "?"
		if st.Dialect() == "postgres" {
			ph[i] = fmt.Sprintf("$%d", i+1)
		}
	}
	n := len(states)
	q := `SELECT EXISTS (SELECT 1 FROM river_job WHERE state IN (` + strings.Join(ph[:n], ", ") + `) AND kind = ` + ph[n] +
		` AND args ->> 'run' = ` + ph[n+1] + `)`
	var left bool
	if err := st.DB().QueryRowContext(ctx, q, args...).Scan(&left); err != nil {
		return false, fmt.Errorf("jobs of run %s: %w", run, err)
	}
	return left, nil
}

// finish ends a River run whose jobs are over: a running run with no job left is done when
// every unit is stored (else interrupted), a stopping one with no job running is interrupted (a
// resume enqueues what is missing). It returns the run's state. busy says the caller has units of
// the run in flight: its jobs are running, so it is not over, and only its state is read.
func finish(ctx context.Context, st *store.Store, id string, busy bool) (string, error) {
	run, err := st.GetRun(ctx, id)
	if err != nil {
		return "", err
	}
	var left bool
	switch {
	case busy:
		return run.State, nil
	case run.State == store.StateRunning:
		left, err = hasJobs(ctx, st, id, uniqueStates) // the states of a job not finished
	case run.State == store.StateStopping:
		left, err = hasJobs(ctx, st, id, []rivertype.JobState{rivertype.JobStateRunning})
	default:
		return run.State, nil
	}
	if err != nil || left {
		return run.State, err
	}
	// Done only when every unit has an attempt: jobs cancelled (the run was stopped, its budget
	// reached) leave units for a resume.
	next := store.StateInterrupted
	if run.State == store.StateRunning {
		stored, _, _, err := st.UnitCounts(ctx, id)
		if err != nil {
			return run.State, err
		}
		if stored >= run.Units {
			next = store.StateDone
		}
	}
	if err := st.SetState(ctx, id, next); err != nil {
		return run.State, err
	}
	return next, nil
}

// Progress is how far a followed run is (the runner's, which follows it through Follow).
type Progress = runner.Progress

// Follow watches a run every interval until it ends (done, interrupted or cancelled), calling fn
// with its progress, and returns its last progress. Cancelling ctx stops following, not the run.
func (q *Queue) Follow(ctx context.Context, id string, every time.Duration, fn func(Progress)) (Progress, error) {
	if every <= 0 {
		every = time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		p, err := q.progress(ctx, id)
		if err != nil {
			return p, err
		}
		if fn != nil {
			fn(p)
		}
		if ended(p.State) {
			return p, nil
		}
		// Near its end (no job of it waits, only running ones), the run's end is looked for
		// every endPoll until the next progress: what waits for the run learns of it then, not
		// up to every later. Two cheap statements each; the counts stay at every.
		near := false
		if p.State == store.StateRunning {
			waits, err := hasJobs(ctx, q.st, id, waitingStates)
			near = err == nil && !waits
		}
		if err := q.wait(ctx, id, t.C, near); err != nil {
			return p, err
		}
	}
}

// endPoll is how often Follow looks for the end of a run near it.
const endPoll = 50 * time.Millisecond

// waitingStates are the states of a job not yet running.
var waitingStates = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
	rivertype.JobStateScheduled}

func ended(state string) bool {
	return state == store.StateDone || state == store.StateInterrupted || state == store.StateCancelled
}

// wait waits for tick, or with near until run id has ended.
func (q *Queue) wait(ctx context.Context, id string, tick <-chan time.Time, near bool) error {
	var poll <-chan time.Time
	if near {
		p := time.NewTicker(endPoll)
		defer p.Stop()
		poll = p.C
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick:
			return nil
		case <-poll:
			if state, err := finish(ctx, q.st, id, false); err == nil && ended(state) {
				return nil
			}
		}
	}
}

func (q *Queue) progress(ctx context.Context, id string) (Progress, error) {
	var p Progress
	state, err := finish(ctx, q.st, id, false)
	if err != nil {
		return p, err
	}
	p.State = state
	if p.Stored, p.Scored, p.Errs, err = q.st.UnitCounts(ctx, id); err != nil {
		return p, err
	}
	if p.Workers, err = q.st.WorkerRuns(ctx, id); err != nil {
		return p, err
	}
	if b, err := q.st.Budget(ctx, id); err == nil {
		p.Budget = &b
	} else if !errors.Is(err, store.ErrNotFound) {
		return p, err
	}
	return p, nil
}
