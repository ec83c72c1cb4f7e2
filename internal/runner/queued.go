package runner

import (
	"context"
	"time"

	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
)

// Queue takes a run's units when workers do them (--queue river).
type Queue interface {
	// Enqueue adds one job per unit in tx, the transaction that creates or resumes the run: the
	// run, its cases and its jobs are stored together or not at all.
	Enqueue(ctx context.Context, tx *store.Tx, units []QueuedUnit) error
}

// QueuedUnit is one (case, repeat) of a run handed to a queue, at the attempt number it is to
// be stored as. Timeout is the run's limit per attempt (the queue adds its margin).
type QueuedUnit struct {
	Run     string
	Case    string
	Repeat  int
	Attempt int
	Timeout time.Duration
}

// enqueueBatch is how many units go to the queue in one call.
const enqueueBatch = 1000

// Enqueue hands every unit left to q for River's workers, in one transaction that also creates
// the run (or marks it running again), stores its cases and opens its shared budget (--max-cost).
func (r *Run) Enqueue(ctx context.Context, q Queue) (*Outcome, error) {
	out := &r.out
	r.rec.Queue = store.QueueRiver
	if _, err := r.readUnits(ctx); err != nil {
		return nil, err
	}
	var spent float64
	if r.resumed {
		var err error
		sp, err := r.st.RunSpend(ctx, r.rec.ID)
		if err != nil {
			return nil, err
		}
		spent = sp.Cost
	}
	queued := func(u subject.Unit) QueuedUnit {
		return QueuedUnit{Run: r.rec.ID, Case: u.Case.ID, Repeat: u.Repeat, Attempt: u.Attempt, Timeout: r.at.Timeout}
	}
	var stored []QueuedUnit // a resume's units from its stored cases, read before the transaction
	if r.suite == "" {
		if err := r.units(nil, func(u subject.Unit) error { stored = append(stored, queued(u)); return nil }); err != nil {
			return nil, err
		}
	}
	err := r.st.InTx(ctx, func(tx *store.Tx) error {
		if err := r.store(ctx, tx); err != nil {
			return err
		}
		switch {
		case r.host.MaxCost > 0:
			if err := tx.OpenBudget(ctx, r.rec.ID, r.host.MaxCost, spent); err != nil {
				return err
			}
		case r.resumed: // resumed without --max-cost: no cap, as on the local pool
			if err := tx.DropBudget(ctx, r.rec.ID); err != nil {
				return err
			}
		}
		batch := make([]QueuedUnit, 0, enqueueBatch)
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			out.Queued += len(batch)
			err := q.Enqueue(ctx, tx, batch)
			batch = batch[:0]
			return err
		}
		add := func(u QueuedUnit) error {
			if batch = append(batch, u); len(batch) == enqueueBatch {
				return flush()
			}
			return nil
		}
		if r.suite == "" {
			for _, u := range stored {
				if err := add(u); err != nil {
					return err
				}
			}
		} else if err := r.units(tx.PutCases, func(u subject.Unit) error { return add(queued(u)) }); err != nil {
			return err
		}
		return flush()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
