package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// caseKey is a case of a run.
type caseKey struct{ run, id string }

// Case returns one stored case of a run, or an error wrapping ErrNotFound. Reads waiting at once
// (a River worker's units) go in one statement (grouped).
func (s *Store) Case(ctx context.Context, runID, caseID string) (*suite.Case, error) {
	b, found, err := s.caseReads.get(ctx, caseKey{runID, caseID}, s.readCases)
	if err != nil {
		return nil, fmt.Errorf("read case %s of run %s: %w", caseID, runID, err)
	}
	if !found {
		return nil, fmt.Errorf("case %s of run %s: %w", caseID, runID, ErrNotFound)
	}
	c := new(suite.Case)
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("read case %s of run %s: %w", caseID, runID, err)
	}
	return c, nil
}

// readCases reads the stored JSON of cases, one statement a run.
func (s *Store) readCases(ctx context.Context, keys []caseKey) (map[caseKey][]byte, error) {
	runs := map[string][]any{}
	var order []string
	for _, k := range keys {
		if _, ok := runs[k.run]; !ok {
			order = append(order, k.run)
			runs[k.run] = []any{k.run}
		}
		runs[k.run] = append(runs[k.run], k.id)
	}
	found := make(map[caseKey][]byte, len(keys))
	for _, run := range order {
		args := runs[run]
		q := `SELECT case_id, case_json FROM run_cases WHERE run_id = ? AND case_id IN (` + placeholders(len(args)-1) + `)`
		if err := s.scanPairs(ctx, q, args, func(id string, b []byte) { found[caseKey{run, id}] = b }); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// scanPairs runs query and calls fn on each row's two columns.
func (s *Store) scanPairs(ctx context.Context, query string, args []any, fn func(string, []byte)) error {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var b []byte
		if err := rows.Scan(&k, &b); err != nil {
			return err
		}
		fn(k, b)
	}
	return rows.Err()
}
