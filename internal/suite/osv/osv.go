// Package osv builds suites from OSV vulnerability records (`vulnbench suite build osv`): for
// every record with a usable fix commit (a GIT range's fixed event, or a FIX reference to a
// commit URL) whose repository is under --repos, the functions the fix changed, narrowed by what
// the record says (the Go database's vulnerable symbols, OSS-Fuzz's crash state, or with no
// hint only fixes changing at most MaxFuncs functions), each giving a function pair (f_vul at
// the fix's first parent, f_ben at the fix) or a JitVul pair through internal/suite/jitvul's
// tracer. It also measures JitVul's introducing-commit rule against OSS-Fuzz's bisection
// (Study, `vulnbench suite osv-vic`).
//
// Every record that gives no pair is reported with why; records are untrusted input: their
// commits and paths reach git only through the tracer's checks.
package osv

import (
	"runtime"
	"time"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
)

// Version is bumped whenever the same records and repositories may give other cases.
const Version = "1"

// Defaults of Options.
const (
	DefaultMaxFuncs = 3
	DefaultMaxRange = 500
)

// Options tune a build.
type Options struct {
	// Kind is suite.KindFunction (default: f_vul at the fix's parent) or suite.KindJIT (f_vul
	// at the introducing commit, by the tracer's rule).
	Kind suite.Kind
	// After keeps only cases dated after it (a model's training cutoff); zero keeps all.
	After time.Time
	// Date is how a case is dated: DateEarliest (the default), DatePublished or DateFix.
	Date DateRule
	// MaxFuncs: a fix the record gives no narrowing hint for is kept only when it changes at
	// most this many functions; default 3.
	MaxFuncs int
	// Fallback: a record whose symbols or crash state match no changed function is narrowed
	// by MaxFuncs instead of dropped (its narrowing then says "max-funcs (crash state unmatched)").
	Fallback bool
	// MaxRange: the commits of an OSS-Fuzz fixed_range searched for the fix at most; default 500.
	MaxRange int
	// Workers: fixes analysed and traced at once; default GOMAXPROCS.
	Workers int
	// Trace: the tracer's options (git binary, history limit, file size limit).
	Trace jitvul.Options
}

// DateRule says which date a case takes.
type DateRule string

// The date rules. A record's code is public from the fix commit on (the fix shows the bug) or
// from the record's publication, whichever is first: DateEarliest. OSS-Fuzz's records of 2016-2020
// were published in bulk on 2021-01-13, years after their fixes, and a Go record can be
// published years after its fix or months before it, so neither date alone says when the code
// could be known.
const (
	DateEarliest  DateRule = "earliest"  // the fix commit's committer date or published, whichever is first
	DatePublished DateRule = "published" // the record's published date; the fix's when the record has none
	DateFix       DateRule = "fix"       // the fix commit's committer date
)

// DateRules are the rules, as --date lists them.
func DateRules() []DateRule { return []DateRule{DateEarliest, DatePublished, DateFix} }

func (o Options) withDefaults() Options {
	if o.Date == "" {
		o.Date = DateEarliest
	}
	if o.Kind == "" {
		o.Kind = suite.KindFunction
	}
	if o.MaxFuncs <= 0 {
		o.MaxFuncs = DefaultMaxFuncs
	}
	if o.MaxRange <= 0 {
		o.MaxRange = DefaultMaxRange
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Trace.Workers <= 0 {
		o.Trace.Workers = o.Workers
	}
	return o
}

// Reason says why a record (or one of its functions) gave no pair.
type Reason string

// The reasons a record is dropped. A function the tracer drops keeps the tracer's reason
// (jitvul.Reason: identical halves, f_vul never changes within the history limit, ...).
const (
	ReasonWithdrawn     Reason = "withdrawn"
	ReasonNoFix         Reason = "no fix commit"      // no GIT fixed event, no FIX reference to a commit
	ReasonNoRepository  Reason = "repository missing" // not under --repos (or a URL the layout cannot name)
	ReasonNoCommit      Reason = "commit missing"     // no fix commit the record names is in the repository
	ReasonRootFix       Reason = "fix has no parent"
	ReasonBefore        Reason = "dated on or before --after"
	ReasonNoFunction    Reason = "fix changes no function" // nothing the code graph reads changed
	ReasonOnlyTests     Reason = "fix touches only tests"  // only tests and fuzzing harnesses
	ReasonNoSymbolMatch Reason = "no changed function matches the symbols"
	ReasonNoCrashMatch  Reason = "no changed function matches the crash state"
	ReasonTooMany       Reason = "fix changes more than --max-funcs functions" // and the record names none
	ReasonFixRange      Reason = "fix is a range"                              // fixed_range with no single commit to take
	ReasonDuplicate     Reason = "duplicate of another record's fix"
	ReasonAdded         Reason = "function added by the fix" // nothing to pair it with
	ReasonDeleted       Reason = "function deleted by the fix"
	ReasonUnreadable    Reason = "file not readable" // binary, too large, skipped by the code graph
)

// Dropped is a record that gave no pair, or a function of a record that was left out.
type Dropped struct {
	ID       string `json:"id"`
	Source   string `json:"source"`             // FILE or ZIP:ENTRY of the record
	Function string `json:"function,omitempty"` // set for a function left out of a record that gave pairs
	Reason   Reason `json:"reason"`
	Detail   string `json:"detail"`
}

// Report says what a build read, wrote and dropped.
type Report struct {
	Records   int            `json:"records"`    // records read (problems not counted)
	Problems  int            `json:"problems"`   // records that could not be read
	WithPairs int            `json:"with_pairs"` // records that gave at least one pair
	Pairs     int            `json:"pairs"`      // pairs written
	Dropped   []Dropped      `json:"dropped"`    // every record that gave no pair, in order
	Functions []Dropped      `json:"left_out"`   // functions left out of records that gave pairs
	ByReason  map[Reason]int `json:"by_reason"`  // dropped records per reason
	Narrowing map[string]int `json:"narrowing"`  // pairs per narrowing
	// Saved counts the records that gave pairs only through a rule of issue 35: a fix commit
	// from a WEB, PACKAGE or ADVISORY reference, a function one call edge from the named ones,
	// a fixed_range's only code change.
	Saved map[string]int      `json:"saved"`
	Stops map[jitvul.Stop]int `json:"stops,omitempty"` // jit pairs per way their walk ended
}

// dropError is a record or function dropped for a reason.
type dropError struct {
	reason Reason
	detail string
}

func (e *dropError) Error() string { return string(e.reason) + ": " + e.detail }
