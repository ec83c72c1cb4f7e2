// Package subject defines what is under test and the environment it judges a case in. Subjects
// are symmetrical: a baseline, a scanner, a predictions file, a model or an agent all turn a unit
// (case, repeat, attempt) into a verdict, using only what their Env gives them. The explicit list
// of subject kinds is in internal/subject/builtin.
package subject

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Unit is one try at one (case, repeat). Attempt counts the tries at it from 0: every attempt is
// stored, and a retried unit gets the next number.
type Unit struct {
	Case    *suite.Case
	Repeat  int
	Attempt int
}

// Subject judges units. Assess returns an error only for infrastructure faults (the runner stores
// them as an error verdict with the reason); an answer that cannot be understood is a verdict with
// status failed. Assess is called from several goroutines at once.
type Subject interface {
	Assess(ctx context.Context, u Unit, env *Env) (verdict.Verdict, error)
}

// ErrAbort, wrapped in a subject's error, stops the whole run: a fault that every case would hit
// (a rejected API key, an unknown model). The attempt is not stored, so a resume redoes it.
var ErrAbort = errors.New("run aborted")

// ErrLimit, wrapped, says a unit reached one of its limits (steps, tokens, cost): an agent stops
// there and answers with what it has, or the unit ends in an error that says which limit.
var ErrLimit = errors.New("unit limit reached")

// ErrNoSnapshot is returned by Env.Snapshot for a case without a repository.
var ErrNoSnapshot = errors.New("the case has no repository snapshot")

// NeedsRepo is the error of subject name when Env.Snapshot failed with err for case c: for a
// case without a repository, one that says what the subject needs.
func NeedsRepo(name string, c *suite.Case, err error) error {
	if errors.Is(err, ErrNoSnapshot) {
		return fmt.Errorf("subject %s needs the case's repository: case %s has no repo.url and repo.commit (%w)", name, c.ID, err)
	}
	return fmt.Errorf("subject %s: %w", name, err)
}

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

// Modeled is implemented by subjects that call a model: the runner meters Model for each unit and
// hands the metered model to Assess as Env.Model. Prices turn usage into cost.
type Modeled interface {
	Model() llm.Model
	Prices() llm.Prices
}

// Binary is a program a subject runs, and how to get it.
type Binary struct {
	Name    string
	Install string
}

// Needs says what a subject requires from the machine.
type Needs struct {
	Binaries []Binary
	Env      []string // environment variables that must be set (API keys)
	Network  bool
}

// Config is a subject kind's typed configuration, recorded in the run's manifest as JSON.
type Config interface {
	Validate() error
}

// Flag is a run flag a subject kind reads. Kinds that read the same flag share it; its Default
// fixes its type (string, int, int64, float64, bool or time.Duration).
type Flag struct {
	Name    string
	Default any
	Usage   string
	Hidden  bool
	// Resumable flags may change on --resume (rate limits, retries); the others keep the value
	// the run started with.
	Resumable bool
	// Scrub removes secrets from the value before it is stored in the manifest (a URL's user info).
	Scrub func(string) string
}

// Values reads flag values by name.
type Values interface {
	String(name string) string
	Int(name string) int
	Int64(name string) int64
	Float(name string) float64
	Bool(name string) bool
	Duration(name string) time.Duration
}

// Deps are the process's resources a subject may be built with.
type Deps struct {
	Cache  llm.CacheStore      // model responses (nil: no cache)
	Getenv func(string) string // the environment, for API keys
}

// Factory makes one kind of subject.
type Factory struct {
	Name    string // as written before the colon in a spec
	Usage   string // the spec's shape, e.g. "constant:vul|ben"
	Summary string // one line for --help
	Version string // bumped whenever the kind's verdicts may change for the same input
	Kinds   []suite.Kind
	// Languages the kind can judge (lower case, as cases name them); nil means any. A case with no
	// language is judged when its kind is supported.
	Languages []string
	Needs     Needs
	ArgReq    bool // the spec needs ":ARG"
	Flags     []Flag
	// Configure turns the spec's argument and the flags into the kind's config, with defaults
	// applied and validated.
	Configure func(arg string, v Values) (Config, error)
	New       func(cfg Config, d Deps) (Subject, error)
}

// Registry is the explicit list of subject kinds.
type Registry struct {
	factories []Factory
}

// NewRegistry lists the given factories.
func NewRegistry(fs ...Factory) *Registry { return &Registry{factories: fs} }

// Factories returns every factory in registration order.
func (r *Registry) Factories() []Factory { return r.factories }

// Flags returns every flag the kinds read, each once, in registration order.
func (r *Registry) Flags() []Flag {
	var out []Flag
	seen := map[string]bool{}
	for _, f := range r.factories {
		for _, fl := range f.Flags {
			if !seen[fl.Name] {
				seen[fl.Name] = true
				out = append(out, fl)
			}
		}
	}
	return out
}

// Lookup splits a spec such as "constant:vul" and finds its factory.
func (r *Registry) Lookup(spec string) (Factory, string, error) {
	name, arg, hasArg := strings.Cut(spec, ":")
	for _, f := range r.factories {
		if f.Name != name {
			continue
		}
		if f.ArgReq && (!hasArg || arg == "") {
			return Factory{}, "", fmt.Errorf("subject %q needs an argument: %s", spec, f.Usage)
		}
		if !f.ArgReq && hasArg {
			return Factory{}, "", fmt.Errorf("subject %q takes no argument: %s", spec, f.Usage)
		}
		return f, arg, nil
	}
	var names []string
	for _, f := range r.factories {
		names = append(names, f.Usage)
	}
	return Factory{}, "", fmt.Errorf("unknown subject %q; known subjects: %s", spec, strings.Join(names, ", "))
}

// CheckNeeds reports the first requirement of f that this machine does not meet, saying how to
// meet it.
func CheckNeeds(f Factory) error {
	for _, b := range f.Needs.Binaries {
		if _, err := exec.LookPath(b.Name); err != nil {
			if strings.ContainsRune(b.Name, filepath.Separator) { // a tool in a prefix of its own
				return fmt.Errorf("subject %s needs %s, which is not installed; install it with: %s", f.Name, b.Name, b.Install)
			}
			return fmt.Errorf("subject %s needs the %s program, which is not on PATH; install it with: %s", f.Name, b.Name, b.Install)
		}
	}
	for _, e := range f.Needs.Env {
		if os.Getenv(e) == "" {
			return fmt.Errorf("subject %s needs the environment variable %s", f.Name, e)
		}
	}
	return nil
}

// Supports reports whether f can judge cases of kind k.
func (f Factory) Supports(k suite.Kind) bool { return slices.Contains(f.Kinds, k) }

// Unsupported says why f cannot judge c, or "" when it can.
func (f Factory) Unsupported(c *suite.Case) string {
	if !f.Supports(c.Kind) {
		return fmt.Sprintf("subject %s cannot judge %s cases (it judges %s)", f.Name, c.Kind, joinKinds(f.Kinds))
	}
	if f.Languages != nil && c.Language != "" && !slices.Contains(f.Languages, strings.ToLower(c.Language)) {
		return fmt.Sprintf("subject %s cannot judge %s code (it judges %s)", f.Name, c.Language, strings.Join(f.Languages, ", "))
	}
	return ""
}

func joinKinds(ks []suite.Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}
