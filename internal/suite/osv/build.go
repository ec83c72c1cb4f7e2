package osv

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
)

// Builder builds suites from OSV records with one tracer session (one git cat-file process
// per repository, a pool of code-graph indexers). Close it.
type Builder struct {
	opts Options
	s    *jitvul.Session
}

// NewBuilder returns a builder with opts.
func NewBuilder(opts Options) *Builder {
	opts = opts.withDefaults()
	return &Builder{opts: opts, s: jitvul.NewSession(opts.Trace)}
}

// Close ends the builder's git processes.
func (b *Builder) Close() error { return b.s.Close() }

// Outcome is what one record gave: pairs, or why it gave none.
type Outcome struct {
	Record *Record
	Repo   string // the repository's URL, as the cases name it
	Dir    string // its local directory
	Ref    FixRef // the fix reference used
	Fix    *Fix   // the fix's changed functions; nil when the record was dropped before
	Range  *RangeSearch
	Select Selection
	Date   time.Time
	// DateSource says where Date comes from: "published" or "fix commit".
	DateSource string
	Pairs      []Pair
	Drop       *Dropped  // set when the record gave no pair
	Left       []Dropped // functions of the selection left out
	commit     jitvul.Commit
}

// Pair is one written pair and the function it is about.
type Pair struct {
	Vul, Ben *suite.Case
	Func     *Changed
	Walk     *jitvul.Walk // jit pairs: how the walk to the introducing commit went
}

// Result is a build's outcomes, one per record, in the order records are processed (by id).
type Result struct {
	Outcomes []*Outcome
	Problems []error // records that could not be read (FILE: msg)
}

// Build reads every record of db, finds each one's repository under reposDir and builds its
// pairs. Records that give no pair are outcomes with Drop set; the error is for faults that
// are not about one record (git failing, the context ending).
func (b *Builder) Build(ctx context.Context, db *advisory.DB, reposDir string) (*Result, error) {
	return b.build(ctx, db, reposDir, nil)
}

// build is Build over the records keep keeps (all with nil).
func (b *Builder) build(ctx context.Context, db *advisory.DB, reposDir string, keep func(*Record) bool) (*Result, error) {
	res := &Result{Problems: db.Problems()}
	var recs []*Record
	problems, err := db.Each(func(a *advisory.Advisory) error {
		if r := readRecord(a); keep == nil || keep(r) {
			recs = append(recs, r)
		}
		return nil
	})
	res.Problems = append(res.Problems, problems...)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	loc := newLocator(reposDir)
	for _, r := range recs {
		o := &Outcome{Record: r}
		res.Outcomes = append(res.Outcomes, o)
		if err := b.resolve(ctx, o, loc); err != nil {
			if !o.dropWith(err) {
				return nil, fmt.Errorf("%s: %w", r.Source, err)
			}
		}
	}
	if err := b.analyseAll(ctx, res.Outcomes); err != nil {
		return nil, err
	}
	if err := b.selectAll(ctx, res.Outcomes); err != nil {
		return nil, err
	}
	if err := b.pairAll(ctx, res.Outcomes); err != nil {
		return nil, err
	}
	return res, nil
}

// dropWith records err as the outcome's drop when it is one; false for other faults.
func (o *Outcome) dropWith(err error) bool {
	var de *dropError
	var je *jitvul.DropError
	switch {
	case errors.As(err, &de):
		o.Drop = &Dropped{ID: o.Record.ID, Source: o.Record.Source, Reason: de.reason, Detail: de.detail}
	case errors.As(err, &je):
		o.Drop = &Dropped{ID: o.Record.ID, Source: o.Record.Source, Reason: Reason(je.Reason), Detail: je.Detail}
	default:
		return false
	}
	return true
}

// locator finds repositories under the --repos directory, once per URL.
type locator struct {
	dir   string
	found map[string]locResult
}

type locResult struct {
	dir string
	err error
}

func newLocator(dir string) *locator { return &locator{dir: dir, found: map[string]locResult{}} }

