package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
	"github.com/vulnbench/vulnbench/internal/store"
)

// DefaultDeadAfter is how long a worker's heartbeat (every second) may stay unchanged before the
// other workers take it for dead and make its units available again: well over a heartbeat's
// hiccup, well under the 30 s that a killed worker's units may wait.
const DefaultDeadAfter = 10 * time.Second

// liveness finds dead workers from their heartbeats. Every live worker watches the others: it
// remembers each one's last stored heartbeat and when it first read it, on its own monotonic
// clock, so no two hosts' clocks are ever compared. A heartbeat unchanged for deadAfter of the
// watcher's own uninterrupted watching means its worker is gone (killed, its host lost): its
// running jobs are handed back (made available now, River's rescue path with the job's error
// saying why) and it is marked dead. A slow unit of a live worker is never taken: its worker
// beats each second whatever its units do. River's own rescuer, at each job's timeout, stays as
// the backstop (no live worker to watch, say).
//
// A watcher whose own heartbeat failed or stalled (a database outage, a paused process) forgets
// what it saw: the others could not beat either, and must be watched afresh once it can.
type liveness struct {
	self      string
	deadAfter time.Duration
	beat      time.Duration
	last      time.Time // the watcher's last check
	seen      map[string]sighting
}

type sighting struct {
	seen  string    // the heartbeat as stored
	since time.Time // when this watcher first read it
}

func newLiveness(self string, deadAfter, beat time.Duration) *liveness {
	if deadAfter <= 0 {
		deadAfter = DefaultDeadAfter
	}
	return &liveness{self: self, deadAfter: deadAfter, beat: beat, seen: map[string]sighting{}}
}

// forget drops what was seen: the watcher's own heartbeat failed.
func (l *liveness) forget() {
	clear(l.seen)
	l.last = time.Time{}
}

// dead returns the workers whose heartbeat has not changed for deadAfter, given the heartbeats
// stored now.
func (l *liveness) dead(now time.Time, ws []store.Sighting) []store.Sighting {
	if !l.last.IsZero() && now.Sub(l.last) > 3*l.beat+time.Second {
		clear(l.seen) // this watcher stalled: what it saw is stale
	}
	l.last = now
	var out []store.Sighting
	present := map[string]bool{}
	for _, w := range ws {
		if w.ID == l.self {
			continue
		}
		present[w.ID] = true
		s, ok := l.seen[w.ID]
		if !ok || s.seen != w.Seen {
			l.seen[w.ID] = sighting{seen: w.Seen, since: now}
			continue
		}
		if now.Sub(s.since) >= l.deadAfter {
			out = append(out, w)
		}
	}
	for id := range l.seen {
		if !present[id] {
			delete(l.seen, id)
		}
	}
	return out
}

// watch looks at the others' heartbeats after this worker's own one was stored, and hands back
// the units of those found dead.
func (w *worker) watch(ctx context.Context) {
	ws, err := w.st.Sightings(ctx)
	if err != nil {
		w.live.forget()
		return
	}
	for _, d := range w.live.dead(time.Now(), ws) {
		n, err := handBack(ctx, w.drv, w.client, d.ID)
		if err != nil {
			if ctx.Err() == nil {
				w.note(fmt.Sprintf("worker %s stopped heartbeating; handing its units back: %v", d.ID, err))
			}
			continue // the next beat tries again
		}
		if marked, err := w.st.MarkDead(ctx, d); err == nil && marked && n > 0 {
			w.note(fmt.Sprintf("worker %s not seen since %s: %d of its units made available again", d.ID,
				d.SeenAt().Local().Format(time.TimeOnly), n))
		}
		delete(w.live.seen, d.ID)
	}
}

// handBack makes the running unit jobs last taken by worker id available again, and returns how
// many. Each is rescued alone, only if it has not been taken since it was listed (its attempt
// time is the listed one), through River's own rescue statement: River's rescuer or another
// watcher doing the same at once changes nothing.
func handBack(ctx context.Context, drv riverdriver.Driver[*sql.Tx], c *river.Client[*sql.Tx], id string) (int, error) {
	var jobs []*rivertype.JobRow
	params := river.NewJobListParams().Kinds(UnitArgs{}.Kind()).States(rivertype.JobStateRunning).First(1000)
	for {
		res, err := c.JobList(ctx, params)
		if err != nil {
			return 0, fmt.Errorf("running jobs: %w", err)
		}
		for _, j := range res.Jobs {
			if n := len(j.AttemptedBy); n > 0 && j.AttemptedBy[n-1] == id && j.AttemptedAt != nil {
				jobs = append(jobs, j)
			}
		}
		if len(res.Jobs) < 1000 {
			break
		}
		params = params.After(res.LastCursor)
	}
	exec := drv.GetExecutor()
	now := time.Now().UTC()
	for _, j := range jobs {
		msg, err := json.Marshal(rivertype.AttemptError{At: now, Attempt: j.Attempt,
			Error: fmt.Sprintf("worker %s stopped heartbeating: its unit was made available again", id)})
		if err != nil {
			return 0, err
		}
		// Only this try: a job whose attempt time moved on was taken again since it was listed.
		// A millisecond: SQLite's precision.
		if _, err := exec.JobRescueMany(ctx, &riverdriver.JobRescueManyParams{
			ID: []int64{j.ID}, Error: [][]byte{msg}, FinalizedAt: []*time.Time{nil}, ScheduledAt: []time.Time{now},
			State: []string{string(rivertype.JobStateAvailable)}, StuckHorizon: j.AttemptedAt.Add(time.Millisecond),
		}); err != nil {
			return 0, fmt.Errorf("hand back job %d: %w", j.ID, err)
		}
	}
	return len(jobs), nil
}
