package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/report"
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
	RunSpend(ctx context.Context, runID string) (store.Spend, error)
	InTx(ctx context.Context, fn func(*store.Tx) error) error
	Cases(ctx context.Context, runID string, fn func(*suite.Case) error) error
	CaseCount(ctx context.Context, runID string) (int, error)
	Case(ctx context.Context, runID, caseID string) (*suite.Case, error)
	SetCaseMeta(ctx context.Context, runID, caseID, key string, value any) error
	report.Store
}

// Run is a run opened to do its units: a new one (Create), a stored one resumed (Resume), or a
// stored one opened on a River worker (Open). It owns the manifest, the subject built from it
// (its version checked against the manifest's) and the one way its attempts are made (Do, with
// the Env of Envs). The local pool (Execute) and River's workers differ only in who calls Do;
// Units are the units left, Score scores the run as vulnbench score --run does.
type Run struct {
	st   Store
	rec  *store.Run // the run as stored, or as Execute or Enqueue will store it
	man  manifest.Manifest
	fac  subject.Factory
	cfg  subject.Config // the subject's, as this invocation configured it
	subj subject.Subject
	at   engine.Attempts
	envs *Envs
	keep func(*suite.Case) bool

	// A local invocation's (Create, Resume).
	suite     string // the suite file cases are read from ("" : all are stored)
	sc        scan
	storeFrom int  // how many of the run's cases are stored
	next      left // which units are left, at which attempt (readUnits)
	resumed   bool
	retry     bool
	host      Host
	out       Outcome
}

// Create checks the suite against the subject (schema, ids, pairs, kinds and languages) and
// builds the subject and the manifest of a new run; nothing is stored until Execute or Enqueue.
func Create(ctx context.Context, st Store, s Spec) (*Run, error) {
	sj := s.Subject
	if s.Repeats < 1 || s.Host.Concurrency < 1 {
		return nil, errors.New("repeats and concurrency must be at least 1")
	}
	if err := sj.Config.Validate(); err != nil {
		return nil, err
	}
	keep, err := suite.After(s.After)
	if err != nil {
		return nil, fmt.Errorf("after: %w", err)
	}
	r := &Run{st: st, fac: sj.Factory, cfg: sj.Config, keep: keep, suite: s.Suite, host: s.Host}
	if r.sc, err = checkSuite(s.Suite, r.reading(), keep, s.After, sj.Factory); err != nil {
		return nil, err
	}
	if len(r.sc.unsupported) > 0 && !s.SkipUnsupported {
		return nil, unsupportedError(s.Suite, sj.Factory, r.sc)
	}
	now := time.Now()
	id := s.RunID
	if id == "" {
		id = NewRunID(now)
	} else if _, err := st.GetRun(ctx, id); err == nil {
		return nil, fmt.Errorf("run %s already exists: resume it with --resume %s, or pick another --run-id", id, id)
	}
	if r.subj, err = sj.Factory.New(sj.Config, s.Host.Deps); err != nil {
		return nil, err
	}
	if err := r.describe(s, now); err != nil {
		r.Close()
		return nil, err
	}
	mj, err := json.Marshal(r.man)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("manifest: %w", err)
	}
	r.rec = &store.Run{ID: id, CreatedAt: now, State: store.StateRunning, SuitePath: s.Suite, SuiteHash: r.sc.hash,
		Subject: sj.Spec, Repeats: s.Repeats, Units: r.sc.cases * s.Repeats, Manifest: mj, Queue: store.QueueLocal}
	if err := r.finish(ctx, s.Timeout, s.Limits); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// describe writes the manifest of a new run.
func (r *Run) describe(s Spec, now time.Time) error {
	rec := r.fac.Recorded(s.Subject.Config) // no secret
	cfg, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	settings := r.fac.SettingsOf(rec)
	r.man = manifest.Manifest{Version: s.Version, Suite: manifest.Suite{Path: s.Suite, Hash: r.sc.hash, Cases: r.sc.cases, Lossy: r.reading() != nil && r.reading().Lossy},
		Subject: s.Subject.Spec, SubjectKind: r.fac.Name, SubjectVersion: r.fac.Version, Config: cfg, Recorded: &settings, Flags: s.Subject.Flags,
		Repeats: s.Repeats, Concurrency: s.Host.Concurrency, Timeout: s.Timeout.String(), SkipUnsupport: s.SkipUnsupported,
		After: s.After, Created: now.UTC()}
	if sb := s.Host.Deps.Sandbox; sb != nil {
		r.man.Sandbox = string(sb.Mode())
		for _, u := range sb.Unbounded() {
			if !strings.HasPrefix(u, "isolation:") {
				r.man.SandboxUnbounded = append(r.man.SandboxUnbounded, u)
			}
		}
	}
	if l := s.Limits; l != (subject.Limits{}) {
		r.man.Limits = &manifest.Limits{Steps: l.Steps, Tokens: l.Tokens, CostUSD: l.CostUSD, Wall: l.Wall}
	}
	r.man.Describe = r.fac.Describe(r.subj)
	return nil
}

