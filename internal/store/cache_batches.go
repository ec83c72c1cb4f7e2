package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// CacheBatch is a batch on a provider's batch API made for the response cache, not for a run
// (the judge's calls of score --judge-batch): where it is polled (its provider and base host)
// and the cache keys of the requests it holds, which are its custom ids.
type CacheBatch struct {
	Provider  string
	BaseHost  string // the host of a custom base URL, "" for the provider's API
	ID        string // the provider's
	Keys      []string
	State     string // the provider's status as last polled
	Collected bool   // it ended and its answers are in the response cache
	CreatedAt time.Time
	UpdatedAt time.Time
}

// PutCacheBatch records a batch the moment it is created: a process killed after this polls it
// again instead of submitting its requests twice.
func (s *Store) PutCacheBatch(ctx context.Context, b CacheBatch) error {
	keys, err := json.Marshal(b.Keys)
	if err != nil {
		return fmt.Errorf("cache batch %s: %w", b.ID, err)
	}
	now := dbTime(time.Now())
	_, err = s.db.ExecContext(ctx, s.q(`INSERT INTO cache_batches (provider, base_host, batch_id, custom_ids, state, collected, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, FALSE, ?, ?)`), b.Provider, b.BaseHost, b.ID, string(keys), b.State, now, now)
	if err != nil {
		return fmt.Errorf("record cache batch %s: %w", b.ID, err)
	}
	return nil
}

// SetCacheBatchState records a batch's state as polled.
func (s *Store) SetCacheBatchState(ctx context.Context, provider, host, id, state string) error {
	return s.setCacheBatch(ctx, nil, provider, host, id, state, false)
}

// CollectCacheBatch records that a batch ended in state with its answers put in the response
// cache (PutResponse): the cache rows still waiting are written in the same transaction, so a
// batch is never collected without its answers.
func (s *Store) CollectCacheBatch(ctx context.Context, provider, host, id, state string) error {
	rows := s.takeCache()
	err := s.inTx(context.WithoutCancel(ctx), func(tx *sql.Tx) error {
		if len(rows) > 0 {
			if err := s.insertRows(ctx, tx, "llm_cache", cacheColumns, rows, cacheUpsert); err != nil {
				return fmt.Errorf("write response cache: %w", err)
			}
		}
		return s.setCacheBatch(ctx, tx, provider, host, id, state, true)
	})
	if err != nil {
		s.returnCache(rows)
	}
	return err
}

func (s *Store) setCacheBatch(ctx context.Context, tx *sql.Tx, provider, host, id, state string, collected bool) error {
	exec := s.db.ExecContext
	if tx != nil {
		exec = tx.ExecContext
	}
	res, err := exec(ctx, s.q(`UPDATE cache_batches SET state = ?, collected = ?, updated_at = ? WHERE provider = ? AND base_host = ? AND batch_id = ?`),
		state, collected, dbTime(time.Now()), provider, host, id)
	if err != nil {
		return fmt.Errorf("cache batch %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("cache batch %s of %s %q: %w", id, provider, host, ErrNotFound)
	}
	return nil
}

// PendingCacheBatches lists the batches of provider at host not collected yet, in the order
// they were created.
func (s *Store) PendingCacheBatches(ctx context.Context, provider, host string) ([]CacheBatch, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT batch_id, custom_ids, state, created_at, updated_at
		FROM cache_batches WHERE provider = ? AND base_host = ? AND NOT collected ORDER BY created_at, batch_id`), provider, host)
	if err != nil {
		return nil, fmt.Errorf("cache batches of %s %q: %w", provider, host, err)
	}
	defer rows.Close()
	var out []CacheBatch
	for rows.Next() {
		b := CacheBatch{Provider: provider, BaseHost: host}
		var keys, created, updated string
		if err := rows.Scan(&b.ID, &keys, &b.State, &created, &updated); err != nil {
			return nil, fmt.Errorf("cache batches of %s %q: %w", provider, host, err)
		}
		if err := json.Unmarshal([]byte(keys), &b.Keys); err != nil {
			return nil, fmt.Errorf("cache batch %s: unreadable keys: %w", b.ID, err)
		}
		b.CreatedAt, b.UpdatedAt = parseTime(created), parseTime(updated)
		out = append(out, b)
	}
	return out, rows.Err()
}