func (l *locator) locate(url string) (string, error) {
	r, ok := l.found[url]
	if !ok {
		r.dir, r.err = snapshot.Locate(l.dir, url)
		l.found[url] = r
	}
	return r.dir, r.err
}

// resolve drops withdrawn records and those without a usable fix, and finds the fix commit: the
// first the record names whose repository is under --repos and has it.
func (b *Builder) resolve(ctx context.Context, o *Outcome, loc *locator) error {
	r := o.Record
	switch {
	case r.Withdrawn:
		return &dropError{reason: ReasonWithdrawn, detail: r.ID + " is withdrawn"}
	case len(r.Fixes) == 0:
		return r.noFix()
	}
	var missingRepo, missingCommit, refused []string
	for _, f := range r.Fixes {
		dir, err := loc.locate(f.Repo)
		if err != nil {
			missingRepo = append(missingRepo, err.Error())
			continue
		}
		g, err := b.s.Git(dir)
		if err != nil {
			return err
		}
		c, err := g.Commit(f.Commit)
		var je *jitvul.DropError
		switch {
		case errors.Is(err, jitvul.ErrMissing):
			missingCommit = append(missingCommit, fmt.Sprintf("%s is not in %s", f.Commit, dir))
			continue
		case errors.As(err, &je):
			missingCommit = append(missingCommit, je.Detail)
			continue
		case err != nil:
			return err
		}
		if f.checked() {
			why, err := checkCandidate(ctx, g, r, c)
			if err != nil {
				return err
			}
			if why != "" {
				refused = append(refused, f.From+" "+why)
				continue
			}
		}
		o.Repo, o.Dir, o.Ref, o.commit = f.Repo, dir, f, c
		break
	}
	switch {
	case o.Dir == "" && len(refused) > 0:
		return &dropError{reason: ReasonNoFix, detail: "no commit the record names is its fix: " + strings.Join(append(refused, missingCommit...), "; ")}
	case o.Dir == "" && len(missingCommit) > 0:
		return &dropError{reason: ReasonNoCommit, detail: strings.Join(missingCommit, "; ") + " (fetch it, or check the record)"}
	case o.Dir == "":
		return &dropError{reason: ReasonNoRepository, detail: strings.Join(dedupe(missingRepo), "; ")}
	case len(o.commit.Parents) == 0:
		return &dropError{reason: ReasonRootFix, detail: fmt.Sprintf("fix %s is a root commit: there is no version before it", short(o.commit.OID))}
	}
	// Dropped by --after before the fix is read: a fix commit (not a range's end, where the
	// fix is still to be found) dates the record now; a range's record published on or before
	// --after is dated no later whatever its fix (but by the fix's date alone).
	switch {
	case b.opts.After.IsZero():
	case o.Ref.RangeFrom == "" || o.Ref.RangeFrom == "unknown":
		return o.dateCheck(b.opts.After, b.opts.Date, o.commit.Date)
	case !r.Published.IsZero() && b.opts.Date != DateFix && !r.Published.After(b.opts.After):
		return o.dateCheck(b.opts.After, b.opts.Date, r.Published)
	}
	return nil
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// dateCheck sets the outcome's date and drops it when --after leaves it out.
func (o *Outcome) dateCheck(after time.Time, rule DateRule, commitDate time.Time) error {
	o.Date, o.DateSource = o.Record.date(commitDate, rule)
	if !after.IsZero() && !o.Date.After(after) {
		return &dropError{reason: ReasonBefore, detail: fmt.Sprintf("dated %s (%s), not after %s", o.Date.Format(time.RFC3339), o.DateSource, after.Format(time.RFC3339))}
	}
	return nil
}

// analyseAll reads the changed functions of every fix still to do, each (repository, commit)
// once, and searches the fix ranges, with the builder's workers.
func (b *Builder) analyseAll(ctx context.Context, outs []*Outcome) error {
	type task struct {
		o   *Outcome // a range search: one record's own
		dir string
		c   jitvul.Commit
		fx  *Fix
		err error
	}
	var tasks []*task
	byKey := map[string]*task{}
	for _, o := range outs {
		if o.Drop != nil {
			continue
		}
		if o.Ref.RangeFrom != "" && o.Ref.RangeFrom != "unknown" {
			tasks = append(tasks, &task{o: o, dir: o.Dir, c: o.commit})
			continue
		}
		k := o.Dir + "\x00" + o.commit.OID
		if byKey[k] == nil {
			byKey[k] = &task{dir: o.Dir, c: o.commit}
			tasks = append(tasks, byKey[k])
		}
	}
	err := parallel(ctx, len(tasks), b.opts.Workers, func(i int) error {
		t := tasks[i]
		g, err := b.s.Git(t.dir)
		if err != nil {
			return err
		}
		if t.o != nil {
			t.o.Range, t.fx, t.err = b.searchRange(ctx, g, t.o.Record, t.o.Ref, t.c)
		} else {
			t.fx, t.err = analyse(ctx, b.s, g, t.c, nil)
		}
		var de *dropError
		if t.err != nil && !errors.As(t.err, &de) {
			return fmt.Errorf("fix %s in %s: %w", short(t.c.OID), t.dir, t.err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, t := range tasks {
		if t.o != nil {
			t.o.Fix = t.fx
			if t.err != nil {
				t.o.dropWith(t.err)
			}
		}
	}
	for _, o := range outs {
		if o.Drop != nil || o.Fix != nil {
			continue
		}
		t := byKey[o.Dir+"\x00"+o.commit.OID]
		o.Fix = t.fx
		if t.err != nil {
			o.dropWith(t.err)
		}
	}
	return nil
}

// selectAll narrows each fix's functions by what its record says and leaves out the functions
// an earlier record already gave (two records sharing a fix), in record order.
func (b *Builder) selectAll(ctx context.Context, outs []*Outcome) error {
	taken := map[string]string{} // repository, fix, file, function → the record that gave it
	for _, o := range outs {
		if o.Drop != nil {
			continue
		}
		if err := o.dateCheck(b.opts.After, b.opts.Date, o.Fix.Commit.Date); err != nil {
			o.dropWith(err)
			continue
		}
		g, err := b.s.Git(o.Dir)
		if err != nil {
			return err
		}
		sel, err := narrow(o.Record, o.Fix, narrowOpts{maxFuncs: b.opts.MaxFuncs, fallback: b.opts.Fallback, hop: &hopper{ctx: ctx, s: b.s, g: g}})
		o.Select = sel
		if err != nil {
			if !o.dropWith(err) {
				return fmt.Errorf("%s: %w", o.Record.Source, err)
			}
			continue
		}
		var kept []*Changed
		var firstBy string
		for _, c := range sel.Funcs {
			k := o.Dir + "\x00" + o.Fix.Commit.OID + "\x00" + c.File + "\x00" + c.Target()
			if by, ok := taken[k]; ok {
				o.Left = append(o.Left, Dropped{ID: o.Record.ID, Source: o.Record.Source, Function: c.Target(), Reason: ReasonDuplicate,
					Detail: fmt.Sprintf("%s in %s at fix %s is %s's", c.Target(), c.File, short(o.Fix.Commit.OID), by)})
				if firstBy == "" {
					firstBy = by
				}
				continue
			}
			taken[k] = o.Record.ID
			kept = append(kept, c)
		}
		o.Select.Funcs = kept
		if len(kept) == 0 {
			o.Drop = &Dropped{ID: o.Record.ID, Source: o.Record.Source, Reason: ReasonDuplicate,
				Detail: fmt.Sprintf("fix %s of %s gives only functions %s already gave (%s)", short(o.Fix.Commit.OID), o.Repo, firstBy, names(sel.Funcs, 5))}
			o.Left = nil
		}
	}
	return nil
}

// parallel calls fn(0..n-1) on workers goroutines; the first error stops the rest.
func parallel(ctx context.Context, n, workers int, fn func(i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i); err != nil {
					cancel(err)
				}
			}
		}()
	}
feed:
	for i := 0; i < n; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}
