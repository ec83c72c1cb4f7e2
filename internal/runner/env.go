package runner

import (
	"context"
	"time"

	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Envs builds the Env of every attempt of a run, the same way for the local pool, River's
// workers and subjecttest: the subject's model metered for the unit (its limits, the run's
// ledger and pacer, every call in the trace), the case's snapshot and its code graph.
type Envs struct {
	// Modeled is the subject when it calls a model; nil gives Envs with no model.
	Modeled subject.Modeled
	Ledger  Ledger // the run's --max-cost; nil: none
	Pace    Pacer  // the run's --rpm shared by every worker; nil: none
	Limits  subject.Limits
	Wall    time.Duration // the run's limit per attempt, for subjects that pace themselves
	// Snapshot returns how to open a case's snapshot (nil: the case has none); nil: no snapshots.
	Snapshot func(*suite.Case) func(context.Context) (*snapshot.Snapshot, error)
	Graph    func(context.Context, *snapshot.Snapshot) (query.Graph, error)
}

// Prepare implements engine.Prepare.
func (e *Envs) Prepare(u subject.Unit, rec trace.Recorder) (*subject.Env, func() verdict.Usage) {
	limits := e.Limits
	limits.Wall = e.Wall
	opts := subject.EnvOptions{Trace: rec, Limits: limits, Graph: e.Graph}
	if e.Snapshot != nil {
		opts.Snapshot = e.Snapshot(u.Case)
	}
	var usage func() verdict.Usage
	if e.Modeled != nil {
		m := newMeter(e.Modeled.Model(), e.Modeled.Prices(), e.Ledger, e.Pace, e.Limits, rec)
		opts.Model, usage = m, m.Usage
	}
	return subject.NewEnv(opts), usage
}

var _ engine.Prepare = (&Envs{}).Prepare

// reposEnvs is Envs of fac's subj whose snapshots and graphs come from rp (--repos, the
// snapshot cache): a model when the kind declares one, snapshots when it declares it reads
// repositories.
func reposEnvs(fac subject.Factory, subj subject.Subject, rp *repos, limits subject.Limits, wall time.Duration) *Envs {
	e := &Envs{Limits: limits, Wall: wall}
	e.Modeled, _ = fac.Modeled(subj)
	if fac.ReadsRepository() {
		e.Snapshot, e.Graph = rp.snapshotOf, rp.graph
	}
	return e
}
