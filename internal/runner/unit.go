package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/vulnbench/vulnbench/internal/preflight"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// UnitStore is what doing the units of a stored run on a worker needs from the store: what any
// run needs, and its shared budget and rate limit.
type UnitStore interface {
	Store
	Budget(ctx context.Context, runID string) (store.Budget, error)
	Reserve(ctx context.Context, runID string) (float64, int, error)
	Settle(ctx context.Context, runID string, reserved float64, cost *float64) error
	TakeRate(ctx context.Context, runID string, win int64, limit int) (n int, ok bool, err error)
}

// OpenOptions is what a worker gives every run it opens.
type OpenOptions struct {
	Registry      *subject.Registry
	Deps          subject.Deps
	Repos         string // --repos on this host
	SnapshotCache string
	Preflight     Preflight // nil: none
}

// Open opens stored run id on a River worker to do its units one at a time (Unit, Do), with no
// suite file: the subject is rebuilt from the manifest as Resume rebuilds it, each unit's case
// is read from the store, and each attempt is made by Do with the same Env as on the local pool.
// The run's --max-cost is its ledger in the store and its --rpm a rate shared by every worker.
func Open(ctx context.Context, st UnitStore, id string, o OpenOptions) (*Run, error) {
	rec, err := st.GetRun(ctx, id)
	if err != nil {
		return nil, err
	}
	r := &Run{st: st, rec: rec, resumed: true, host: Host{Deps: o.Deps, Repos: o.Repos, SnapshotCache: o.SnapshotCache}}
	if err := r.configure(ctx, o.Registry, nil, o.Preflight); err != nil {
		return nil, err
	}
	if err := checkSandbox(id, &r.man, o.Deps.Sandbox); err != nil {
		return nil, err
	}
	if r.subj, err = r.fac.New(r.cfg, o.Deps); err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	timeout, _ := time.ParseDuration(r.man.Timeout)
	var ledger Ledger
	if _, err := st.Budget(ctx, id); err == nil {
		ledger = storeLedger{st: st, run: id}
	} else if !errors.Is(err, store.ErrNotFound) {
		r.Close()
		return nil, err
	}
	var pace Pacer
	if rpm := r.Settings().RPM; rpm > 0 {
		pace = sharedRate{st: st, run: id, perSecond: int(math.Ceil(float64(rpm) / 60))}
	}
	r.attempts(timeout, limitsOf(r.man.Limits), ledger, pace, r.man.SkipUnsupport)
	return r, nil
}

// Unit is attempt number attempt at (caseID, repeat) of a run opened on a worker, its case read
// from the store.
func (r *Run) Unit(ctx context.Context, caseID string, repeat, attempt int) (subject.Unit, error) {
	c, err := r.st.Case(ctx, r.rec.ID, caseID)
	if err != nil {
		return subject.Unit{}, err
	}
	return subject.Unit{Case: c, Repeat: repeat, Attempt: attempt}, nil
}

// storeLedger is a run's budget shared by every worker: one row of the store, reserved and
// settled with single conditional statements.
type storeLedger struct {
	st  UnitStore
	run string
}

// budgetPoll is how often a call waiting for the run's first priced call looks again.
const budgetPoll = 20 * time.Millisecond

func (l storeLedger) Reserve(ctx context.Context) (float64, error) {
	for {
		est, outcome, err := l.st.Reserve(ctx, l.run)
		if err != nil {
			return 0, err
		}
		switch outcome {
		case store.Reserved:
			return est, nil
		case store.Refused:
			b, _ := l.st.Budget(ctx, l.run)
			return 0, fmt.Errorf("%w ($%.4f of $%.4f spent)", ErrBudget, b.Spent, b.Cap)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(budgetPoll):
		}
	}
}

func (l storeLedger) Settle(ctx context.Context, reserved float64, cost *float64) {
	// A failed settle leaves the reservation held until the run is resumed (which reopens the
	// ledger from the stored attempts): the cap errs on the safe side.
	_ = l.st.Settle(ctx, l.run, reserved, cost)
}

// sharedRate is a run's --rpm shared by every worker: at most perSecond calls in each second
// (a window row of the store), whichever worker sends them.
type sharedRate struct {
	st        UnitStore
	run       string
	perSecond int
}

func (s sharedRate) Wait(ctx context.Context) error {
	for {
		now := time.Now()
		n, ok, err := s.st.TakeRate(ctx, s.run, now.Unix(), s.perSecond)
		if err != nil {
			return err
		}
		start := now.Truncate(time.Second)
		if ok { // the window's n-th call goes at its share of the second: no burst at a window's start
			at := start.Add(time.Duration(n-1) * time.Second / time.Duration(s.perSecond))
			if d := time.Until(at); d > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(d):
				}
			}
			return nil
		}
		next := start.Add(time.Second)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Until(next)):
		}
	}
}

// HostPreflight is a worker's preflight of each run it opens (OpenOptions.Preflight): the run's
// stored cases against this host's programs, environment (getenv) and --repos. A miss refuses
// the run on this host (every miss with its fix), leaving its units to other workers.
func HostPreflight(st UnitStore, repos string, getenv func(string) string) Preflight {
	return func(ctx context.Context, run *store.Run, fac subject.Factory, cfg subject.Config) error {
		rep, err := preflight.Check(ctx, preflight.Input{Suite: run.SuitePath, Factory: fac, Config: cfg, Repos: repos, Getenv: getenv,
			Cases: func(fn func(*suite.Case) error) error { return st.Cases(ctx, run.ID, fn) }})
		if err != nil {
			return err
		}
		return rep.Err()
	}
}
