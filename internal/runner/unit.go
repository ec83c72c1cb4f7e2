package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// UnitStore is what doing the units of a stored run needs from the store: the run, its cases,
// and its shared budget and rate limit.
type UnitStore interface {
	GetRun(ctx context.Context, id string) (*store.Run, error)
	Case(ctx context.Context, runID, caseID string) (*suite.Case, error)
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
	// Preflight, when set, checks on this host what the run's subject needs on its cases (the
	// worker's preflight) before the subject is built; its error refuses the run here.
	Preflight func(ctx context.Context, run *store.Run, fac subject.Factory, cfg subject.Config) error
}

// Opened is a stored run opened on any host to do its units one at a time, with no suite file:
// the subject is built from the manifest (its kind, version check, flags as recorded), each
// unit's case is read from the store, and each attempt goes through engine.Attempt, the local
// pool's own per-unit path, with the same Env (metered model, snapshot, trace, limits). The run's
// --max-cost is its ledger in the store and its --rpm a rate shared by every worker.
type Opened struct {
	st   UnitStore
	run  *store.Run
	man  *Manifest
	subj subject.Subject
	cfg  engine.Config
}

// Open opens run id for doing units.
func Open(ctx context.Context, st UnitStore, id string, o OpenOptions) (*Opened, error) {
	run, err := st.GetRun(ctx, id)
	if err != nil {
		return nil, err
	}
	man, err := ReadManifest(run)
	if err != nil {
		return nil, err
	}
	fac, arg, err := o.Registry.Lookup(man.Subject)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	if err := checkVersion(id, man, fac); err != nil {
		return nil, err
	}
	if err := subject.CheckNeeds(fac); err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	cfg, err := fac.Configure(arg, Values(man.FlagValues()))
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	if o.Preflight != nil {
		if err := o.Preflight(ctx, run, fac, cfg); err != nil {
			return nil, fmt.Errorf("run %s: %w", id, err)
		}
	}
	subj, err := fac.New(cfg, o.Deps)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	r := &Opened{st: st, run: run, man: man, subj: subj}
	timeout, _ := time.ParseDuration(man.Timeout)
	var limits subject.Limits
	if man.Limits != nil {
		limits = *man.Limits
	}
	var ledger Ledger
	if _, err := st.Budget(ctx, id); err == nil {
		ledger = storeLedger{st: st, run: id}
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	var pace Pacer
	if rpm, _ := strconv.Atoi(man.FlagValues()["rpm"]); rpm > 0 {
		pace = sharedRate{st: st, run: id, perSecond: int(math.Ceil(float64(rpm) / 60))}
	}
	envs := reposEnvs(subj, newRepos(o.Repos, o.SnapshotCache, o.Deps.Sandbox), limits, timeout)
	envs.Ledger, envs.Pace = ledger, pace
	r.cfg = engine.Config{RunID: id, Timeout: timeout, Prepare: envs.Prepare}
	if man.SkipUnsupport {
		r.cfg.Refuse = fac.Unsupported
	}
	return r, nil
}

// Run is the opened run as it was read.
func (r *Opened) Run() *store.Run { return r.run }

// Timeout is the run's limit per attempt.
func (r *Opened) Timeout() time.Duration { return r.cfg.Timeout }

// Do makes attempt number attempt at (caseID, repeat). ok is false when ctx was cancelled or the
// run's budget refused the unit's first call: nothing is to be stored. err is the subject's
// error, if any (the attempt is then an error verdict); one wrapping subject.ErrAbort means every
// unit of the run would fail the same way.
func (r *Opened) Do(ctx context.Context, caseID string, repeat, attempt int) (a store.Attempt, ok bool, err error) {
	c, err := r.st.Case(ctx, r.run.ID, caseID)
	if err != nil {
		return a, false, err
	}
	a, _, err, ok = engine.Attempt(ctx, &r.cfg, r.subj, subject.Unit{Case: c, Repeat: repeat, Attempt: attempt})
	return a, ok, err
}

// Close releases what the subject holds.
func (r *Opened) Close() error {
	if c, ok := r.subj.(io.Closer); ok {
		return c.Close()
	}
	return nil
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
