package subject

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/trace"
)

// Limits bound one unit; 0 means no limit.
type Limits struct {
	Steps   int           // model calls
	Tokens  int64         // input + output tokens over all calls
	CostUSD float64       // spent over all calls
	Wall    time.Duration // the attempt's time, --timeout (the pool cancels its context then)
}

// Env is everything a subject may use for one unit: the metered model (every call traced, its
// usage and cost counted, the budget and the unit's limits checked before it), the case's
// snapshot, a trace recorder and the unit's limits.
type Env struct {
	// Model is the subject's model, metered for this unit; nil when the subject has none.
	Model llm.Model
	// Trace records the attempt's events; never nil.
	Trace  trace.Recorder
	Limits Limits

	snapshot func(context.Context) (*snapshot.Snapshot, error)
	graph    func(context.Context, *snapshot.Snapshot) (query.Graph, error)

	mu    sync.Mutex
	snap  *snapshot.Snapshot // opened for this unit, closed by Close
	snErr error
}

// EnvOptions builds an Env.
type EnvOptions struct {
	Model  llm.Model
	Trace  trace.Recorder
	Limits Limits
	// Snapshot opens the case's repository at its commit (a handle with this unit's read budget);
	// nil: the case has none.
	Snapshot func(context.Context) (*snapshot.Snapshot, error)
	// Graph returns the code graph of a snapshot, built once and shared (the runner gives a
	// *codegraph.Index).
	Graph func(context.Context, *snapshot.Snapshot) (query.Graph, error)
}

// NewEnv returns an Env; a nil Trace records nothing.
func NewEnv(o EnvOptions) *Env {
	if o.Trace == nil {
		o.Trace = trace.Discard{}
	}
	return &Env{Model: o.Model, Trace: o.Trace, Limits: o.Limits, snapshot: o.Snapshot, graph: o.Graph}
}

// Snapshot materialises (once, shared by every unit of the same repository and commit) the case's
// repository and returns this unit's read-only view of it: no path, `..` or symlink leaves it,
// reads are bounded. ErrNoSnapshot when the case has none; a repository or commit that cannot be
// found is an error naming the paths tried. Later calls return the same handle.
func (e *Env) Snapshot(ctx context.Context) (*snapshot.Snapshot, error) {
	if e == nil || e.snapshot == nil {
		return nil, ErrNoSnapshot
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.snap == nil && e.snErr == nil {
		e.snap, e.snErr = e.snapshot(ctx)
	}
	return e.snap, e.snErr
}

// Graph returns the code graph of the case's snapshot, built once per snapshot and shared by
// every unit that asks for it.
func (e *Env) Graph(ctx context.Context) (query.Graph, error) {
	s, err := e.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if e.graph == nil {
		return nil, errors.New("no code graph is available to this run")
	}
	return e.graph(ctx, s)
}

// Close releases what the unit opened. The runner calls it when the attempt ends.
func (e *Env) Close() {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.snap != nil {
		e.snap.Close()
	}
}
