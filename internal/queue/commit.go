package queue

import (
	"context"
	"errors"

	"github.com/vulnbench/vulnbench/internal/store"
)

// committer stores the attempts of a worker's units as they finish, those waiting at once in one
// transaction (a group commit, as the local pool's): on a loaded host, a unit's commit is a few
// round trips shared by every unit that finished meanwhile, not a transaction of its own. A unit
// waits until its attempt is stored; its job is then completed by River (its batched completer,
// after Work returns), so a completed job always has its attempt, and a job whose attempt is
// stored but which was never completed (its worker died in between) finds it when it is tried
// again and completes with nothing new.
type committer struct {
	st *store.Store
	in chan pendingAttempt
}

type pendingAttempt struct {
	run  string
	at   store.Attempt
	done chan error
}

// maxGroup bounds the attempts committed in one transaction.
const maxGroup = 256

func newCommitter(st *store.Store, slots int) *committer {
	return &committer{st: st, in: make(chan pendingAttempt, slots)}
}

// put stores at, an attempt of run, and returns once it is stored (or refused: an error wrapping
// store.ErrExists when another try of the unit stored it first).
func (c *committer) put(run string, at store.Attempt) error {
	done := make(chan error, 1)
	c.in <- pendingAttempt{run: run, at: at, done: done}
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

// commit stores group in one transaction, the attempts of each run together.
func (c *committer) commit(ctx context.Context, group []pendingAttempt) error {
	return c.st.InTx(ctx, func(tx *store.Tx) error {
		runs := map[string][]store.Attempt{}
		var order []string
		for _, p := range group {
			if _, ok := runs[p.run]; !ok {
				order = append(order, p.run)
			}
			runs[p.run] = append(runs[p.run], p.at)
		}
		for _, run := range order {
			if err := tx.PutAttempts(ctx, run, runs[run]); err != nil {
				return err
			}
		}
		return nil
	})
}
