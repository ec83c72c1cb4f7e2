package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// caseReads groups the reads of single cases (Store.Case) that wait at the same moment into one
// statement: a River worker reads each unit's case, its units many at once, and a read costs a
// round trip and a statement in Postgres whether it fetches one case or twenty. A read that
// finds no other pays nothing more than a goroutine's start; one that arrives while a batch is
// being read waits for it and goes in the next.
type caseReads struct {
	mu      sync.Mutex
	reading bool
	waiting []*caseRead
}

type caseRead struct {
	run, id string
	c       *suite.Case
	err     error
	done    chan struct{}
}

// maxCaseReads bounds the cases read in one statement.
const maxCaseReads = 100

// Case returns one stored case of a run, or an error wrapping ErrNotFound.
func (s *Store) Case(ctx context.Context, runID, caseID string) (*suite.Case, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read case %s of run %s: %w", caseID, runID, err)
	}
	r := &caseRead{run: runID, id: caseID, done: make(chan struct{})}
	g := &s.caseReads
	g.mu.Lock()
	g.waiting = append(g.waiting, r)
	if !g.reading {
		g.reading = true
		go s.readCases(context.WithoutCancel(ctx))
	}
	g.mu.Unlock()
	select {
	case <-r.done:
		return r.c, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("read case %s of run %s: %w", caseID, runID, ctx.Err())
	}
}

// readCases reads what waits, a batch at a time, until nothing does. Its context is not the
// reader's who started it: that one may give up, the others still want their cases.
func (s *Store) readCases(ctx context.Context) {
	g := &s.caseReads
	for {
		g.mu.Lock()
		batch := g.waiting
		if len(batch) > maxCaseReads {
			batch = batch[:maxCaseReads:maxCaseReads]
		}
		g.waiting = g.waiting[len(batch):]
		if len(batch) == 0 {
			g.waiting = nil
			g.reading = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		s.readBatch(ctx, batch)
		for _, r := range batch {
			close(r.done)
		}
	}
}

// readBatch reads the cases of batch, one statement a run.
func (s *Store) readBatch(ctx context.Context, batch []*caseRead) {
	runs := map[string][]*caseRead{}
	var order []string
	for _, r := range batch {
		if _, ok := runs[r.run]; !ok {
			order = append(order, r.run)
		}
		runs[r.run] = append(runs[r.run], r)
	}
	for _, run := range order {
		reads := runs[run]
		found, err := s.caseJSON(ctx, run, reads)
		for _, r := range reads {
			b, ok := found[r.id]
			switch {
			case err != nil:
				r.err = fmt.Errorf("read case %s of run %s: %w", r.id, run, err)
			case !ok:
				r.err = fmt.Errorf("case %s of run %s: %w", r.id, run, ErrNotFound)
			default:
				r.c = new(suite.Case)
				if err := json.Unmarshal(b, r.c); err != nil {
					r.c, r.err = nil, fmt.Errorf("read case %s of run %s: %w", r.id, run, err)
				}
			}
		}
	}
}

// caseJSON returns the stored JSON of the cases reads ask for, by case id.
func (s *Store) caseJSON(ctx context.Context, run string, reads []*caseRead) (map[string][]byte, error) {
	args := []any{run}
	seen := map[string]bool{}
	for _, r := range reads {
		if !seen[r.id] {
			seen[r.id] = true
			args = append(args, r.id)
		}
	}
	q := `SELECT case_id, case_json FROM run_cases WHERE run_id = ? AND case_id IN (?` + strings.Repeat(", ?", len(args)-2) + `)`
	rows, err := s.db.QueryContext(ctx, s.q(q), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := make(map[string][]byte, len(args)-1)
	for rows.Next() {
		var id string
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, err
		}
		found[id] = b
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return found, nil
}
