package store

import (
	"context"
	"database/sql"
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
	// Nonce, when set, is the intent the batch was created under: PutBatch drops it.
	Nonce string
}

// BatchIntent is a chunk of a run's units recorded before its batch is created: one still
// stored is a batch that may exist on the provider without its id stored.
type BatchIntent struct {
	RunID     string
	Nonce     string // fresh for each chunk
	Provider  string
	CustomIDs []string
	CreatedAt time.Time // just before the create request was sent
}

// PutBatchIntent records a chunk about to be created as a batch.
func (s *Store) PutBatchIntent(ctx context.Context, in BatchIntent) error {
	ids, err := json.Marshal(in.CustomIDs)
	if err != nil {
		return fmt.Errorf("batch intent %s: %w", in.Nonce, err)
	}
	_, err = s.db.ExecContext(ctx, s.q(`INSERT INTO batch_intents (run_id, nonce, provider, custom_ids, created_at) VALUES (?, ?, ?, ?, ?)`),
		in.RunID, in.Nonce, in.Provider, string(ids), dbTime(in.CreatedAt))
	if err != nil {
		return fmt.Errorf("record batch intent %s of run %s: %w", in.Nonce, in.RunID, err)
	}
	return nil
}

// BatchIntents lists a run's intents whose batches are not stored, oldest first.
func (s *Store) BatchIntents(ctx context.Context, runID string) ([]BatchIntent, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT nonce, provider, custom_ids, created_at FROM batch_intents
		WHERE run_id = ? ORDER BY created_at, nonce`), runID)
	if err != nil {
		return nil, fmt.Errorf("batch intents of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []BatchIntent
	for rows.Next() {
		in := BatchIntent{RunID: runID}
		var ids, created string
		if err := rows.Scan(&in.Nonce, &in.Provider, &ids, &created); err != nil {
			return nil, fmt.Errorf("batch intents of run %s: %w", runID, err)
		}
		if err := json.Unmarshal([]byte(ids), &in.CustomIDs); err != nil {
			return nil, fmt.Errorf("batch intent %s of run %s: unreadable custom ids: %w", in.Nonce, runID, err)
		}
		in.CreatedAt = parseTime(created)
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("batch intents of run %s: %w", runID, err)
	}
	return out, nil
}

// DropBatchIntent forgets an intent whose batch the provider never created.
func (s *Store) DropBatchIntent(ctx context.Context, runID, nonce string) error {
	if _, err := s.db.ExecContext(ctx, s.q(`DELETE FROM batch_intents WHERE run_id = ? AND nonce = ?`), runID, nonce); err != nil {
		return fmt.Errorf("drop batch intent %s of run %s: %w", nonce, runID, err)
	}
	return nil
}

// BatchStored reports whether any run stored provider's batch id.
func (s *Store) BatchStored(ctx context.Context, provider, batchID string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM run_batches WHERE provider = ? AND batch_id = ?`), provider, batchID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("batch %s: %w", batchID, err)
	}
	return n > 0, nil
}

// PutBatch records a batch the moment it is created, and drops the intent it was created
// under (b.Nonce) in the same transaction: a run killed after this polls it again on resume
// instead of submitting its units twice.
func (s *Store) PutBatch(ctx context.Context, b Batch) error {
	ids, err := json.Marshal(b.CustomIDs)
	if err != nil {
		return fmt.Errorf("batch %s: %w", b.ID, err)
	}
	now := dbTime(time.Now())
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO run_batches (run_id, batch_id, provider, custom_ids, state, collected, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, FALSE, ?, ?)`), b.RunID, b.ID, b.Provider, string(ids), b.State, now, now); err != nil {
			return err
		}
		if b.Nonce == "" {
			return nil
		}
		_, err := tx.ExecContext(ctx, s.q(`DELETE FROM batch_intents WHERE run_id = ? AND nonce = ?`), b.RunID, b.Nonce)
		return err
	})
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
