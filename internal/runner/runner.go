// Package runner creates, resumes, stops and cancels runs: it checks the suite against the
// subject (kinds, languages, schema) before anything is stored, records the manifest, stores the
// suite's cases with the run, works out which units are left and which attempt each is at, builds
// each attempt's environment (the metered model, the snapshot, the trace, the limits) and hands
// the units to the local pool or to River's queue. The CLI and the workers call it; it prints
// nothing.
package runner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// SuiteError is a suite that cannot be run, with every problem found.
type SuiteError struct {
	Path     string
	Problems []error
}

func (e *SuiteError) Error() string {
	return fmt.Sprintf("%s: %d problems; nothing was run (vulnbench suite validate %s lists them all)", e.Path, len(e.Problems), e.Path)
}

// ErrUnpriced is returned for --max-cost with a subject whose costs are unknown.
var ErrUnpriced = errors.New("--max-cost needs a subject whose prices are known")

// scan is what the checking pass learnt of the suite.
type scan struct {
	hash        string
	cases, all  int
	undated     int
	unsupported map[string]int // reason -> cases
}

type unitKey struct {
	CaseID string
	Repeat int
}

// Execute does every unit left on this process's pool (local.Stop, a stop or cancel stored for
// the run, and the budget end it early), storing each attempt as it completes, and stores the
// run's end state. A run whose units all ran returns a nil error even when some verdicts are
// errors; a fault that stops the run (a rejected key, the store failing) is returned with the
// outcome so far.
func (r *Run) Execute(ctx context.Context, local Local) (*Outcome, error) {
	out := &r.out
	if err := r.store(ctx, r.st); err != nil {
		return nil, err
	}
	done, err := r.readUnits(ctx)
	if err != nil {
		return nil, err
	}
	ctx, ctl := watch(ctx, r.st, r.rec.ID, local.Stop, local.Poll)
	defer ctl.close()
	var res engine.Result
	var runErr error
	if local.OnStart != nil {
		runErr = local.OnStart(ctx, r.rec, r.sc.cases, done)
	}
	if runErr == nil {
		src := func(fn func(subject.Unit) error) error { return r.Units(ctx, fn) }
		res, runErr = engine.Run(ctx, engine.Config{RunID: r.rec.ID, Concurrency: r.host.Concurrency,
			Total: r.sc.cases*r.man.Repeats - done, Stop: ctl.stop, OnEvent: local.OnEvent, Budget: out.Budget}, src, r.Do, r.st)
	}
	out.Result = res

	st := store.StateDone
	switch {
	case ctl.cancelled():
		st = store.StateCancelled
	case res.Interrupted || runErr != nil:
		st = store.StateInterrupted
	}
	if err := r.st.SetState(context.WithoutCancel(ctx), r.rec.ID, st); err != nil && runErr == nil {
		runErr = err
	}
	return out, runErr
}

// runWriter is where a run is created or marked running: the store, or one of its transactions.
type runWriter interface {
	CreateRun(ctx context.Context, r *store.Run) error
	SetState(ctx context.Context, id, state string) error
}

// store stores a new run with its manifest, or marks the resumed one running again.
func (r *Run) store(ctx context.Context, w runWriter) error {
	if r.resumed {
		return w.SetState(ctx, r.rec.ID, store.StateRunning)
	}
	return w.CreateRun(ctx, r.rec)
}

// left says, for a (case, repeat), whether it is to be done and the number of its attempt.
type left func(caseID string, repeat int) (do bool, attempt int)

// readUnits reads the run's stored units once: r.next says whether a unit is to do and the
// attempt it is at, and done is how many are done (the outcome's Scored counts the scored ones).
// A stored unit is done unless its attempts are all errors and --retry-errors asks for them again.
func (r *Run) readUnits(ctx context.Context) (done int, err error) {
	units := map[unitKey]store.UnitState{}
	if r.resumed {
		if err := r.st.Units(ctx, r.rec.ID, func(u store.UnitState) {
			units[unitKey{CaseID: u.CaseID, Repeat: u.Repeat}] = u
		}); err != nil {
			return 0, err
		}
	}
	isDone := func(u store.UnitState) bool { return u.Scored || !r.retry }
	r.out.Scored = 0
	for _, u := range units {
		if u.Scored {
			r.out.Scored++
		}
		if isDone(u) {
			done++
		}
	}
	r.next = func(id string, rep int) (bool, int) {
		u, ok := units[unitKey{CaseID: id, Repeat: rep}]
		if !ok {
			return true, 0
		}
		return !isDone(u), u.Attempts
	}
	return done, nil
}

