// Package runner creates, resumes, stops and cancels runs: it checks the suite against the
// subject (kinds, languages, schema) before anything is stored, records the manifest, stores the
// suite's cases with the run, works out which units are left and which attempt each is at, builds
// each attempt's environment (the metered model, the snapshot, the trace, the limits) and hands
// the units to the pool. The CLI and the workers call it; it prints nothing.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Store is what a run needs from the store.
type Store interface {
	CreateRun(ctx context.Context, r *store.Run) error
	GetRun(ctx context.Context, id string) (*store.Run, error)
	SetState(ctx context.Context, id, state string) error
	PutCases(ctx context.Context, runID string, first int, cases []suite.Case) error
	Units(ctx context.Context, runID string, fn func(store.UnitState)) error
	PutAttempts(ctx context.Context, runID string, as []store.Attempt) error
	Spent(ctx context.Context, runID string) (float64, error)
	InTx(ctx context.Context, fn func(*store.Tx) error) error
	Cases(ctx context.Context, runID string, fn func(*suite.Case) error) error
	CaseCount(ctx context.Context, runID string) (int, error)
}

// Plan is one invocation of a run: a new run, or the resumption of a stored one (Resume set).
type Plan struct {
	Store   Store
	Version string // vulnbench's, for the manifest

	RunID  string     // a new run's id ("" picks one)
	Resume *store.Run // the run to resume, with its manifest

	Suite string
	Keep  func(*suite.Case) bool // nil keeps every case (--after)
	After string                 // recorded in the manifest

	Factory subject.Factory
	Spec    string // the subject as given, e.g. "constant:vul"
	Config  subject.Config
	// Recorded is the config as the manifest keeps it (secrets scrubbed); nil: Config.
	Recorded subject.Config
	Flags    map[string]string // the subject's flag values, as the manifest keeps them
	Deps     subject.Deps

	Repeats, Concurrency int
	Timeout              time.Duration
	Limits               subject.Limits
	MaxCost              float64 // USD; 0: no cap
	RetryErrors          bool    // on resume, also redo units whose latest attempt is an error
	SkipUnsupported      bool    // give cases the subject cannot judge error verdicts instead of refusing the suite

	// Queue, when set, takes the units instead of the local pool (--queue river): the run, its
	// cases and one job per unit are stored in one transaction, and Execute returns at once;
	// workers do the units (Open, Opened.Do).
	Queue Queue

	Repos         string // --repos: where cases' repositories are cloned
	SnapshotCache string // where snapshots are materialised ("": the user's cache directory)

	Stop    <-chan struct{}
	Poll    time.Duration // how often the run's state is read for a stop or cancel (0: 1 s)
	OnEvent func(engine.Event)
	// OnStart is told the run before its first unit: whether it was resumed and how many of its
	// units were already done.
	OnStart func(run *store.Run, cases, done int)
}

// Outcome is what a run invocation did.
type Outcome struct {
	Run         *store.Run
	Manifest    Manifest
	Cases       int // the cases run (kept by --after)
	All         int // the suite's cases
	Undated     int // cases --after left out for having no date
	Unsupported int // cases given error verdicts because the subject cannot judge them
	Scored      int // units that had a scored verdict before this invocation (a resume)
	Result      engine.Result
	Priced      bool           // the subject's costs are known
	PriceNote   string         // where they come from: "prices of 2026-05"
	Budget      *engine.Budget // nil without --max-cost
	Queued      int            // units handed to Plan.Queue
}

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

