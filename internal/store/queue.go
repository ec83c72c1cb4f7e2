package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// What the store keeps for runs spread over workers (--queue river): the run's budget ledger,
// the workers' heartbeats and progress, and the windows of the run's shared rate limit. Each
// operation is one statement, atomic on both backends, so any number of workers share them.

// Budget is a run's ledger row.
type Budget struct {
	Cap, Spent, Reserved float64
	Calls, InFlight      int
	Refused              bool // a call was refused: the cap is reached
}

// Reservation outcomes.
const (
	Reserved = iota // the call may go
	Refused         // the cap is reached
	Wait            // the run's first priced call is in flight: its cost is the estimate of the others
)

// OpenBudget sets a run's cap and what it spent (a new run: 0; a resume: its stored attempts'
// cost), and clears the reservations: those of workers that died with calls in flight go.
func (t *Tx) OpenBudget(ctx context.Context, runID string, limit, spent float64) error {
	_, err := t.tx.ExecContext(ctx, t.s.q(`INSERT INTO run_budget (run_id, cap, spent, reserved, calls, inflight, refused)
		VALUES (?, ?, ?, 0, 0, 0, FALSE)
		ON CONFLICT (run_id) DO UPDATE SET cap = excluded.cap, spent = excluded.spent, reserved = 0, calls = 0, inflight = 0, refused = FALSE`),
		runID, limit, spent)
	if err != nil {
		return fmt.Errorf("budget of run %s: %w", runID, err)
	}
	return nil
}

// DropBudget removes a run's ledger: a resume without --max-cost has no cap.
func (t *Tx) DropBudget(ctx context.Context, runID string) error {
	if _, err := t.tx.ExecContext(ctx, t.s.q(`DELETE FROM run_budget WHERE run_id = ?`), runID); err != nil {
		return fmt.Errorf("budget of run %s: %w", runID, err)
	}
	return nil
}

// estimate is the cost of the next call: the mean of the priced calls settled so far.
const estimate = `(CASE WHEN calls > 0 THEN spent / calls ELSE 0 END)`

// Reserve reserves the estimate of one model call of a run, in one conditional UPDATE: it is
// granted only while spent + reserved + estimate stays under the cap, whatever other workers do
// at the same time. While no priced call has settled, one call at a time is let through (its cost
// is what the others are estimated at). A run with no ledger row has no cap.
func (s *Store) Reserve(ctx context.Context, runID string) (est float64, outcome int, err error) {
	err = s.db.QueryRowContext(ctx, s.q(`UPDATE run_budget SET reserved = reserved + `+estimate+`, inflight = inflight + 1
		WHERE run_id = ? AND NOT refused AND (calls > 0 OR inflight = 0) AND spent + reserved + `+estimate+` < cap
		RETURNING `+estimate), runID).Scan(&est)
	if err == nil {
		return est, Reserved, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, 0, fmt.Errorf("reserve budget of run %s: %w", runID, err)
	}
	b, err := s.Budget(ctx, runID)
	switch {
	case errors.Is(err, ErrNotFound):
		return 0, Reserved, nil
	case err != nil:
		return 0, 0, err
	case b.Refused:
		return 0, Refused, nil
	}
	est = 0
	if b.Calls > 0 {
		est = b.Spent / float64(b.Calls)
	}
	if b.Spent+b.Reserved+est < b.Cap {
		// The first priced call is in flight, or another worker's settle came in between:
		// look again.
		return 0, Wait, nil
	}
	if _, err := s.db.ExecContext(ctx, s.q(`UPDATE run_budget SET refused = TRUE WHERE run_id = ?`), runID); err != nil {
		return 0, 0, fmt.Errorf("budget of run %s: %w", runID, err)
	}
	return 0, Refused, nil
}

// Settle replaces a reservation by what the call cost (nil: unpriced, nothing is added).
func (s *Store) Settle(ctx context.Context, runID string, reserved float64, cost *float64) error {
	c, n := 0.0, 0
	if cost != nil {
		c, n = *cost, 1
	}
	_, err := s.db.ExecContext(ctx, s.q(`UPDATE run_budget SET reserved = reserved - ?, inflight = inflight - 1, spent = spent + ?,
		calls = calls + ? WHERE run_id = ?`), reserved, c, n, runID)
	if err != nil {
		return fmt.Errorf("settle budget of run %s: %w", runID, err)
	}
	return nil
}

// Budget returns a run's ledger, or an error wrapping ErrNotFound when it has none (no cap).
func (s *Store) Budget(ctx context.Context, runID string) (Budget, error) {
	var b Budget
	err := s.db.QueryRowContext(ctx, s.q(`SELECT cap, spent, reserved, calls, inflight, refused FROM run_budget WHERE run_id = ?`), runID).
		Scan(&b.Cap, &b.Spent, &b.Reserved, &b.Calls, &b.InFlight, &b.Refused)
	if errors.Is(err, sql.ErrNoRows) {
		return b, fmt.Errorf("budget of run %s: %w", runID, ErrNotFound)
	}
	if err != nil {
		return b, fmt.Errorf("budget of run %s: %w", runID, err)
	}
	return b, nil
}

