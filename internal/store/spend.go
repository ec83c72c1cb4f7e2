package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Spend is what every attempt of a run used, retries and errors included, in one sum: the figure
// boards, reports and plots show as a run's cost and tokens.
type Spend struct {
	Attempts int64
	// Tokens are input plus output tokens.
	Tokens int64
	// Priced counts the attempts whose cost is known.
	Priced int64
	// Unpriced counts the attempts that used a model (a call, an answer from the cache, tokens)
	// and whose cost is unknown (no price for the model).
	Unpriced int64
	// Cost is the summed cost of the priced attempts (USD).
	Cost float64
}

// Known reports whether Cost is the run's whole cost: some attempt is priced and none that used
// a model is unpriced. A run whose model is unpriced has no cost to show (never $0), and a run
// that used no model (a scanner) none either.
func (s Spend) Known() bool { return s.Priced > 0 && s.Unpriced == 0 }

// CaseUsage is what one case of one repeat of a run used, summed over its attempts (retries and
// errors included).
type CaseUsage struct {
	CaseID string
	Repeat int
	Tokens int64    // input plus output tokens
	Cost   *float64 // USD; nil when no attempt of the case knew its cost
}

// RunSpend sums what every attempt of a run used, in one query.
func (s *Store) RunSpend(ctx context.Context, runID string) (Spend, error) {
	var sp Spend
	err := s.spend(ctx, runID, false, func(_ string, _ int, x Spend) error { sp = x; return nil })
	return sp, err
}

// CaseUsages calls fn with the usage of each case and repeat of a run, by case and repeat: the
// same sum as RunSpend's, per case.
func (s *Store) CaseUsages(ctx context.Context, runID string, fn func(CaseUsage) error) error {
	return s.spend(ctx, runID, true, func(caseID string, repeat int, sp Spend) error {
		u := CaseUsage{CaseID: caseID, Repeat: repeat, Tokens: sp.Tokens}
		if sp.Priced > 0 {
			u.Cost = &sp.Cost
		}
		return fn(u)
	})
}

// spend is the one query of what a run's attempts used: summed over the run, or per case and
// repeat (byCase), in that order.
func (s *Store) spend(ctx context.Context, runID string, byCase bool, fn func(caseID string, repeat int, sp Spend) error) error {
	keys, group := "'', 0", ""
	if byCase {
		keys, group = "case_id, repeat_idx", " GROUP BY case_id, repeat_idx ORDER BY case_id, repeat_idx"
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+keys+`, COUNT(*), COALESCE(SUM(input_tokens + output_tokens), 0),
		COALESCE(SUM(CASE WHEN cost_usd IS NOT NULL THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN cost_usd IS NULL AND (calls > 0 OR cache_hits > 0 OR input_tokens + output_tokens > 0) THEN 1 ELSE 0 END), 0),
		SUM(cost_usd)
	FROM attempts WHERE run_id = ?`+group), runID)
	if err != nil {
		return fmt.Errorf("spend of run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var caseID string
		var repeat int
		var sp Spend
		var cost sql.NullFloat64
		if err := rows.Scan(&caseID, &repeat, &sp.Attempts, &sp.Tokens, &sp.Priced, &sp.Unpriced, &cost); err != nil {
			return fmt.Errorf("spend of run %s: %w", runID, err)
		}
		sp.Cost = cost.Float64
		if err := fn(caseID, repeat, sp); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("spend of run %s: %w", runID, err)
	}
	return nil
}
