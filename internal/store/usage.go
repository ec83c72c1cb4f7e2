package store

import (
	"context"
	"database/sql"
	"fmt"
)

// CaseUsage is what one case of one repeat of a run used, summed over its attempts (retries and
// errors included).
type CaseUsage struct {
	CaseID string
	Repeat int
	Tokens int64    // input plus output tokens
	Cost   *float64 // USD; nil when no attempt of the case knew its cost
}

// CaseUsages calls fn with the usage of each case and repeat of a run, by case and repeat.
func (s *Store) CaseUsages(ctx context.Context, runID string, fn func(CaseUsage) error) error {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT case_id, repeat_idx, SUM(input_tokens + output_tokens), SUM(cost_usd)
	FROM attempts WHERE run_id = ? GROUP BY case_id, repeat_idx ORDER BY case_id, repeat_idx`), runID)
	if err != nil {
		return fmt.Errorf("usage per case of run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var u CaseUsage
		var cost sql.NullFloat64
		if err := rows.Scan(&u.CaseID, &u.Repeat, &u.Tokens, &cost); err != nil {
			return fmt.Errorf("usage per case of run %s: %w", runID, err)
		}
		u.Cost = float(cost)
		if err := fn(u); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("usage per case of run %s: %w", runID, err)
	}
	return nil
}
