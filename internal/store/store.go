// Package store keeps runs and their verdicts in a SQL database: SQLite on one machine (the
// default), Postgres later for many. Every verdict is one row per (run, case, repeat), written as
// it arrives, so a crash loses nothing that was stored and a run can resume.
package store

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// Run states.
const (
	StateRunning     = "running"
	StateDone        = "done"
	StateInterrupted = "interrupted"
)

// ErrNotFound is returned when a run does not exist.
var ErrNotFound = errors.New("not found")

// Run is one (suite, subject, configuration, repeats).
type Run struct {
	ID         string
	CreatedAt  time.Time
	FinishedAt time.Time // zero while running
	State      string
	SuitePath  string
	SuiteHash  string
	Subject    string
	Repeats    int
	Units      int // cases × repeats
	Manifest   json.RawMessage
}

// Unit names one (case, repeat) of a run.
type Unit struct {
	CaseID string
	Repeat int
}

// Store is the persistence the engine and the scorer need.
type Store struct {
	db  *sql.DB
	dsn string
}

// Open opens (creating and migrating when needed) the store at dsn: a file path for SQLite.
func Open(ctx context.Context, dsn string) (*Store, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return nil, fmt.Errorf("open store: Postgres stores are not supported yet; use a SQLite file path such as vulnbench.db")
	}
	path := strings.TrimPrefix(dsn, "sqlite://")
	if path == "" {
		return nil, fmt.Errorf("open store: empty database path")
	}
	q := "?_pragma=busy_timeout(20000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_txlock=immediate"
	db, err := sql.Open("sqlite", "file:"+path+q)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return &Store{db: db, dsn: path}, nil
}

func migrate(ctx context.Context, db *sql.DB) error {
	p, err := goose.NewProvider(goose.DialectSQLite3, db, migrationsFS())
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// CreateRun stores a new run.
func (s *Store) CreateRun(ctx context.Context, r *Run) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO runs (id, created_at, state, suite_path, suite_hash, subject, repeats, units, manifest)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.CreatedAt.UTC().Format(time.RFC3339Nano), r.State, r.SuitePath, r.SuiteHash, r.Subject, r.Repeats, r.Units, string(r.Manifest))
	if err != nil {
		return fmt.Errorf("create run %s: %w", r.ID, err)
	}
	return nil
}

// GetRun returns the run with id, or an error wrapping ErrNotFound.
func (s *Store) GetRun(ctx context.Context, id string) (*Run, error) {
	rows, err := s.queryRuns(ctx, `WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("run %s: %w in %s (list runs with: vulnbench runs --db %s)", id, ErrNotFound, s.dsn, s.dsn)
	}
	return &rows[0], nil
}

// Runs lists every run, oldest first.
func (s *Store) Runs(ctx context.Context) ([]Run, error) {
	return s.queryRuns(ctx, `ORDER BY created_at, id`)
}

func (s *Store) queryRuns(ctx context.Context, where string, args ...any) ([]Run, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, created_at, COALESCE(finished_at, ''), state, suite_path, suite_hash, subject, repeats, units, manifest FROM runs `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		var created, finished, manifest string
		if err := rows.Scan(&r.ID, &created, &finished, &r.State, &r.SuitePath, &r.SuiteHash, &r.Subject, &r.Repeats, &r.Units, &manifest); err != nil {
			return nil, fmt.Errorf("read runs: %w", err)
		}
		r.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		if finished != "" {
			r.FinishedAt, _ = time.Parse(time.RFC3339Nano, finished)
		}
		r.Manifest = json.RawMessage(manifest)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read runs: %w", err)
	}
	return out, nil
}

