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

// RunSpend sums what every attempt of a run used, in one query.
func (s *Store) RunSpend(ctx context.Context, runID string) (Spend, error) {
	var sp Spend
	var cost sql.NullFloat64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*), COALESCE(SUM(input_tokens + output_tokens), 0),
		COALESCE(SUM(CASE WHEN cost_usd IS NOT NULL THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN cost_usd IS NULL AND (calls > 0 OR cache_hits > 0 OR input_tokens + output_tokens > 0) THEN 1 ELSE 0 END), 0),
		SUM(cost_usd)
	FROM attempts WHERE run_id = ?`), runID).Scan(&sp.Attempts, &sp.Tokens, &sp.Priced, &sp.Unpriced, &cost)
	if err != nil {
		return Spend{}, fmt.Errorf("spend of run %s: %w", runID, err)
	}
	sp.Cost = cost.Float64
	return sp, nil
}
