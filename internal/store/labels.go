package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// LabelProject is a labelling project over a suite (internal/label owns what its config and
// rows mean; the store keeps them).
type LabelProject struct {
	ID        string
	Mode      string // vex or audit
	SuitePath string
	SuiteHash string
	Config    json.RawMessage
	CreatedAt time.Time
}

// LabelCase is one case of a project, as it is shown.
type LabelCase struct {
	ID          string
	Ord         int
	Calibration bool
	Body        json.RawMessage // the case
	Context     json.RawMessage // what its page shows beside it
}

// LabelAnnotator is one annotator of a project; TokenHash is the hex SHA-256 of the secret of
// their personal link (the secret itself is never stored).
type LabelAnnotator struct {
	Name        string
	TokenHash   string
	Adjudicator bool
	CreatedAt   time.Time
}

// LabelAssignment says that an annotator labels a case.
type LabelAssignment struct {
	Case, Annotator string
}

// LabelRow is one append-only label row: an annotator's label of a case, or an adjudication.
// Previous is the row of the same case, annotator and kind that it revises (0: the first).
type LabelRow struct {
	ID        int64
	Case      string
	Annotator string
	Kind      string // label or adjudication
	At        time.Time
	Answer    json.RawMessage
	Previous  int64
	Source    string // viewer, import or cli
}

// ErrConflict is an appended row whose previous row is not the latest one: someone (another
// window, an import) added a row meanwhile. Nothing was written.
var ErrConflict = errors.New("the label changed meanwhile")

// AppendAfterLatest, as AppendLabel's previous, appends after whatever row is the latest.
const AppendAfterLatest = -1

// CreateLabelProject stores a project with its cases, annotators and assignments in one
// transaction; ErrExists when a project of that id is stored.
func (s *Store) CreateLabelProject(ctx context.Context, p LabelProject, cases []LabelCase, annotators []LabelAnnotator, assigns []LabelAssignment) error {
	now := time.Now()
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM label_projects WHERE id = ?`), p.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("labelling project %q: %w", p.ID, ErrExists)
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO label_projects (id, mode, suite_path, suite_hash, config, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
			p.ID, p.Mode, clean(p.SuitePath), p.SuiteHash, string(p.Config), dbTime(now)); err != nil {
			return err
		}
		var rows [][]any
		for _, c := range cases {
			rows = append(rows, []any{p.ID, c.ID, c.Ord, c.Calibration, clean(string(c.Body)), clean(string(c.Context))})
		}
		if err := s.insertMany(ctx, tx, "label_cases", []string{"project", "case_id", "ord", "calibration", "body", "context"}, rows); err != nil {
			return err
		}
		rows = rows[:0]
		for _, a := range annotators {
			rows = append(rows, []any{p.ID, a.Name, a.TokenHash, a.Adjudicator, dbTime(now)})
		}
		if err := s.insertMany(ctx, tx, "label_annotators", []string{"project", "name", "token_hash", "adjudicator", "created_at"}, rows); err != nil {
			return err
		}
		rows = rows[:0]
		for _, a := range assigns {
			rows = append(rows, []any{p.ID, a.Case, a.Annotator})
		}
		return s.insertMany(ctx, tx, "label_assignments", []string{"project", "case_id", "annotator"}, rows)
	})
	if err != nil && !errors.Is(err, ErrExists) {
		return fmt.Errorf("store labelling project %s: %w", p.ID, err)
	}
	return err
}

// LabelProjects lists the projects, oldest first.
func (s *Store) LabelProjects(ctx context.Context) ([]LabelProject, error) {
	return s.labelProjects(ctx, `SELECT id, mode, suite_path, suite_hash, config, created_at FROM label_projects ORDER BY created_at, id`)
}

// GetLabelProject returns a project; ErrNotFound when there is none of that id.
func (s *Store) GetLabelProject(ctx context.Context, id string) (*LabelProject, error) {
	ps, err := s.labelProjects(ctx, `SELECT id, mode, suite_path, suite_hash, config, created_at FROM label_projects WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("labelling project %q: %w", id, ErrNotFound)
	}
	return &ps[0], nil
}

func (s *Store) labelProjects(ctx context.Context, q string, args ...any) ([]LabelProject, error) {
	rows, err := s.db.QueryContext(ctx, s.q(q), args...)
	if err != nil {
		return nil, fmt.Errorf("labelling projects: %w", err)
	}
	defer rows.Close()
	var out []LabelProject
	for rows.Next() {
		var p LabelProject
		var cfg, created string
		if err := rows.Scan(&p.ID, &p.Mode, &p.SuitePath, &p.SuiteHash, &cfg, &created); err != nil {
			return nil, fmt.Errorf("labelling projects: %w", err)
		}
		p.Config, p.CreatedAt = json.RawMessage(cfg), parseTime(created)
		out = append(out, p)
	}
	return out, rows.Err()
}

