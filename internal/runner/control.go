package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/vulnbench/vulnbench/internal/store"
)

// Lister is what listing runs needs from the store.
type Lister interface {
	Runs(ctx context.Context) ([]store.Run, error)
	Units(ctx context.Context, runID string, fn func(store.UnitState)) error
	WorkerRuns(ctx context.Context, runID string) ([]store.WorkerRun, error)
}

// Status is a run with how far it got.
type Status struct {
	store.Run
	Done   int // units with a scored verdict
	Errors int // units whose every attempt is an error
	Tries  int // attempts stored, retries included
	// Workers is what each worker did for a run queued on River, from their heartbeats.
	Workers []store.WorkerRun
}

// List returns every run of the store, oldest first, with its progress.
func List(ctx context.Context, st Lister) ([]Status, error) {
	runs, err := st.Runs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Status, len(runs))
	for i, r := range runs {
		s := Status{Run: r}
		if err := st.Units(ctx, r.ID, func(u store.UnitState) {
			s.Tries += u.Attempts
			if u.Scored {
				s.Done++
			} else {
				s.Errors++
			}
		}); err != nil {
			return nil, fmt.Errorf("run %s: %w", r.ID, err)
		}
		if r.Queue == store.QueueRiver {
			if s.Workers, err = st.WorkerRuns(ctx, r.ID); err != nil {
				return nil, err
			}
		}
		out[i] = s
	}
	return out, nil
}

// Controller is what stopping and cancelling runs needs from the store.
type Controller interface {
	GetRun(ctx context.Context, id string) (*store.Run, error)
	SetState(ctx context.Context, id, state string) error
}

// Stop asks a running run to start no new unit and finish those in flight, from any process:
// the run's invocation sees the state within its poll interval and ends as interrupted
// (resumable).
func Stop(ctx context.Context, st Controller, id string) error {
	return request(ctx, st, id, store.StateStopping)
}

// Cancel asks a running run to abandon its units in flight too; it ends as cancelled (a resume
// still does what is left).
func Cancel(ctx context.Context, st Controller, id string) error {
	return request(ctx, st, id, store.StateCancelled)
}

func request(ctx context.Context, st Controller, id, state string) error {
	r, err := st.GetRun(ctx, id)
	if err != nil {
		return err
	}
	if r.State != store.StateRunning && r.State != store.StateStopping {
		return fmt.Errorf("run %s is %s, not running: nothing to stop", id, r.State)
	}
	return st.SetState(ctx, id, state)
}

// control is a run's invocation watching its stored state.
type control struct {
	stop   chan struct{}
	done   chan struct{}
	cancel context.CancelFunc
	mu     sync.Mutex
	stopd  bool
	cancld bool
}

// watch returns a context cancelled, and a stop channel closed, when the run's state asks for
// it (Stop, Cancel) or when local closes.
func watch(ctx context.Context, st Controller, id string, local <-chan struct{}, every time.Duration) (context.Context, *control) {
	if every <= 0 {
		every = time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &control{stop: make(chan struct{}), done: make(chan struct{}), cancel: cancel}
	beat := heartbeat(st, id)
	beat(ctx)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-c.done:
				return
			case <-ctx.Done():
				return
			case <-local:
				c.doStop()
				local = nil
			case <-t.C:
				beat(ctx)
				r, err := st.GetRun(context.WithoutCancel(ctx), id)
				if err != nil {
					continue // a store hiccup: the next tick reads again
				}
				switch r.State {
				case store.StateStopping:
					c.doStop()
				case store.StateCancelled:
					c.mu.Lock()
					c.cancld = true
					c.mu.Unlock()
					c.doStop()
					cancel()
					return
				}
			}
		}
	}()
	return ctx, c
}

func (c *control) doStop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopd {
		c.stopd = true
		close(c.stop)
	}
}

func (c *control) cancelled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancld
}

func (c *control) close() {
	close(c.done)
	c.cancel()
}
