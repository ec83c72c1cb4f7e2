package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// GetResponse returns a cached model response.
func (s *Store) GetResponse(ctx context.Context, key string) ([]byte, bool, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT response FROM llm_cache WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read response cache: %w", err)
	}
	return []byte(v), true, nil
}

// PutResponse stores a model response under key, replacing an older one.
func (s *Store) PutResponse(ctx context.Context, key, provider, model string, value []byte) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO llm_cache (key, provider, model, response, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET response = excluded.response, created_at = excluded.created_at`,
		key, provider, model, string(value), time.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("write response cache: %w", err)
	}
	return nil
}

// Spent returns the summed cost of a run's verdicts.
func (s *Store) Spent(ctx context.Context, runID string) (float64, error) {
	var v sql.NullFloat64
	if err := s.db.QueryRowContext(ctx, `SELECT SUM(cost_usd) FROM verdicts WHERE run_id = ?`, runID).Scan(&v); err != nil {
		return 0, fmt.Errorf("cost of run %s: %w", runID, err)
	}
	return v.Float64, nil
}