// TakeRate takes one call of a run's shared rate limit in the window win (a Unix second), of at
// most limit calls: false when the window is full; n is the call's place in its window (1 for
// the first), so that a caller can spread the window's calls over its second.
func (s *Store) TakeRate(ctx context.Context, runID string, win int64, limit int) (n int, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, s.q(`INSERT INTO rate_windows (run_id, win, n) VALUES (?, ?, 1)
		ON CONFLICT (run_id, win) DO UPDATE SET n = rate_windows.n + 1 WHERE rate_windows.n < ? RETURNING n`), runID, win, limit).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("rate limit of run %s: %w", runID, err)
	}
	if win%60 == 0 { // now and then, forget old windows
		_, _ = s.db.ExecContext(ctx, s.q(`DELETE FROM rate_windows WHERE run_id = ? AND win < ?`), runID, win-60)
	}
	return n, true, nil
}

// Worker is one worker process as its heartbeat describes it.
type Worker struct {
	ID, Host         string
	PID, Concurrency int
	Queues           string
	Started, Seen    time.Time
	State            string // running, stopping, stopped
}

// WorkerRun is what one worker did for one run.
type WorkerRun struct {
	Worker
	RunID                  string
	Done, Errors, InFlight int
	RunSeen                time.Time
}

// Beat records a worker's heartbeat and its progress on each run it worked for.
func (s *Store) Beat(ctx context.Context, w Worker, runs []WorkerRun) error {
	now := dbTime(time.Now())
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO workers (id, host, pid, concurrency, queues, started_at, seen_at, state)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at, state = excluded.state`),
			w.ID, clean(w.Host), w.PID, w.Concurrency, clean(w.Queues), dbTime(w.Started), now, w.State); err != nil {
			return err
		}
		for _, r := range runs {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO worker_runs (worker_id, run_id, done, errors, in_flight, seen_at)
				VALUES (?, ?, ?, ?, ?, ?)
				ON CONFLICT (run_id, worker_id) DO UPDATE SET done = excluded.done, errors = excluded.errors,
					in_flight = excluded.in_flight, seen_at = excluded.seen_at`),
				w.ID, r.RunID, r.Done, r.Errors, r.InFlight, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("heartbeat of worker %s: %w", w.ID, err)
	}
	return nil
}

// LiveWorkers counts the workers seen since then and not stopped.
func (s *Store) LiveWorkers(ctx context.Context, since time.Time) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM workers WHERE seen_at >= ? AND state <> 'stopped'`), dbTime(since)).Scan(&n); err != nil {
		return 0, fmt.Errorf("count workers: %w", err)
	}
	return n, nil
}

// WorkerRuns returns what each worker did for a run, by worker id.
func (s *Store) WorkerRuns(ctx context.Context, runID string) ([]WorkerRun, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT w.id, w.host, w.pid, w.concurrency, w.queues, w.started_at, w.seen_at, w.state,
			r.done, r.errors, r.in_flight, r.seen_at
		FROM worker_runs r JOIN workers w ON w.id = r.worker_id WHERE r.run_id = ? ORDER BY w.id`), runID)
	if err != nil {
		return nil, fmt.Errorf("workers of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []WorkerRun
	for rows.Next() {
		var r WorkerRun
		var started, seen, runSeen string
		if err := rows.Scan(&r.ID, &r.Host, &r.PID, &r.Concurrency, &r.Queues, &started, &seen, &r.State,
			&r.Done, &r.Errors, &r.InFlight, &runSeen); err != nil {
			return nil, fmt.Errorf("workers of run %s: %w", runID, err)
		}
		r.RunID = runID
		r.Started, r.Seen, r.RunSeen = parseTime(started), parseTime(seen), parseTime(runSeen)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("workers of run %s: %w", runID, err)
	}
	return out, nil
}

// NextAttempt returns the number of a unit's next attempt: one past its highest stored one.
func (s *Store) NextAttempt(ctx context.Context, runID, caseID string, repeat int) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.q(`SELECT COALESCE(MAX(attempt) + 1, 0) FROM attempts WHERE run_id = ? AND case_id = ? AND repeat_idx = ?`),
		runID, caseID, repeat).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("attempts of case %s (repeat %d) of run %s: %w", caseID, repeat, runID, err)
	}
	return n, nil
}

// UnitCounts counts a run's units with at least one attempt, those with a scored verdict, and
// those whose attempts are all errors, in the database (a follower asks every second).
func (s *Store) UnitCounts(ctx context.Context, runID string) (stored, scored, errs int, err error) {
	err = s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*), COALESCE(SUM(ok), 0) FROM (
			SELECT MAX(CASE WHEN status <> 'error' THEN 1 ELSE 0 END) AS ok FROM attempts WHERE run_id = ? GROUP BY case_id, repeat_idx) AS u`),
		runID).Scan(&stored, &scored)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("count units of run %s: %w", runID, err)
	}
	return stored, scored, stored - scored, nil
}