// SetState records a run's state; a state other than running also sets its finish time.
func (s *Store) SetState(ctx context.Context, id, state string) error {
	var finished any
	if state != StateRunning {
		finished = time.Now().UTC().Format(time.RFC3339Nano)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE runs SET state = ?, finished_at = ? WHERE id = ?`, state, finished, id); err != nil {
		return fmt.Errorf("set state of run %s: %w", id, err)
	}
	return nil
}

// Done calls fn for every stored unit of a run; with skipErrors, units whose verdict is an error
// are left out (so that they are tried again).
func (s *Store) Done(ctx context.Context, runID string, skipErrors bool, fn func(Unit)) error {
	q := `SELECT case_id, repeat_idx FROM verdicts WHERE run_id = ?`
	if skipErrors {
		q += ` AND status <> 'error'`
	}
	rows, err := s.db.QueryContext(ctx, q, runID)
	if err != nil {
		return fmt.Errorf("read verdicts of run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var u Unit
		if err := rows.Scan(&u.CaseID, &u.Repeat); err != nil {
			return fmt.Errorf("read verdicts of run %s: %w", runID, err)
		}
		fn(u)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read verdicts of run %s: %w", runID, err)
	}
	return nil
}

// PutVerdicts stores verdicts of a run in one transaction: all of them or none. A verdict for a
// (case, repeat) that is already stored replaces it.
func (s *Store) PutVerdicts(ctx context.Context, runID string, vs []verdict.Verdict) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store verdicts: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO verdicts (run_id, case_id, repeat_idx, status, label, score, cwe, category, explanation, reason, raw,
			input_tokens, cached_tokens, output_tokens, cost_usd, wall_ms, tool_calls, calls, retries, cache_hits, wait_ms, trace, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id, case_id, repeat_idx) DO UPDATE SET status = excluded.status, label = excluded.label,
			score = excluded.score, cwe = excluded.cwe, category = excluded.category, explanation = excluded.explanation,
			reason = excluded.reason, raw = excluded.raw, input_tokens = excluded.input_tokens, cached_tokens = excluded.cached_tokens,
			output_tokens = excluded.output_tokens, cost_usd = excluded.cost_usd, wall_ms = excluded.wall_ms,
			tool_calls = excluded.tool_calls, calls = excluded.calls, retries = excluded.retries,
			cache_hits = excluded.cache_hits, wait_ms = excluded.wait_ms, trace = excluded.trace,
			created_at = excluded.created_at`)
	if err != nil {
		return fmt.Errorf("store verdicts: %w", err)
	}
	defer stmt.Close()
	now := time.Now().UTC().Format(time.RFC3339Nano)
	for i := range vs {
		v := &vs[i]
		var trace any // traces are typed events now (internal/trace); this column is wave 1's
		if _, err := stmt.ExecContext(ctx, runID, v.CaseID, v.Repeat, string(v.Status), nullStr(string(v.Label)), v.Score,
			nullStr(strings.Join(v.CWE, ",")), nullStr(v.Category), nullStr(v.Explanation), nullStr(v.Reason), nullStr(v.Raw),
			v.Usage.InputTokens, v.Usage.CachedInputTokens, v.Usage.OutputTokens, v.Usage.CostUSD, v.Usage.WallMS,
			v.Usage.ToolCalls, v.Usage.Calls, v.Usage.Retries, v.Usage.CacheHits, v.Usage.WaitMS, trace, now); err != nil {
			return fmt.Errorf("store verdict of case %s: %w", v.CaseID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store verdicts: %w", err)
	}
	return nil
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Labels calls fn with the fields of every verdict of a run that scoring reads (case, repeat,
// status, label, score), ordered by case and repeat: cheaper than Verdicts for big runs.
func (s *Store) Labels(ctx context.Context, runID string, fn func(verdict.Verdict) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT case_id, repeat_idx, status, COALESCE(label, ''), score
		FROM verdicts WHERE run_id = ? ORDER BY case_id, repeat_idx`, runID)
	if err != nil {
		return fmt.Errorf("read verdicts of run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var v verdict.Verdict
		var status, label string
		var score sql.NullFloat64
		if err := rows.Scan(&v.CaseID, &v.Repeat, &status, &label, &score); err != nil {
			return fmt.Errorf("read verdicts of run %s: %w", runID, err)
		}
		v.Status, v.Label = verdict.Status(status), suite.Label(label)
		if score.Valid {
			v.Score = verdict.Float(score.Float64)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read verdicts of run %s: %w", runID, err)
	}
	return nil
}

// Verdicts calls fn with every verdict of a run, whole, ordered by case and repeat.
func (s *Store) Verdicts(ctx context.Context, runID string, fn func(verdict.Verdict) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT case_id, repeat_idx, status, COALESCE(label, ''), score, COALESCE(cwe, ''), COALESCE(category, ''),
		COALESCE(explanation, ''), COALESCE(reason, ''), COALESCE(raw, ''), input_tokens, cached_tokens, output_tokens, cost_usd,
		wall_ms, tool_calls, calls, retries, cache_hits, wait_ms, COALESCE(trace, '')
		FROM verdicts WHERE run_id = ? ORDER BY case_id, repeat_idx`, runID)
	if err != nil {
		return fmt.Errorf("read verdicts of run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var v verdict.Verdict
		var status, label, cwe, trace string
		var score, cost sql.NullFloat64
		if err := rows.Scan(&v.CaseID, &v.Repeat, &status, &label, &score, &cwe, &v.Category, &v.Explanation, &v.Reason, &v.Raw,
			&v.Usage.InputTokens, &v.Usage.CachedInputTokens, &v.Usage.OutputTokens, &cost, &v.Usage.WallMS,
			&v.Usage.ToolCalls, &v.Usage.Calls, &v.Usage.Retries, &v.Usage.CacheHits, &v.Usage.WaitMS, &trace); err != nil {
			return fmt.Errorf("read verdicts of run %s: %w", runID, err)
		}
		v.Status = verdict.Status(status)
		v.Label = suite.Label(label)
		if score.Valid {
			v.Score = verdict.Float(score.Float64)
		}
		if cost.Valid {
			v.Usage.CostUSD = verdict.Float(cost.Float64)
		}
		if cwe != "" {
			v.CWE = strings.Split(cwe, ",")
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read verdicts of run %s: %w", runID, err)
	}
	return nil
}