// Resume opens stored run id to do the units it has left: the subject rebuilt from the
// manifest (its kind at the version it started with, its flags as recorded but for o.Flags),
// its cases those stored with it or, for the rest, its suite file, which must be unchanged.
func Resume(ctx context.Context, st Store, id string, o Overrides) (*Run, error) {
	if o.Host.Concurrency < 1 {
		return nil, errors.New("concurrency must be at least 1")
	}
	rec, err := st.GetRun(ctx, id)
	if err != nil {
		return nil, err
	}
	r := &Run{st: st, rec: rec, resumed: true, retry: o.RetryErrors, host: o.Host, suite: o.Suite}
	if err := r.configure(ctx, o.Registry, o.Flags, nil); err != nil {
		return nil, err
	}
	if err := checkSandbox(id, &r.man, o.Host.Deps.Sandbox); err != nil {
		return nil, err
	}
	if err := takeOver(rec, time.Now()); err != nil {
		return nil, err
	}
	if err := r.readCases(ctx); err != nil {
		return nil, err
	}
	if r.subj, err = r.fac.New(r.cfg, o.Host.Deps); err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	timeout, _ := time.ParseDuration(r.man.Timeout)
	if o.Timeout > 0 {
		timeout = o.Timeout
	}
	limits := limitsOf(r.man.Limits)
	if o.Limits != nil {
		limits = *o.Limits
	}
	if err := r.finish(ctx, timeout, limits); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Preflight checks on this host what a run's subject needs on its cases before the subject is
// built (a worker's preflight); its error refuses the run here.
type Preflight func(ctx context.Context, run *store.Run, fac subject.Factory, cfg subject.Config) error

// configure reads the manifest of r.rec and configures its subject (r.cfg): the kind it names,
// at the version it recorded, with its flags (changed by flags, which must be resumable). The
// one version check of a local resume and of River's workers.
func (r *Run) configure(ctx context.Context, reg *subject.Registry, flags map[string]string, preflight Preflight) error {
	id := r.rec.ID
	man, err := ReadManifest(r.rec)
	if err != nil {
		return err
	}
	r.man = *man
	fac, arg, err := reg.Lookup(man.Subject)
	if err != nil {
		return fmt.Errorf("run %s: %w", id, err)
	}
	r.fac = fac
	if err := checkVersion(id, man, fac); err != nil {
		return err
	}
	if err := subject.CheckNeeds(fac); err != nil {
		return fmt.Errorf("run %s: %w", id, err)
	}
	values := maps.Clone(man.FlagValues())
	for name, v := range flags {
		if fl, ok := fac.Flag(name); !ok || !fl.Resumable {
			return fmt.Errorf("run %s: --%s cannot change on resume: the run keeps the settings it started with", id, name)
		}
		if values == nil {
			values = map[string]string{}
		}
		values[name] = v
	}
	if r.cfg, err = fac.Configure(arg, subject.TextValues(values)); err != nil {
		return fmt.Errorf("run %s: %w", id, err)
	}
	if preflight != nil {
		if err := preflight(ctx, r.rec, fac, r.cfg); err != nil {
			return fmt.Errorf("run %s: %w", id, err)
		}
	}
	if r.keep, err = suite.After(man.After); err != nil {
		return fmt.Errorf("run %s: after: %w", id, err)
	}
	return nil
}

// readCases checks the cases a resume will read: those stored with the run when all are (they
// were checked when it started), else its suite file, unchanged since.
func (r *Run) readCases(ctx context.Context) (err error) {
	if r.storeFrom, err = r.st.CaseCount(ctx, r.rec.ID); err != nil {
		return err
	}
	if r.suite == "" {
		if r.storeFrom == r.man.Suite.Cases {
			r.sc, err = r.checkStored(ctx)
			return err
		}
		r.suite = r.rec.SuitePath // stopped before every case was stored, or a wave-1 run
	}
	if r.man.Suite.Lossy { // read as the run started: the cases it stored were read so
		if r.host.Deps.Reading == nil {
			r.host.Deps.Reading = &lineerr.Reading{}
		}
		r.host.Deps.Reading.Lossy = true
	}
	if r.sc, err = checkSuite(r.suite, r.reading(), r.keep, r.man.After, r.fac); err != nil {
		return err
	}
	if len(r.sc.unsupported) > 0 && !r.man.SkipUnsupport {
		return unsupportedError(r.suite, r.fac, r.sc)
	}
	if r.sc.hash != r.rec.SuiteHash {
		return fmt.Errorf("%s changed since run %s started (sha256 %.12s, now %.12s): resuming would mix verdicts of two suites; start a new run", r.suite, r.rec.ID, r.rec.SuiteHash, r.sc.hash)
	}
	return nil
}

// finish prices the run, opens its budget and sets how its attempts are made.
func (r *Run) finish(ctx context.Context, timeout time.Duration, limits subject.Limits) error {
	if err := r.price(ctx); err != nil {
		return err
	}
	var ledger Ledger
	if r.out.Budget != nil {
		ledger = localLedger{r.out.Budget}
	}
	r.attempts(timeout, limits, ledger, nil, len(r.sc.unsupported) > 0)
	for _, n := range r.sc.unsupported {
		r.out.Unsupported += n
	}
	r.out.Cases, r.out.All, r.out.Undated = r.sc.cases, r.sc.all, r.sc.undated
	r.out.Run, r.out.Manifest = r.rec, r.man
	return nil
}

// attempts sets the one way the run's attempts are made, on the local pool and on a worker
// alike: each attempt's Env (the subject's model metered under limits, the run's ledger and
// pacer, the case's snapshot from this host's --repos), the run's timeout, and, when refuse is
// set, error verdicts for the cases the subject cannot judge (--skip-unsupported).
func (r *Run) attempts(timeout time.Duration, limits subject.Limits, ledger Ledger, pace Pacer, refuse bool) {
	h := r.host
	r.envs = reposEnvs(r.fac, r.subj, newRepos(h.Repos, h.SnapshotCache, h.Deps.Sandbox).recordSizes(r.st, r.rec.ID), limits, timeout)
	r.envs.Ledger, r.envs.Pace = ledger, pace
	r.at = engine.Attempts{Subject: r.subj, Timeout: timeout, Prepare: r.envs.Prepare}
	if refuse {
		r.at.Refuse = r.fac.Unsupported
	}
}

// price says whether the subject's costs are known and, under --max-cost, sets the budget with
// what a resumed run has spent.
func (r *Run) price(ctx context.Context) error {
	modeled, _ := r.fac.Modeled(r.subj)
	r.out.Priced = modeled != nil && isPriced(modeled)
	if r.out.Priced {
		if d := modeled.Prices().DateOf(modeled.Model().Info().Spec()); d != "" {
			r.out.PriceNote = "prices of " + d
		}
	}
	if r.host.MaxCost <= 0 {
		return nil
	}
	if !r.out.Priced {
		return fmt.Errorf("%w: %s is unpriced (add it with --prices FILE)", ErrUnpriced, r.man.Subject)
	}
	spent := 0.0
	if r.resumed {
		var err error
		sp, err := r.st.RunSpend(ctx, r.rec.ID)
		if err != nil {
			return err
		}
		spent = sp.Cost
	}
	r.out.Budget = engine.NewBudget(r.host.MaxCost, spent)
	return nil
}

func isPriced(m subject.Modeled) bool {
	_, ok := m.Prices().Lookup(m.Model().Info().Spec())
	return ok
}

// ID is the run's id.
func (r *Run) ID() string { return r.rec.ID }

// Record is the run as stored (a new run: as Execute or Enqueue will store it).
func (r *Run) Record() *store.Run { return r.rec }

// Manifest is the run's manifest.
func (r *Run) Manifest() *manifest.Manifest { return &r.man }

// Settings are the subject's settings as this invocation configured it (a resume's resumable
// flags given again; the base URL as given, where the manifest records it scrubbed).
func (r *Run) Settings() manifest.Settings { return r.fac.SettingsOf(r.cfg) }

// Subject is the run's subject, built from its manifest.
func (r *Run) Subject() subject.Subject { return r.subj }

// Factory is the run's subject kind.
func (r *Run) Factory() subject.Factory { return r.fac }

// Repeats is how many times each case is judged.
func (r *Run) Repeats() int { return r.man.Repeats }

// RetryErrors says whether this invocation redoes the units whose attempts are all errors.
func (r *Run) RetryErrors() bool { return r.retry }

// Cases streams the run's cases as this invocation reads them: its suite file, kept by --after,
// or those stored with it.
func (r *Run) Cases(ctx context.Context, fn func(*suite.Case) error) error {
	if r.suite == "" {
		return r.st.Cases(ctx, r.rec.ID, fn)
	}
	_, _, err := suite.Scan(r.suite, r.reading(), false, func(c *suite.Case, _ int) error {
		if r.keep != nil && !r.keep(c) {
			return nil
		}
		return fn(c)
	})
	return err
}

// Do makes one attempt at u with the run's subject, timeout, refusal and Env.
func (r *Run) Do(ctx context.Context, u subject.Unit) (a store.Attempt, own *float64, ok bool, err error) {
	return r.at.Do(ctx, u)
}

// Score scores the run as vulnbench score --run does: its ground truth the cases stored with it
// (the suite file may be gone), else the suite file it recorded, which must be unchanged; the
// cases kept as the run kept them. req's Runs and Keep are set here.
func (r *Run) Score(ctx context.Context, req report.Request) (*report.Report, error) {
	req.Runs, req.Keep = []string{r.rec.ID}, r.keep
	return report.Build(ctx, r.st, req)
}

// Close releases what the subject holds (an advisory database, a scanner's cache).
func (r *Run) Close() error { return r.fac.Close(r.subj) }
