package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// execer is what both *sql.DB and *sql.Tx offer.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// inTx runs fn in one transaction, committed when fn returns nil, and again in a new one when
// the database went away meanwhile (retryTx): fn must do nothing but statements in tx.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return s.retryTx(ctx, fn)
}

// Tx is one transaction of the store, for writes that must commit together with a queue's own
// (a run with its River jobs, an attempt with its job's completion). SQL returns the
// transaction itself for the queue's driver.
type Tx struct {
	s         *Store
	tx        *sql.Tx
	cacheDone []func(committed bool) // told whether the response cache rows written in tx were kept
}

// InTx runs fn in one transaction, committed when fn returns nil and rolled back otherwise.
func (s *Store) InTx(ctx context.Context, fn func(*Tx) error) error {
	t := &Tx{s: s}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for _, done := range t.cacheDone { // a failed try's cache rows go back for this one
			done(false)
		}
		t.cacheDone = t.cacheDone[:0]
		t.tx = tx
		return fn(t)
	})
	for _, done := range t.cacheDone {
		done(err == nil)
	}
	return err
}

// SQL is the database/sql transaction, to hand to a queue driver working in the same one.
func (t *Tx) SQL() *sql.Tx { return t.tx }

// CreateRun is Store.CreateRun in the transaction.
func (t *Tx) CreateRun(ctx context.Context, r *Run) error { return t.s.createRun(ctx, t.tx, r) }

// SetState is Store.SetState in the transaction.
func (t *Tx) SetState(ctx context.Context, id, state string) error {
	return t.s.setState(ctx, t.tx, id, state)
}

// PutCases is Store.PutCases in the transaction.
func (t *Tx) PutCases(ctx context.Context, runID string, first int, cases []suite.Case) error {
	if len(cases) == 0 {
		return nil
	}
	if err := t.s.putCases(ctx, t.tx, runID, first, cases); err != nil {
		return fmt.Errorf("store cases of run %s: %w", runID, err)
	}
	return nil
}

// PutAttempts is Store.PutAttempts in the transaction (with the response cache's waiting rows).
func (t *Tx) PutAttempts(ctx context.Context, runID string, as []Attempt) error {
	if len(as) == 0 {
		return nil
	}
	done, err := t.s.writeCache(ctx, t.tx)
	if err != nil {
		return fmt.Errorf("store attempts of run %s: %w", runID, err)
	}
	t.cacheDone = append(t.cacheDone, done)
	if err := t.s.putAttempts(ctx, t.tx, runID, as); err != nil {
		return fmt.Errorf("store attempts of run %s: %w", runID, err)
	}
	return nil
}

// DB is the store's database, for a queue driver that keeps its own tables beside the store's
// (River). Dialect says which: "sqlite" or "postgres".
func (s *Store) DB() *sql.DB { return s.db }

// Dialect is "sqlite" or "postgres".
func (s *Store) Dialect() string { return s.dialect.name() }

// RunState reads run id's state in the transaction, holding the run's row against a change of
// state (a resume's) until the transaction ends: on Postgres with FOR SHARE, on SQLite by the
// write lock every transaction takes.
func (t *Tx) RunState(ctx context.Context, id string) (string, error) {
	q := `SELECT state FROM runs WHERE id = ?`
	if t.s.dialect == postgresDialect {
		q += ` FOR SHARE`
	}
	var state string
	if err := t.tx.QueryRowContext(ctx, t.s.q(q), id).Scan(&state); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return "", fmt.Errorf("run %s: %w", id, ErrNotFound)
		}
		return "", fmt.Errorf("state of run %s: %w", id, err)
	}
	return state, nil
}