// Execute checks the suite, creates or resumes the run and does every unit left. A run whose
// units all ran returns a nil error even when some verdicts are errors; a fault that stops the
// run (a rejected key, the store failing) is returned with the outcome so far.
func Execute(ctx context.Context, p Plan) (*Outcome, error) {
	if p.Repeats < 1 || p.Concurrency < 1 {
		return nil, errors.New("repeats and concurrency must be at least 1")
	}
	if err := p.Config.Validate(); err != nil {
		return nil, err
	}
	man, stored, storeFrom, err := readResume(ctx, &p)
	if err != nil {
		return nil, err
	}
	var sc scan
	if stored {
		sc, err = checkStored(ctx, p)
	} else {
		sc, err = checkSuite(p)
	}
	if err != nil {
		return nil, err
	}
	if len(sc.unsupported) > 0 && !p.SkipUnsupported {
		return nil, unsupportedError(p, sc)
	}
	if p.Resume != nil && sc.hash != p.Resume.SuiteHash {
		return nil, fmt.Errorf("%s changed since run %s started (sha256 %.12s, now %.12s): resuming would mix verdicts of two suites; start a new run", p.Suite, p.Resume.ID, p.Resume.SuiteHash, sc.hash)
	}

	subj, err := p.Factory.New(p.Config, p.Deps)
	if err != nil {
		return nil, err
	}
	if c, ok := subj.(io.Closer); ok {
		defer c.Close() // an advisory database, a scanner's cache: held for the whole run
	}
	out := &Outcome{Cases: sc.cases, All: sc.all, Undated: sc.undated}
	modeled, _ := subj.(subject.Modeled)
	if err := priceRun(ctx, p, modeled, out); err != nil {
		return nil, err
	}

	if p.Queue != nil {
		return enqueue(ctx, p, sc, subj, man, stored, storeFrom, out)
	}
	run, man, err := createOrResume(ctx, p, p.Store, sc, subj, man)
	if err != nil {
		return nil, err
	}
	out.Run, out.Manifest = run, *man

	next, done, err := unitsLeft(ctx, p, run.ID, out)
	if err != nil {
		return nil, err
	}
	if p.OnStart != nil {
		p.OnStart(run, sc.cases, done)
	}

	var refuse func(*suite.Case) string
	if len(sc.unsupported) > 0 {
		refuse = p.Factory.Unsupported
		for _, n := range sc.unsupported {
			out.Unsupported += n
		}
	}
	envs := reposEnvs(subj, newRepos(p.Repos, p.SnapshotCache, p.Deps.Sandbox), p.Limits, p.Timeout)
	if out.Budget != nil {
		envs.Ledger = localLedger{out.Budget}
	}
	src := source(p, p.Store.PutCases, run.ID, sc.hash, storeFrom)
	if stored {
		src = storedSource(ctx, p)
	}
	ctx, ctl := watch(ctx, p.Store, run.ID, p.Stop, p.Poll)
	defer ctl.close()
	res, runErr := engine.Run(ctx, engine.Config{RunID: run.ID, Concurrency: p.Concurrency, Repeats: man.Repeats,
		Timeout: p.Timeout, Next: next, Refuse: refuse, Prepare: envs.Prepare, Total: sc.cases*man.Repeats - done,
		Stop: ctl.stop, OnEvent: p.OnEvent, Budget: out.Budget}, src, subj, p.Store)
	out.Result = res

	st := store.StateDone
	switch {
	case ctl.cancelled():
		st = store.StateCancelled
	case res.Interrupted || runErr != nil:
		st = store.StateInterrupted
	}
	if err := p.Store.SetState(context.WithoutCancel(ctx), run.ID, st); err != nil && runErr == nil {
		runErr = err
	}
	return out, runErr
}

// readResume reads the manifest of the run p resumes (nil for a new run) and takes the run over.
// stored says whether the run's cases are all in the store; storeFrom is how many are. A resume
// without --suite whose cases are not all stored reads the run's suite file (p.Suite set).
func readResume(ctx context.Context, p *Plan) (man *Manifest, stored bool, storeFrom int, err error) {
	// A resume reads the cases stored with the run when all of them are: a run stopped before its
	// source had stored every batch, or a wave-1 run (none), reads its suite file and stores the
	// rest (storeFrom on).
	if p.Resume == nil {
		return nil, false, 0, nil
	}
	if man, err = ReadManifest(p.Resume); err != nil {
		return nil, false, 0, err
	}
	if err := takeOver(p.Resume, time.Now()); err != nil {
		return nil, false, 0, err
	}
	if err := checkVersion(p.Resume.ID, man, p.Factory); err != nil {
		return nil, false, 0, err
	}
	if storeFrom, err = p.Store.CaseCount(ctx, p.Resume.ID); err != nil {
		return nil, false, 0, err
	}
	if p.Suite == "" {
		if stored = storeFrom == man.Suite.Cases; !stored {
			p.Suite = p.Resume.SuitePath
		}
	}
	return man, stored, storeFrom, nil
}

