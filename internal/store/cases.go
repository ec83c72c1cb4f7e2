package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// PutCases stores cases of a run with the ordinals first, first+1, ... (their positions in the
// suite), in one transaction: all of them or none. Callers stream a suite in batches (say 1,000
// cases a call). A case id or ordinal already stored for the run is refused.
func (s *Store) PutCases(ctx context.Context, runID string, first int, cases []suite.Case) error {
	if len(cases) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error { return s.putCases(ctx, tx, runID, first, cases) })
	if err != nil {
		return fmt.Errorf("store cases of run %s: %w", runID, err)
	}
	return nil
}

func (s *Store) putCases(ctx context.Context, tx *sql.Tx, runID string, first int, cases []suite.Case) error {
	rows := make([][]any, 0, len(cases))
	var cwes [][]any
	for i := range cases {
		c := &cases[i]
		b, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("case %s: %w", c.ID, err)
		}
		id := clean(c.ID)
		rows = append(rows, []any{runID, first + i, id, string(c.Kind), string(c.Label), text(c.Pair), text(c.Language), string(b)})
		for _, cwe := range distinct(c.CWE) {
			cwes = append(cwes, []any{runID, id, clean(cwe)})
		}
	}
	if err := s.insertMany(ctx, tx, "run_cases", []string{"run_id", "ordinal", "case_id", "kind", "label", "pair", "language", "case_json"}, rows); err != nil {
		if isUniqueViolation(err) {
			// Which case: the driver's message says (Postgres names the key, SQLite the columns).
			return fmt.Errorf("cases %d to %d: a case id or ordinal is %w (%v)", first, first+len(cases)-1, ErrExists, err)
		}
		return fmt.Errorf("cases %d to %d: %w", first, first+len(cases)-1, err)
	}
	if err := s.insertMany(ctx, tx, "case_cwes", []string{"run_id", "case_id", "cwe"}, cwes); err != nil {
		return fmt.Errorf("CWEs of cases %d to %d: %w", first, first+len(cases)-1, err)
	}
	return nil
}

// distinct returns the non-empty strings of ss, each once, in their order.
func distinct(ss []string) []string {
	if len(ss) < 2 {
		if len(ss) == 1 && ss[0] == "" {
			return nil
		}
		return ss
	}
	out := make([]string, 0, len(ss))
	seen := make(map[string]bool, len(ss))
	for _, s := range ss {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Cases calls fn with every stored case of a run in suite order; it stops at, and returns, the
// first error fn returns.
func (s *Store) Cases(ctx context.Context, runID string, fn func(*suite.Case) error) error {
	return s.cases(ctx, runID, `SELECT case_json FROM run_cases WHERE run_id = ? ORDER BY ordinal`, []any{runID}, fn)
}

// CasesOfKind is Cases of the cases of one kind.
func (s *Store) CasesOfKind(ctx context.Context, runID string, kind suite.Kind, fn func(*suite.Case) error) error {
	return s.cases(ctx, runID, `SELECT case_json FROM run_cases WHERE run_id = ? AND kind = ? ORDER BY ordinal`, []any{runID, string(kind)}, fn)
}

func (s *Store) cases(ctx context.Context, runID, query string, args []any, fn func(*suite.Case) error) error {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return fmt.Errorf("read cases of run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return fmt.Errorf("read cases of run %s: %w", runID, err)
		}
		c := new(suite.Case)
		if err := json.Unmarshal(b, c); err != nil {
			return fmt.Errorf("read cases of run %s: %w", runID, err)
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read cases of run %s: %w", runID, err)
	}
	return nil
}

// CaseCount returns the number of stored cases of a run.
func (s *Store) CaseCount(ctx context.Context, runID string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM run_cases WHERE run_id = ?`), runID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count cases of run %s: %w", runID, err)
	}
	return n, nil
}

// SetCaseMeta sets meta.KEY of a run's stored case to value (a fact about the case learnt while
// the run judged it, such as its repository's size), leaving the rest of the case as it was;
// a case not stored is refused with an error wrapping ErrNotFound.
func (s *Store) SetCaseMeta(ctx context.Context, runID, caseID, key string, value any) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var b []byte
		err := tx.QueryRowContext(ctx, s.q(`SELECT case_json FROM run_cases WHERE run_id = ? AND case_id = ?`), runID, caseID).Scan(&b)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("case %s of run %s: %w", caseID, runID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		var c map[string]json.RawMessage
		if err := json.Unmarshal(b, &c); err != nil {
			return err
		}
		meta := map[string]any{}
		if raw, ok := c["meta"]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &meta); err != nil {
				return err
			}
		}
		meta[key] = value
		if c["meta"], err = json.Marshal(meta); err != nil {
			return err
		}
		out, err := json.Marshal(c)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.q(`UPDATE run_cases SET case_json = ? WHERE run_id = ? AND case_id = ?`), clean(string(out)), runID, caseID)
		return err
	})
	if err != nil {
		return fmt.Errorf("set meta.%s of case %s of run %s: %w", key, caseID, runID, err)
	}
	return nil
}