// Units calls fn with every unit the run has left, in suite order, storing the run's cases
// that are not stored yet as it goes (the run must be stored: Execute, Enqueue).
func (r *Run) Units(ctx context.Context, fn func(subject.Unit) error) error {
	if r.next == nil {
		if _, err := r.readUnits(ctx); err != nil {
			return err
		}
	}
	return r.units(r.st.PutCases, fn)
}

// units streams the units r.next leaves, reading the cases stored with the run or its suite file
// (storing those from r.storeFrom on with put, a batch at a time, so that every attempt's case
// is in the store before the attempt).
func (r *Run) units(put putCases, fn func(subject.Unit) error) error {
	each := func(c *suite.Case) error {
		for rep := 0; rep < r.man.Repeats; rep++ {
			do, attempt := r.next(c.ID, rep)
			if !do {
				continue
			}
			if err := fn(subject.Unit{Case: c, Repeat: rep, Attempt: attempt}); err != nil {
				return err
			}
		}
		return nil
	}
	if r.suite == "" {
		return r.st.Cases(context.Background(), r.rec.ID, each)
	}
	return r.source(put, each)
}

// reading is how this invocation reads the suite file (Host.Deps.Reading).
func (r *Run) reading() *lineerr.Reading { return r.host.Deps.Reading }

// putCases stores cases with a run: the store, or one of its transactions.
type putCases func(ctx context.Context, runID string, first int, cases []suite.Case) error

// caseBatch is how many cases the source stores in one transaction.
const caseBatch = 1000

// source streams the suite's kept cases, storing those from r.storeFrom on with the run first,
// a batch at a time (a new run stores from 0; a resume of a run stopped mid-suite, from what
// it stored).
func (r *Run) source(put putCases, fn func(*suite.Case) error) error {
	batch := make([]suite.Case, 0, caseBatch)
	seen := 0
	flush := func() error {
		if end := seen + len(batch); end > r.storeFrom {
			from := max(r.storeFrom-seen, 0)
			if err := put(context.Background(), r.rec.ID, seen+from, batch[from:]); err != nil {
				return err
			}
		}
		seen += len(batch)
		for i := range batch {
			if err := fn(&batch[i]); err != nil {
				return err
			}
		}
		batch = make([]suite.Case, 0, caseBatch)
		return nil
	}
	h, _, err := suite.Scan(r.suite, r.reading(), false, func(c *suite.Case, _ int) error {
		if r.keep != nil && !r.keep(c) {
			return nil
		}
		batch = append(batch, *c)
		if len(batch) == caseBatch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err == nil && h != r.sc.hash {
		return fmt.Errorf("%s changed while the run was reading it", r.suite)
	}
	return err
}

// checkStored goes over the cases stored with the run being resumed: they were checked when it
// started.
func (r *Run) checkStored(ctx context.Context) (scan, error) {
	sc := scan{unsupported: map[string]int{}, hash: r.rec.SuiteHash}
	err := r.st.Cases(ctx, r.rec.ID, func(c *suite.Case) error {
		sc.all++
		sc.cases++
		if why := r.fac.Unsupported(c); why != "" {
			sc.unsupported[why]++
		}
		return nil
	})
	return sc, err
}

// checkSuite reads the whole suite once: schema, ids and pairs, and which cases fac cannot
// judge.
func checkSuite(path string, rd *lineerr.Reading, keep func(*suite.Case) bool, after string, fac subject.Factory) (scan, error) {
	sc := scan{unsupported: map[string]int{}}
	hash, problems, err := suite.Scan(path, rd, true, func(c *suite.Case, _ int) error {
		sc.all++
		if keep != nil && !keep(c) {
			if c.Date == "" {
				sc.undated++
			}
			return nil
		}
		sc.cases++
		if why := fac.Unsupported(c); why != "" {
			sc.unsupported[why]++
		}
		return nil
	})
	if err != nil {
		return sc, err
	}
	if len(problems) > 0 {
		return sc, &SuiteError{Path: path, Problems: problems}
	}
	if sc.cases == 0 {
		if after != "" {
			return sc, fmt.Errorf("%s: no case is dated after %s", path, after)
		}
		return sc, fmt.Errorf("%s: the suite has no cases", path)
	}
	sc.hash = hash
	return sc, nil
}

func unsupportedError(path string, fac subject.Factory, sc scan) error {
	reasons := make([]string, 0, len(sc.unsupported))
	n := 0
	for why, k := range sc.unsupported {
		reasons = append(reasons, fmt.Sprintf("%s: %d cases", why, k))
		n += k
	}
	sort.Strings(reasons)
	return fmt.Errorf("%s: %d of %d cases cannot be judged by %s; nothing was run:\n  %s\nrun only the cases it can judge (vulnbench suite select --language ...), or pass --skip-unsupported to give them error verdicts that say why",
		path, n, sc.cases, fac.Name, strings.Join(reasons, "\n  "))
}
