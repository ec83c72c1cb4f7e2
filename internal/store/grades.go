package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// Grade is a grading result of one attempt (attempt_grades): what a costly grading step (an
// AppSecBench fix check) made of it, once, under one version of the grader.
type Grade struct {
	CaseID  string
	Repeat  int
	Attempt int
	Part    string // what was graded, e.g. "fix_check"
	Version string // the grader's version
	Result  json.RawMessage
}

// PutGrades stores grading results of a run's attempts in one transaction. A result already
// stored for the same attempt, part and version is kept (grading is deterministic per version);
// an attempt that is not stored is refused.
func (s *Store) PutGrades(ctx context.Context, runID string, gs []Grade) error {
	if len(gs) == 0 {
		return nil
	}
	now := dbTime(time.Now())
	rows := make([][]any, len(gs))
	for i, g := range gs {
		if !json.Valid(g.Result) {
			return fmt.Errorf("store grades of run %s: the result of case %s (repeat %d, attempt %d) is not JSON", runID, g.CaseID, g.Repeat, g.Attempt)
		}
		rows[i] = []any{runID, g.CaseID, g.Repeat, g.Attempt, g.Part, g.Version, clean(string(g.Result)), now}
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.insertRows(ctx, tx, "attempt_grades", []string{"run_id", "case_id", "repeat_idx", "attempt", "part", "version", "result", "graded_at"},
			rows, " ON CONFLICT (run_id, part, version, case_id, repeat_idx, attempt) DO NOTHING")
	})
	if err != nil {
		return fmt.Errorf("store grades of run %s: %w", runID, err)
	}
	return nil
}

// Grades calls fn with the stored results of one part and grader version of a run's attempts,
// by case, repeat and attempt.
func (s *Store) Grades(ctx context.Context, runID, part, version string, fn func(Grade) error) error {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT case_id, repeat_idx, attempt, result FROM attempt_grades
	WHERE run_id = ? AND part = ? AND version = ? ORDER BY case_id, repeat_idx, attempt`), runID, part, version)
	if err != nil {
		return fmt.Errorf("read grades of run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		g := Grade{Part: part, Version: version}
		var res string
		if err := rows.Scan(&g.CaseID, &g.Repeat, &g.Attempt, &res); err != nil {
			return fmt.Errorf("read grades of run %s: %w", runID, err)
		}
		g.Result = json.RawMessage(res)
		if err := fn(g); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read grades of run %s: %w", runID, err)
	}
	return nil
}
