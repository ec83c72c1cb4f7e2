package store

import (
	"context"
	"fmt"
	"time"

	"github.com/vulnbench/vulnbench/internal/verdict"
)

// This file keeps wave 1's API for the callers that still use it (internal/engine,
// internal/cli); it goes once they use PutAttempts and Units.

// Unit names one (case, repeat) of a run.
type Unit struct {
	CaseID string
	Repeat int
}

// Done calls fn for every unit of a run that has an attempt; with skipErrors, only for those
// with a scored verdict (units whose attempts are all errors are left out, to be tried again).
//
// Deprecated: use Units.
func (s *Store) Done(ctx context.Context, runID string, skipErrors bool, fn func(Unit)) error {
	return s.Units(ctx, runID, func(u UnitState) {
		if !skipErrors || u.Scored {
			fn(Unit{CaseID: u.CaseID, Repeat: u.Repeat})
		}
	})
}

// PutVerdicts stores verdicts as attempts without trace events, in one transaction. Wave-1
// callers do not number attempts, so each verdict becomes its unit's next attempt (v.Attempt is
// ignored): a retried unit gains an attempt instead of losing the earlier one.
//
// Deprecated: use PutAttempts.
func (s *Store) PutVerdicts(ctx context.Context, runID string, vs []verdict.Verdict) error {
	now := time.Now()
	as := make([]Attempt, len(vs))
	for i := range vs {
		as[i] = Attempt{Verdict: vs[i], Finished: now}
	}
	if err := s.putAttempts(ctx, runID, as, true); err != nil {
		return fmt.Errorf("store verdicts of run %s: %w", runID, err)
	}
	return nil
}
