package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// StaleAfter is how long a run on the local pool may go without its process's heartbeat (every
// second) before it is stale: its process is gone, and a resume may take it over.
const StaleAfter = 10 * time.Second

// StateStale is how a stale run is shown: stored as running or stopping, with no heartbeat.
const StateStale = "stale"

// BeatRun records that owner (host:pid) drives run id now: the run's heartbeat.
func (s *Store) BeatRun(ctx context.Context, id, owner string) error {
	if _, err := s.db.ExecContext(ctx, s.q(`UPDATE runs SET owner = ?, seen_at = ? WHERE id = ?`), clean(owner), dbTime(time.Now()), id); err != nil {
		return fmt.Errorf("heartbeat of run %s: %w", id, err)
	}
	return nil
}

// Stale reports whether the run is stored as running or stopping on the local pool while its
// process is gone: it has not beaten for StaleAfter (by now, this host's clock), or it ran on
// this host and no longer exists (a kill -9 is seen at once). A run with no heartbeat stored (an
// older vulnbench's) is never stale; River runs have their workers' heartbeats instead.
func (r *Run) Stale(now time.Time) bool {
	return (r.State == StateRunning || r.State == StateStopping) && r.Queue != QueueRiver && !r.Seen.IsZero() &&
		(now.Sub(r.Seen) > StaleAfter || goneHere(r.Owner))
}

// goneHere reports whether owner (host:pid) names a process of this host that does not exist.
func goneHere(owner string) bool {
	i := strings.LastIndexByte(owner, ':')
	if i < 0 {
		return false
	}
	pid, err := strconv.Atoi(owner[i+1:])
	host, _ := os.Hostname()
	if err != nil || pid <= 0 || owner[:i] != host {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// Shown is the run's state as vulnbench runs shows it: StateStale for a stale run.
func (r *Run) Shown(now time.Time) string {
	if r.Stale(now) {
		return StateStale
	}
	return r.State
}
