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
	err := s.retrying(ctx, func() error {
		return s.db.QueryRowContext(ctx, s.q(`SELECT response FROM llm_cache WHERE key = ?`), key).Scan(&v)
	})
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
	err := s.retrying(ctx, func() error {
		_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO llm_cache (key, provider, model, response, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET response = excluded.response, created_at = excluded.created_at`),
			key, provider, model, clean(string(value)), dbTime(time.Now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("write response cache: %w", err)
	}
	return nil
}
