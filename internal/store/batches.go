package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Batch is one of a run's batches on a provider's batch API.
type Batch struct {
	RunID     string
	ID        string // the provider's
	Provider  string
	CustomIDs []string // the units it holds, in order
	State     string   // the provider's status as last polled
	Collected bool     // it ended and its results were read (the units' attempts are stored from them)
	CreatedAt time.Time
	UpdatedAt time.Time
}

// PutBatch records a batch the moment it is created: a run killed after this polls it again
// on resume instead of submitting its units twice.
func (s *Store) PutBatch(ctx context.Context, b Batch) error {
	ids, err := json.Marshal(b.CustomIDs)
	if err != nil {
		return fmt.Errorf("batch %s: %w", b.ID, err)
	}
	now := dbTime(time.Now())
	_, err = s.db.ExecContext(ctx, s.q(`INSERT INTO run_batches (run_id, batch_id, provider, custom_ids, state, collected, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, FALSE, ?, ?)`), b.RunID, b.ID, b.Provider, string(ids), b.State, now, now)
	if err != nil {
		return fmt.Errorf("record batch %s of run %s: %w", b.ID, b.RunID, err)
	}
	return nil
}

// SetBatchState records a batch's state as polled, and whether it ended with its results read.
func (s *Store) SetBatchState(ctx context.Context, runID, batchID, state string, collected bool) error {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE run_batches SET state = ?, collected = ?, updated_at = ? WHERE run_id = ? AND batch_id = ?`),
		state, collected, dbTime(time.Now()), runID, batchID)
	if err != nil {
		return fmt.Errorf("batch %s of run %s: %w", batchID, runID, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("batch %s of run %s: %w", batchID, runID, ErrNotFound)
	}
	return nil
}

// Batches lists a run's batches in the order they were created.
func (s *Store) Batches(ctx context.Context, runID string) ([]Batch, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT batch_id, provider, custom_ids, state, collected, created_at, updated_at
		FROM run_batches WHERE run_id = ? ORDER BY created_at, batch_id`), runID)
	if err != nil {
		return nil, fmt.Errorf("batches of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []Batch
	for rows.Next() {
		b := Batch{RunID: runID}
		var ids, created, updated string
		if err := rows.Scan(&b.ID, &b.Provider, &ids, &b.State, &b.Collected, &created, &updated); err != nil {
			return nil, fmt.Errorf("batches of run %s: %w", runID, err)
		}
		if err := json.Unmarshal([]byte(ids), &b.CustomIDs); err != nil {
			return nil, fmt.Errorf("batch %s of run %s: unreadable custom ids: %w", b.ID, runID, err)
		}
		b.CreatedAt, b.UpdatedAt = parseTime(created), parseTime(updated)
		out = append(out, b)
	}
	return out, rows.Err()
}
