package runner

import (
	"context"
	"time"

	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
)

// Spec is a new run: what it judges, with what, and how (Create).
type Spec struct {
	Version string // vulnbench's, for the manifest
	RunID   string // "" picks one
	Suite   string // the suite file
	// After keeps only the cases dated after it (suite.After), and is recorded in the manifest.
	After   string
	Subject Subject
	Repeats int
	Timeout time.Duration // limit per attempt
	Limits  subject.Limits
	// SkipUnsupported gives cases the subject cannot judge error verdicts instead of refusing
	// the suite.
	SkipUnsupported bool
	Host            Host
}

// Subject is a new run's subject kind, configured (Config), or to be configured by Invoke from
// Arg and Values.
type Subject struct {
	Factory subject.Factory
	Spec    string            // as given, e.g. "constant:vul"
	Config  subject.Config    // the manifest records it as Factory.Recorded has it (no secret)
	Flags   map[string]string // the kind's flag values, as the manifest keeps them (secrets scrubbed)
	Arg     string            // the spec's argument, for Invoke's Configure
	Values  subject.Values    // the kind's flag values as given, for Invoke's Configure
}

// Host is what one invocation brings to a run, new or resumed: its environment and how hard it
// may work.
type Host struct {
	Deps          subject.Deps
	Repos         string // --repos: where cases' repositories are cloned
	SnapshotCache string // where snapshots are materialised ("": the user's cache directory)
	Concurrency   int
	MaxCost       float64 // USD for the whole run; 0: no cap
}

// Overrides is what a resume may change of a stored run (Resume); the rest is its manifest's.
type Overrides struct {
	// Registry finds the run's subject kind, rebuilt from the manifest.
	Registry *subject.Registry
	// Flags are the subject's resumable flags given again (--rpm): they replace the recorded
	// values. A flag that is not resumable is refused.
	Flags map[string]string
	// Suite is read for the cases not stored with the run; "": the run's suite file.
	Suite       string
	Timeout     time.Duration   // 0: the run's own
	Limits      *subject.Limits // nil: the run's own
	RetryErrors bool            // also redo units whose latest attempt is an error
	Host        Host
}

// Local is how this process follows the units it does itself (Run.Execute).
type Local struct {
	Stop    <-chan struct{} // closed: start no new unit, finish those in flight
	Poll    time.Duration   // how often the run's state is read for a stop or cancel (0: 1 s)
	OnEvent func(engine.Event)
	// OnStart is told the run, once it is stored, before its first unit: how many cases it has
	// and how many of its units were already done. Its error stops the run before any unit.
	OnStart func(ctx context.Context, run *store.Run, cases, done int) error
}

// Outcome is what a run invocation did.
type Outcome struct {
	Run         *store.Run
	Manifest    manifest.Manifest
	Cases       int // the cases run (kept by --after)
	All         int // the suite's cases
	Undated     int // cases --after left out for having no date
	Unsupported int // cases given error verdicts because the subject cannot judge them
	Scored      int // units that had a scored verdict before this invocation (a resume)
	Result      engine.Result
	Priced      bool           // the subject's costs are known
	PriceNote   string         // where they come from: "prices of 2026-05"
	Budget      *engine.Budget // nil without --max-cost
	Queued      int            // units handed to a queue (Enqueue)

	// What Invoke adds: how it ended, the store's address, the River run's last progress, and
	// the run's score when it ended done and was asked for.
	Ending   Ending
	DSN      string
	River    bool
	Progress Progress
	Report   *report.Report
}
