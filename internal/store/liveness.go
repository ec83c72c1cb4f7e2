package store

import (
	"context"
	"fmt"
	"time"
)

// WorkerDead is the state of a worker that other workers saw stop heartbeating: its units were
// made available again. A worker that was only cut off beats again and is running once more.
const WorkerDead = "dead"

// Sighting is a worker's heartbeat as last stored: its id, the time it wrote (its own clock:
// compare it only with itself) and its state.
type Sighting struct {
	ID    string
	Seen  string // seen_at as stored
	State string
}

// Sightings returns the heartbeats of the workers neither stopped nor already found dead.
func (s *Store) Sightings(ctx context.Context) ([]Sighting, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, seen_at, state FROM workers WHERE state <> 'stopped' AND state <> ?`), WorkerDead)
	if err != nil {
		return nil, fmt.Errorf("read workers' heartbeats: %w", err)
	}
	defer rows.Close()
	var out []Sighting
	for rows.Next() {
		var w Sighting
		if err := rows.Scan(&w.ID, &w.Seen, &w.State); err != nil {
			return nil, fmt.Errorf("read workers' heartbeats: %w", err)
		}
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read workers' heartbeats: %w", err)
	}
	return out, nil
}

// MarkDead records that worker w is dead, unless it beat again since it was sighted. It reports
// whether the row changed.
func (s *Store) MarkDead(ctx context.Context, w Sighting) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE workers SET state = ? WHERE id = ? AND seen_at = ? AND state <> 'stopped'`),
		WorkerDead, w.ID, w.Seen)
	if err != nil {
		return false, fmt.Errorf("mark worker %s dead: %w", w.ID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("mark worker %s dead: %w", w.ID, err)
	}
	return n > 0, nil
}

// SeenAt is the time a sighting's worker wrote, by its own clock.
func (w Sighting) SeenAt() time.Time { return parseTime(w.Seen) }