// LabelCases returns a project's cases in the suite's order.
func (s *Store) LabelCases(ctx context.Context, project string) ([]LabelCase, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT case_id, ord, calibration, body, context FROM label_cases WHERE project = ? ORDER BY ord`), project)
	if err != nil {
		return nil, fmt.Errorf("cases of labelling project %s: %w", project, err)
	}
	defer rows.Close()
	var out []LabelCase
	for rows.Next() {
		var c LabelCase
		var body, ctxt string
		if err := rows.Scan(&c.ID, &c.Ord, &c.Calibration, &body, &ctxt); err != nil {
			return nil, fmt.Errorf("cases of labelling project %s: %w", project, err)
		}
		c.Body, c.Context = json.RawMessage(body), json.RawMessage(ctxt)
		out = append(out, c)
	}
	return out, rows.Err()
}

// LabelAnnotators returns a project's annotators by name.
func (s *Store) LabelAnnotators(ctx context.Context, project string) ([]LabelAnnotator, error) {
	return s.labelAnnotators(ctx, `SELECT name, token_hash, adjudicator, created_at FROM label_annotators WHERE project = ? ORDER BY name`, project)
}

// LabelAnnotatorByToken returns the annotator of a project whose link's secret hashes to hash;
// ErrNotFound when none does.
func (s *Store) LabelAnnotatorByToken(ctx context.Context, project, hash string) (*LabelAnnotator, error) {
	as, err := s.labelAnnotators(ctx, `SELECT name, token_hash, adjudicator, created_at FROM label_annotators WHERE project = ? AND token_hash = ?`, project, hash)
	if err != nil {
		return nil, err
	}
	if len(as) == 0 {
		return nil, fmt.Errorf("annotator of labelling project %s: %w", project, ErrNotFound)
	}
	return &as[0], nil
}

func (s *Store) labelAnnotators(ctx context.Context, q string, args ...any) ([]LabelAnnotator, error) {
	rows, err := s.db.QueryContext(ctx, s.q(q), args...)
	if err != nil {
		return nil, fmt.Errorf("annotators: %w", err)
	}
	defer rows.Close()
	var out []LabelAnnotator
	for rows.Next() {
		var a LabelAnnotator
		var created string
		if err := rows.Scan(&a.Name, &a.TokenHash, &a.Adjudicator, &created); err != nil {
			return nil, fmt.Errorf("annotators: %w", err)
		}
		a.CreatedAt = parseTime(created)
		out = append(out, a)
	}
	return out, rows.Err()
}

// SetLabelToken replaces an annotator's link secret (its hash): the old link stops working.
func (s *Store) SetLabelToken(ctx context.Context, project, name, hash string) error {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE label_annotators SET token_hash = ? WHERE project = ? AND name = ?`), hash, project, name)
	if err != nil {
		return fmt.Errorf("new link for %s of %s: %w", name, project, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("annotator %q of labelling project %s: %w", name, project, ErrNotFound)
	}
	return nil
}

// LabelAssignments returns who labels which case of a project.
func (s *Store) LabelAssignments(ctx context.Context, project string) ([]LabelAssignment, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT case_id, annotator FROM label_assignments WHERE project = ? ORDER BY case_id, annotator`), project)
	if err != nil {
		return nil, fmt.Errorf("assignments of labelling project %s: %w", project, err)
	}
	defer rows.Close()
	var out []LabelAssignment
	for rows.Next() {
		var a LabelAssignment
		if err := rows.Scan(&a.Case, &a.Annotator); err != nil {
			return nil, fmt.Errorf("assignments of labelling project %s: %w", project, err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// AppendLabels appends rows to a project's label rows in one transaction, in order. Each row's
// Previous must be the latest row of its case, annotator and kind (0: there is none yet), else
// nothing is written and the error is ErrConflict; AppendAfterLatest takes whatever is the
// latest. The rows come back with their ids, times and previous rows.
func (s *Store) AppendLabels(ctx context.Context, project string, rs []LabelRow) ([]LabelRow, error) {
	out := make([]LabelRow, len(rs))
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		now := time.Now()
		for i, r := range rs {
			var latest sql.NullInt64
			err := tx.QueryRowContext(ctx, s.q(`SELECT MAX(id) FROM label_rows WHERE project = ? AND case_id = ? AND annotator = ? AND kind = ?`),
				project, r.Case, r.Annotator, r.Kind).Scan(&latest)
			if err != nil {
				return err
			}
			if r.Previous != AppendAfterLatest && r.Previous != latest.Int64 {
				return fmt.Errorf("%s's %s of %s: %w (row %d is the latest, not %d): reload it", r.Annotator, r.Kind, r.Case, ErrConflict, latest.Int64, r.Previous)
			}
			r.Previous, r.At = latest.Int64, now
			var prev any
			if latest.Valid {
				prev = latest.Int64
			}
			if err := tx.QueryRowContext(ctx, s.q(`INSERT INTO label_rows (project, case_id, annotator, kind, at, answer, previous, source)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`), project, r.Case, r.Annotator, r.Kind, dbTime(now), clean(string(r.Answer)), prev, r.Source).Scan(&r.ID); err != nil {
				return err
			}
			out[i] = r
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrConflict) {
			return nil, err
		}
		return nil, fmt.Errorf("store labels of %s: %w", project, err)
	}
	return out, nil
}

// LabelRows returns every label row of a project in the order they were written.
func (s *Store) LabelRows(ctx context.Context, project string) ([]LabelRow, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, case_id, annotator, kind, at, answer, previous, source FROM label_rows WHERE project = ? ORDER BY id`), project)
	if err != nil {
		return nil, fmt.Errorf("label rows of %s: %w", project, err)
	}
	defer rows.Close()
	var out []LabelRow
	for rows.Next() {
		var r LabelRow
		var at, answer string
		var prev sql.NullInt64
		if err := rows.Scan(&r.ID, &r.Case, &r.Annotator, &r.Kind, &at, &answer, &prev, &r.Source); err != nil {
			return nil, fmt.Errorf("label rows of %s: %w", project, err)
		}
		r.At, r.Answer, r.Previous = parseTime(at), json.RawMessage(answer), prev.Int64
		out = append(out, r)
	}
	return out, rows.Err()
}