// priceRun says whether the subject's costs are known and, under --max-cost, sets the budget
// with what the resumed run has spent.
func priceRun(ctx context.Context, p Plan, modeled subject.Modeled, out *Outcome) error {
	out.Priced = modeled != nil && isPriced(modeled)
	if out.Priced {
		if d := modeled.Prices().DateOf(modeled.Model().Info().Spec()); d != "" {
			out.PriceNote = "prices of " + d
		}
	}
	if p.MaxCost > 0 {
		if !out.Priced {
			return fmt.Errorf("%w: %s is unpriced (add it with --prices FILE)", ErrUnpriced, p.Spec)
		}
		spent := 0.0
		if p.Resume != nil {
			var err error
			if spent, err = p.Store.Spent(ctx, p.Resume.ID); err != nil {
				return err
			}
		}
		out.Budget = engine.NewBudget(p.MaxCost, spent)
	}
	return nil
}

// unitsLeft reads the run's stored units: next says whether a unit is to do and the attempt it
// is at, and done is how many are done (out.Scored counts the scored ones). A stored unit is done
// unless its attempts are all errors and --retry-errors asks for them again.
func unitsLeft(ctx context.Context, p Plan, runID string, out *Outcome) (next func(id string, r int) (bool, int), done int, err error) {
	units := map[unitKey]store.UnitState{}
	if err := p.Store.Units(ctx, runID, func(u store.UnitState) {
		units[unitKey{CaseID: u.CaseID, Repeat: u.Repeat}] = u
	}); err != nil {
		return nil, 0, err
	}
	isDone := func(u store.UnitState) bool { return u.Scored || !p.RetryErrors }
	for _, u := range units {
		if u.Scored {
			out.Scored++
		}
		if isDone(u) {
			done++
		}
	}
	next = func(id string, r int) (bool, int) {
		u, ok := units[unitKey{CaseID: id, Repeat: r}]
		if !ok {
			return true, 0
		}
		return !isDone(u), u.Attempts
	}
	return next, done, nil
}

func isPriced(m subject.Modeled) bool {
	_, ok := m.Prices().Lookup(m.Model().Info().Spec())
	return ok
}

// checkStored goes over the cases stored with the run being resumed: they were checked when it
// started.
func checkStored(ctx context.Context, p Plan) (scan, error) {
	sc := scan{unsupported: map[string]int{}, hash: p.Resume.SuiteHash}
	err := p.Store.Cases(ctx, p.Resume.ID, func(c *suite.Case) error {
		sc.all++
		sc.cases++
		if why := p.Factory.Unsupported(c); why != "" {
			sc.unsupported[why]++
		}
		return nil
	})
	return sc, err
}

// storedSource streams the cases stored with the run.
func storedSource(ctx context.Context, p Plan) engine.Source {
	return func(fn func(*suite.Case) error) error {
		return p.Store.Cases(ctx, p.Resume.ID, fn)
	}
}

// checkSuite reads the whole suite once: schema, ids and pairs, and which cases the subject
// cannot judge.
func checkSuite(p Plan) (scan, error) {
	sc := scan{unsupported: map[string]int{}}
	hash, problems, err := suite.Scan(p.Suite, true, func(c *suite.Case, _ int) error {
		sc.all++
		if p.Keep != nil && !p.Keep(c) {
			if c.Date == "" {
				sc.undated++
			}
			return nil
		}
		sc.cases++
		if why := p.Factory.Unsupported(c); why != "" {
			sc.unsupported[why]++
		}
		return nil
	})
	if err != nil {
		return sc, err
	}
	if len(problems) > 0 {
		return sc, &SuiteError{Path: p.Suite, Problems: problems}
	}
	if sc.cases == 0 {
		if p.After != "" {
			return sc, fmt.Errorf("%s: no case is dated after %s", p.Suite, p.After)
		}
		return sc, fmt.Errorf("%s: the suite has no cases", p.Suite)
	}
	sc.hash = hash
	return sc, nil
}

