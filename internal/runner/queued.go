package runner

import (
	"context"
	"time"

	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
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

// enqueue creates (or marks running again) the run, stores its cases and hands every unit left
// to p.Queue, in one transaction.
func enqueue(ctx context.Context, p Plan, sc scan, subj subject.Subject, man *Manifest, stored bool, storeFrom int, out *Outcome) (*Outcome, error) {
	units := map[unitKey]store.UnitState{}
	var spent float64
	var ids []string // a resume's stored cases
	if p.Resume != nil {
		if err := p.Store.Units(ctx, p.Resume.ID, func(u store.UnitState) {
			units[unitKey{CaseID: u.CaseID, Repeat: u.Repeat}] = u
		}); err != nil {
			return nil, err
		}
		var err error
		if spent, err = p.Store.Spent(ctx, p.Resume.ID); err != nil {
			return nil, err
		}
		if stored {
			if err := p.Store.Cases(ctx, p.Resume.ID, func(c *suite.Case) error { ids = append(ids, c.ID); return nil }); err != nil {
				return nil, err
			}
		}
	}
	for _, u := range units {
		if u.Scored {
			out.Scored++
		}
	}
	err := p.Store.InTx(ctx, func(tx *store.Tx) error {
		run, m, err := createOrResume(ctx, p, tx, sc, subj, man)
		if err != nil {
			return err
		}
		out.Run, out.Manifest = run, *m
		switch {
		case p.MaxCost > 0:
			if err := tx.OpenBudget(ctx, run.ID, p.MaxCost, spent); err != nil {
				return err
			}
		case p.Resume != nil: // resumed without --max-cost: no cap, as on the local pool
			if err := tx.DropBudget(ctx, run.ID); err != nil {
				return err
			}
		}
		timeout := p.Timeout
		if t, err := time.ParseDuration(m.Timeout); err == nil && p.Resume != nil && t > 0 {
			timeout = t
		}
		batch := make([]QueuedUnit, 0, enqueueBatch)
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			out.Queued += len(batch)
			err := p.Queue.Enqueue(ctx, tx, batch)
			batch = batch[:0]
			return err
		}
		add := func(id string) error {
			for r := 0; r < m.Repeats; r++ {
				attempt := 0
				if u, ok := units[unitKey{CaseID: id, Repeat: r}]; ok {
					if u.Scored || !p.RetryErrors {
						continue
					}
					attempt = u.Attempts
				}
				batch = append(batch, QueuedUnit{Run: run.ID, Case: id, Repeat: r, Attempt: attempt, Timeout: timeout})
				if len(batch) == enqueueBatch {
					if err := flush(); err != nil {
						return err
					}
				}
			}
			return nil
		}
		if stored {
			for _, id := range ids {
				if err := add(id); err != nil {
					return err
				}
			}
		} else {
			src := source(p, tx.PutCases, run.ID, sc.hash, storeFrom)
			if err := src(func(c *suite.Case) error { return add(c.ID) }); err != nil {
				return err
			}
		}
		return flush()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
