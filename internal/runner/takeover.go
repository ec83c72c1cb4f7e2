package runner

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/vulnbench/vulnbench/internal/store"
)

// runBeater is a store that records a run's heartbeat.
type runBeater interface {
	BeatRun(ctx context.Context, id, owner string) error
}

// heartbeat returns what records, at each tick of a run's watch, that this process drives run
// id (host:pid, now), when the store keeps heartbeats.
func heartbeat(st Controller, id string) func(context.Context) {
	b, ok := st.(runBeater)
	if !ok {
		return func(context.Context) {}
	}
	owner := self()
	return func(ctx context.Context) { _ = b.BeatRun(context.WithoutCancel(ctx), id, owner) }
}

// self is this process as a run's owner: host:pid.
func self() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// takeOver refuses to resume a run that a live process still drives on the local pool (its
// heartbeat is fresh): the two would do its units twice. A stale run (its process died), or one
// interrupted, stopped, from before heartbeats or last driven by this very process, is taken
// over.
func takeOver(r *store.Run, now time.Time) error {
	if r.Queue == store.QueueRiver || r.Seen.IsZero() || r.Stale(now) || r.Owner == self() ||
		(r.State != store.StateRunning && r.State != store.StateStopping) {
		return nil
	}
	return fmt.Errorf("run %s is being run by %s (heartbeat %s ago): stop it first (vulnbench stop %s), or wait: a run whose process died is stale %s after its last heartbeat, and may be resumed then",
		r.ID, r.Owner, now.Sub(r.Seen).Round(time.Second), r.ID, store.StaleAfter)
}