func unsupportedError(p Plan, sc scan) error {
	reasons := make([]string, 0, len(sc.unsupported))
	n := 0
	for why, k := range sc.unsupported {
		reasons = append(reasons, fmt.Sprintf("%s: %d cases", why, k))
		n += k
	}
	sort.Strings(reasons)
	return fmt.Errorf("%s: %d of %d cases cannot be judged by %s; nothing was run:\n  %s\nrun only the cases it can judge (vulnbench suite select --language ...), or pass --skip-unsupported to give them error verdicts that say why",
		p.Suite, n, sc.cases, p.Factory.Name, strings.Join(reasons, "\n  "))
}

// runWriter is where a run is created or marked running: the store, or one of its transactions.
type runWriter interface {
	CreateRun(ctx context.Context, r *store.Run) error
	SetState(ctx context.Context, id, state string) error
}

// createOrResume stores a new run with its manifest, or marks the resumed one (whose manifest
// is man) running again.
func createOrResume(ctx context.Context, p Plan, w runWriter, sc scan, subj subject.Subject, man *Manifest) (*store.Run, *Manifest, error) {
	if r := p.Resume; r != nil {
		return r, man, w.SetState(ctx, r.ID, store.StateRunning)
	}
	now := time.Now()
	rec := p.Recorded
	if rec == nil {
		rec = p.Config
	}
	cfg, err := json.Marshal(rec)
	if err != nil {
		return nil, nil, fmt.Errorf("manifest: %w", err)
	}
	m := Manifest{Version: p.Version, Suite: SuiteRef{Path: p.Suite, Hash: sc.hash, Cases: sc.cases},
		Subject: p.Spec, SubjectKind: p.Factory.Name, SubjectVersion: p.Factory.Version, Config: cfg, Flags: p.Flags,
		Repeats: p.Repeats, Concurrency: p.Concurrency, Timeout: p.Timeout.String(), SkipUnsupport: p.SkipUnsupported,
		After: p.After, Created: now.UTC()}
	if sb := p.Deps.Sandbox; sb != nil {
		m.Sandbox = string(sb.Mode())
	}
	if p.Limits != (subject.Limits{}) {
		l := p.Limits
		m.Limits = &l
	}
	if d, ok := subj.(interface{ Describe() map[string]any }); ok {
		m.Describe = d.Describe()
	}
	mj, err := json.Marshal(m)
	if err != nil {
		return nil, nil, fmt.Errorf("manifest: %w", err)
	}
	id := p.RunID
	if id == "" {
		id = NewRunID(now)
	} else if _, err := p.Store.GetRun(ctx, id); err == nil {
		return nil, nil, fmt.Errorf("run %s already exists: resume it with --resume %s, or pick another --run-id", id, id)
	}
	run := &store.Run{ID: id, CreatedAt: now, State: store.StateRunning, SuitePath: p.Suite, SuiteHash: sc.hash,
		Subject: p.Spec, Repeats: p.Repeats, Units: sc.cases * p.Repeats, Manifest: mj, Queue: store.QueueLocal}
	if p.Queue != nil {
		run.Queue = store.QueueRiver
	}
	if err := w.CreateRun(ctx, run); err != nil {
		return nil, nil, err
	}
	return run, &m, nil
}

// caseBatch is how many cases the source stores in one transaction.
const caseBatch = 1000

// source streams the suite's kept cases to the pool, storing those from ordinal storeFrom on
// with the run first, a batch at a time, so that every attempt's case is in the store before the
// attempt (a new run stores from 0; a resume of a run stopped mid-suite, from what it stored).
func source(p Plan, put func(ctx context.Context, runID string, first int, cases []suite.Case) error, runID, hash string, storeFrom int) engine.Source {
	return func(fn func(*suite.Case) error) error {
		batch := make([]suite.Case, 0, caseBatch)
		seen := 0
		flush := func() error {
			if end := seen + len(batch); end > storeFrom {
				from := max(storeFrom-seen, 0)
				if err := put(context.Background(), runID, seen+from, batch[from:]); err != nil {
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
		h, _, err := suite.Scan(p.Suite, false, func(c *suite.Case, _ int) error {
			if p.Keep != nil && !p.Keep(c) {
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
		if err == nil && h != hash {
			return fmt.Errorf("%s changed while the run was reading it", p.Suite)
		}
		return err
	}
}
