package store

import (
	"context"
	"fmt"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// CaseRow is what a table of a run's cases shows of one case without reading its JSON: its
// position in the suite and its indexed columns.
type CaseRow struct {
	Ordinal  int
	ID       string
	Kind     suite.Kind
	Label    suite.Label
	Pair     string
	Language string
}

// CaseRows calls fn with every stored case of a run, in suite order, reading only the indexed
// columns (not the case's JSON); it stops at, and returns, the first error fn returns.
func (s *Store) CaseRows(ctx context.Context, runID string, fn func(CaseRow) error) error {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT ordinal, case_id, kind, label, COALESCE(pair, ''), COALESCE(language, '')
		FROM run_cases WHERE run_id = ? ORDER BY ordinal`), runID)
	if err != nil {
		return fmt.Errorf("read cases of run %s: %w", runID, err)
	}
	defer rows.Close()
	var r CaseRow
	var kind, label string
	for rows.Next() {
		if err := rows.Scan(&r.Ordinal, &r.ID, &kind, &label, &r.Pair, &r.Language); err != nil {
			return fmt.Errorf("read cases of run %s: %w", runID, err)
		}
		r.Kind, r.Label = suite.Kind(kind), suite.Label(label)
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read cases of run %s: %w", runID, err)
	}
	return nil
}

// CaseCWEs calls fn with each (case, CWE) of a run's stored cases, ordered by CWE and case.
func (s *Store) CaseCWEs(ctx context.Context, runID string, fn func(caseID, cwe string) error) error {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT case_id, cwe FROM case_cwes WHERE run_id = ? ORDER BY cwe, case_id`), runID)
	if err != nil {
		return fmt.Errorf("read CWEs of run %s: %w", runID, err)
	}
	defer rows.Close()
	var id, cwe string
	for rows.Next() {
		if err := rows.Scan(&id, &cwe); err != nil {
			return fmt.Errorf("read CWEs of run %s: %w", runID, err)
		}
		if err := fn(id, cwe); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read CWEs of run %s: %w", runID, err)
	}
	return nil
}

// AttemptCount returns the number of attempts stored for a run (every try, errors included): with
// the run's state, it says whether anything of the run changed since it was last read.
func (s *Store) AttemptCount(ctx context.Context, runID string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM attempts WHERE run_id = ?`), runID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count attempts of run %s: %w", runID, err)
	}
	return n, nil
}
