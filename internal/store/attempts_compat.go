package store

import (
	"context"
	"time"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// TEMPORARY until store v2 lands: the attempt API over the wave-1 verdicts table.

// Attempt is one try at a unit with its trace.
type Attempt struct {
	Verdict           verdict.Verdict
	Events            []trace.Event
	Started, Finished time.Time
}

// UnitState is what is stored of one unit.
type UnitState struct {
	CaseID     string
	Repeat     int
	Attempts   int
	Scored     bool
	LastStatus verdict.Status
}

// PutAttempts stores attempts.
func (s *Store) PutAttempts(ctx context.Context, runID string, as []Attempt) error {
	vs := make([]verdict.Verdict, len(as))
	for i := range as {
		vs[i] = as[i].Verdict
	}
	return s.PutVerdicts(ctx, runID, vs)
}

// Units calls fn for every stored unit.
func (s *Store) Units(ctx context.Context, runID string, fn func(UnitState)) error {
	ok := map[Unit]bool{}
	if err := s.Done(ctx, runID, true, func(u Unit) { ok[u] = true }); err != nil {
		return err
	}
	return s.Done(ctx, runID, false, func(u Unit) {
		fn(UnitState{CaseID: u.CaseID, Repeat: u.Repeat, Attempts: 1, Scored: ok[u]})
	})
}

// PutCases is a no-op until store v2 lands.
func (s *Store) PutCases(ctx context.Context, runID string, first int, cases []suite.Case) error {
	return nil
}
