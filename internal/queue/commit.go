package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/vulnbench/vulnbench/internal/store"
)

// committer stores the attempts of a worker's units as they finish, those waiting at once in one
// transaction (a group commit, as the local pool's), which also completes their jobs, in one
// statement (River's JobSetStateIfRunningMany, which JobCompleteTx sends for one job): on a
// loaded host, a unit's commit is a few round trips shared by every unit that finished meanwhile,
// not a transaction and a completion of its own. A completed job always has its attempt; a job
// no longer running (rescued while its worker was slow) is left as it is, its attempt stored all
// the same, and its next try finds it and completes with nothing new.
type committer struct {
	st       *store.Store
	complete func(ctx context.Context, tx *sql.Tx, jobs []int64) error // nil: jobs are completed by River after Work
	in       chan pendingAttempt
}

type pendingAttempt struct {
	run  string
	job  int64
	at   store.Attempt
	done chan error
}

// completeJobs returns the function that completes running jobs in a transaction of drv's.
func completeJobs(drv riverdriver.Driver[*sql.Tx]) func(ctx context.Context, tx *sql.Tx, jobs []int64) error {
	return func(ctx context.Context, tx *sql.Tx, jobs []int64) error {
		p := &riverdriver.JobSetStateIfRunningManyParams{}
		now := time.Now()
		for _, id := range jobs {
			c := riverdriver.JobSetStateCompleted(id, now, nil)
			p.ID = append(p.ID, c.ID)
			p.Attempt = append(p.Attempt, c.Attempt)
			p.ErrData = append(p.ErrData, c.ErrData)
			p.FinalizedAt = append(p.FinalizedAt, c.FinalizedAt)
			p.MetadataDoMerge = append(p.MetadataDoMerge, c.MetadataDoMerge)
			p.MetadataUpdates = append(p.MetadataUpdates, c.MetadataUpdates)
			p.ScheduledAt = append(p.ScheduledAt, c.ScheduledAt)
			p.State = append(p.State, c.State)
		}
		if _, err := drv.UnwrapExecutor(tx).JobSetStateIfRunningMany(ctx, p); err != nil {
			return fmt.Errorf("complete %d jobs: %w", len(jobs), err)
		}
		return nil
	}
}

// maxGroup bounds the attempts committed in one transaction.
const maxGroup = 256

func newCommitter(st *store.Store, complete func(context.Context, *sql.Tx, []int64) error, slots int) *committer {
	return &committer{st: st, complete: complete, in: make(chan pendingAttempt, slots)}
}

// put stores at, an attempt of run, with the completion of its job, and returns once they are
// committed (or refused: an error wrapping store.ErrExists when another try of the unit stored it
// first; then nothing of it is).
func (c *committer) put(run string, job int64, at store.Attempt) error {
	done := make(chan error, 1)
	c.in <- pendingAttempt{run: run, job: job, at: at, done: done}
	return <-done
}

// close ends run once every put has returned.
func (c *committer) close() { close(c.in) }

// run commits what waits, one group at a time, until close. Its context is never cancelled: what
// was computed is kept.
func (c *committer) run(ctx context.Context) {
	group := make([]pendingAttempt, 0, maxGroup)
	for first := range c.in {
		group = append(group[:0], first)
	drain:
		for len(group) < maxGroup {
			select {
			case p, ok := <-c.in:
				if !ok {
					break drain
				}
				group = append(group, p)
			default:
				break drain
			}
		}
		err := c.commit(ctx, group)
		if errors.Is(err, store.ErrExists) && len(group) > 1 {
			// One of them was stored by another try of its unit: each alone, so that only that
			// one is refused.
			for _, p := range group {
				p.done <- c.commit(ctx, []pendingAttempt{p})
			}
			continue
		}
		for _, p := range group {
			p.done <- err
		}
	}
}

// commit stores group in one transaction, the attempts of each run together, and completes
// their jobs.
func (c *committer) commit(ctx context.Context, group []pendingAttempt) error {
	return c.st.InTx(ctx, func(tx *store.Tx) error {
		runs := map[string][]store.Attempt{}
		var order []string
		jobs := make([]int64, 0, len(group))
		for _, p := range group {
			if _, ok := runs[p.run]; !ok {
				order = append(order, p.run)
			}
			runs[p.run] = append(runs[p.run], p.at)
			jobs = append(jobs, p.job)
		}
		for _, run := range order {
			if err := tx.PutAttempts(ctx, run, runs[run]); err != nil {
				return err
			}
		}
		if c.complete == nil {
			return nil
		}
		return c.complete(ctx, tx.SQL(), jobs)
	})
}
