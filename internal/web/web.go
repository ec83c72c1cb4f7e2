// Package web is `vulnbench serve`: a read-only viewer over a store, rendered on the server with
// html/template (no script). Pages: the runs; a run (the HTML report's content of that run);
// its cases, paginated, sortable and filtered by label, status, CWE, language, outcome and
// "flipped against another run"; one case (its code with the target lines marked, ground truth,
// verdict, every attempt and each attempt's trace turn by turn); two runs compared (McNemar, the
// paired deltas, the flips).
//
// Runs that ended never change, so what is computed of a run (its report, scored once, and the
// compact index its cases table filters) is kept, keyed by the run's state and attempt count,
// for a few runs at a time (Options.Runs). The first request for a run computes it; others for
// the same run wait for that one.
package web

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"sync"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Store is what the viewer reads of a store; it never writes.
type Store interface {
	report.Store
	report.CaseStore
	indexStore
	Runs(ctx context.Context) ([]store.Run, error)
	Case(ctx context.Context, runID, caseID string) (*suite.Case, error)
	AttemptCount(ctx context.Context, runID string) (int, error)
	Attempts(ctx context.Context, runID, caseID string, repeat int) ([]verdict.Verdict, error)
	TraceEvents(ctx context.Context, runID, caseID string, repeat, attempt int) ([]trace.Event, error)
	report.SpendStore
}

// Options tune the viewer.
type Options struct {
	// Runs is how many runs' computed pages and indexes are kept (0: 4).
	Runs int
	// Resamples is the bootstrap resamples of a run page's intervals and a comparison's deltas
	// for the default Scorer (0: 1000).
	Resamples int
	// Scorer scores runs for their pages and comparisons; nil: InProcess over the store.
	Scorer Scorer
}

// Server serves the viewer.
type Server struct {
	st    Store
	opt   Options
	mux   *http.ServeMux
	mu    sync.Mutex
	cache map[string]*entry
	tick  uint64
	// boardMu guards board, the runs page's leaderboard.
	boardMu sync.Mutex
	board   *boardCache
}

// entry is what is kept of one run: valid while the run's state and attempt count are key's.
type entry struct {
	once  sync.Mutex // held while the entry is being computed
	id    string
	key   runKey
	used  uint64
	body  template.HTML
	index *caseIndex
	suite string // the sha256 of the suite the indexed run judged
	// compares are the comparisons of this run (as A) with others, by the other's id.
	compares map[string]compared
}

// compared is a comparison with another run, valid while that run's key is key.
type compared struct {
	key runKey
	cmp *report.Comparison
}

type runKey struct {
	state    string
	attempts int
}

// New returns a viewer over st.
func New(st Store, opt Options) *Server {
	if opt.Runs <= 0 {
		opt.Runs = 4
	}
	if opt.Resamples <= 0 {
		opt.Resamples = 1000
	}
	if opt.Scorer == nil {
		opt.Scorer = InProcess{Store: st, Resamples: opt.Resamples}
	}
	s := &Server{st: st, opt: opt, mux: http.NewServeMux(), cache: map[string]*entry{}}
	s.mux.HandleFunc("GET /{$}", s.runs)
	s.mux.HandleFunc("GET /runs/{run}", s.run)
	s.mux.HandleFunc("GET /runs/{run}/cases", s.cases)
	s.mux.HandleFunc("GET /runs/{run}/case", s.oneCase)
	s.mux.HandleFunc("GET /compare", s.compare)
	s.mux.HandleFunc("GET /style.css", s.style)
	return s
}

// ServeHTTP implements http.Handler. Every answer says it must not be framed and runs no script.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	s.mux.ServeHTTP(w, r)
}

// state returns the run and the key its cached pages must have: a run that ended is not
// counted again once an entry of it in that state exists.
func (s *Server) state(ctx context.Context, id string) (*store.Run, *entry, runKey, error) {
	run, err := s.st.GetRun(ctx, id)
	if err != nil {
		return nil, nil, runKey{}, err
	}
	s.mu.Lock()
	e := s.cache[id]
	s.mu.Unlock()
	if e != nil && e.key.state == run.State && !run.FinishedAt.IsZero() {
		return run, e, e.key, nil
	}
	n, err := s.st.AttemptCount(ctx, id)
	if err != nil {
		return nil, nil, runKey{}, err
	}
	return run, e, runKey{state: run.State, attempts: n}, nil
}

// entry returns the run's cache entry for key, a new one when the run changed, evicting the
// least recently used beyond Options.Runs.
func (s *Server) entry(id string, key runKey) *entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick++
	e := s.cache[id]
	if e == nil || e.key != key {
		e = &entry{id: id, key: key}
		s.cache[id] = e
	}
	e.used = s.tick
	for len(s.cache) > s.opt.Runs {
		old := ""
		for k, v := range s.cache {
			if k != id && (old == "" || v.used < s.cache[old].used) {
				old = k
			}
		}
		delete(s.cache, old)
	}
	return e
}

// runEntry returns the run with its entry, its report body and case index computed as asked.
func (s *Server) runEntry(ctx context.Context, id string, body, index bool) (*store.Run, *entry, error) {
	run, _, key, err := s.state(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	e := s.entry(id, key)
	e.once.Lock()
	defer e.once.Unlock()
	if body && e.body == "" {
		b, err := s.opt.Scorer.Body(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		e.body = b
	}
	if index && e.index == nil {
		ix, err := buildIndex(ctx, s.st, id, s.colsLike(run, e))
		if err != nil {
			return nil, nil, err
		}
		s.mu.Lock() // colsLike reads other entries' indexes under it
		e.index, e.suite = ix, run.SuiteHash
		s.mu.Unlock()
	}
	return run, e, nil
}

// colsLike returns the case columns of another indexed run of the suite run judged (nil: none),
// which run's index shares when its cases are the same.
func (s *Server) colsLike(run *store.Run, self *entry) *caseCols {
	if run.SuiteHash == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.cache {
		if e != self && e.suite == run.SuiteHash {
			return e.index.caseCols
		}
	}
	return nil
}

// comparison returns the comparison of the runs of ea and eb, computed once
// while neither changes: it is kept in ea, which a change of run A replaces.
func (s *Server) comparison(ctx context.Context, ea, eb *entry) (*report.Comparison, error) {
	bID := eb.id
	ea.once.Lock()
	defer ea.once.Unlock()
	if c, ok := ea.compares[bID]; ok && c.key == eb.key {
		return c.cmp, nil
	}
	cmp, err := s.opt.Scorer.Compare(ctx, ea.id, bID)
	if err != nil {
		return nil, err
	}
	if ea.compares == nil {
		ea.compares = map[string]compared{}
	}
	ea.compares[bID] = compared{key: eb.key, cmp: cmp}
	return cmp, nil
}

// fail answers an error: 404 for a run or case that is not there, else 500, saying what.
func (s *Server) fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	if errors.Is(err, store.ErrNotFound) {
		code = http.StatusNotFound
	}
	s.render(w, code, "error", struct {
		Title string
		Code  int
		Err   string
	}{fmt.Sprintf("%d %s", code, http.StatusText(code)), code, err.Error()})
}

func (s *Server) bad(w http.ResponseWriter, format string, args ...any) {
	s.render(w, http.StatusBadRequest, "error", struct {
		Title string
		Code  int
		Err   string
	}{"400 Bad Request", http.StatusBadRequest, fmt.Sprintf(format, args...)})
}
