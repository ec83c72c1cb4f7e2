package queue

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// WorkerOptions configure one worker process.
type WorkerOptions struct {
	Options
	ID          string   // unique among live workers, e.g. HOST-PID-RANDOM
	Host        string   // shown by vulnbench runs
	PID         int      // shown by vulnbench runs
	Concurrency int      // units at once
	Queues      []string // River queues to take units from (nil: DefaultQueue)
	Open        runner.OpenOptions
	// Hard, when closed during a graceful stop, abandons the units in flight (their jobs go back
	// to the queue and are redone).
	Hard <-chan struct{}
	// Beat is how often the worker records its heartbeat and progress and reads the states of
	// its runs (0: 1 s).
	Beat time.Duration
	// DeadAfter is how long another worker's heartbeat may stay unchanged before this one takes
	// it for dead and makes its units available again (0: DefaultDeadAfter).
	DeadAfter time.Duration
	// OnNote receives what the worker has to say (a run it cannot open, a run stopped).
	OnNote func(string)
}

// This host's worker: its id (HOST-PID-RANDOM, unique among live workers), host and pid.
func (o *WorkerOptions) This() {
	o.Host, _ = os.Hostname()
	o.PID = os.Getpid()
	var b [3]byte
	_, _ = rand.Read(b[:])
	o.ID = fmt.Sprintf("%s-%d-%s", o.Host, o.PID, hex.EncodeToString(b[:]))
}

// ParseQueues reads a comma-separated list of queue names (--queues); none is an error.
func ParseQueues(s string) ([]string, error) {
	var queues []string
	for _, q := range strings.Split(s, ",") {
		if q = strings.TrimSpace(q); q != "" {
			queues = append(queues, q)
		}
	}
	if len(queues) == 0 {
		return nil, errors.New("--queues names no queue")
	}
	return queues, nil
}

// fetchCooldown is the least time between two fetches of a worker. It bounds a worker's pace
// when units are quick (at most its concurrency per cooldown: 16 units per 20 ms capped a worker
// at 1.25 ms a unit, the whole of River's overhead over the local pool at 0 ms latency), and a
// freed slot waits half of it on average. bench/workers.sh, same rounds (load 12-16): 20 ms gave
// 1.69 ms a unit over the local pool and 4 workers 3.42x one; 5 ms, 1.30 ms and 3.62x.
const fetchCooldown = 5 * time.Millisecond

// rescueAfter is River's client-wide horizon for stuck jobs. It is short on purpose: a job is
// rescued only once its own Timeout (UnitArgs.jobTimeout) has passed too, so each job's timeout
// is what decides, and a real agent unit is never taken away while it can still finish.
const rescueAfter = time.Second

// Work runs a worker until ctx is cancelled (a graceful stop: the units in flight finish and are
// stored; closing o.Hard abandons them) or River fails.
func Work(ctx context.Context, st *store.Store, o WorkerOptions) error {
	if o.Concurrency < 1 {
		return errors.New("worker: concurrency must be at least 1")
	}
	queues := o.Queues
	if len(queues) == 0 {
		queues = []string{DefaultQueue}
	}
	drv, pool, err := driver(ctx, st, o.DSN)
	if err != nil {
		return err
	}
	defer closePool(pool)
	if err := migrate(ctx, st, drv); err != nil {
		return err
	}
	beat := o.Beat
	if beat <= 0 {
		beat = time.Second
	}
	w := &worker{st: st, o: o, drv: drv, live: newLiveness(o.ID, o.DeadAfter, beat), runs: map[string]*openRun{},
		kept: map[string][2]int{}, note: o.OnNote}
	if w.note == nil {
		w.note = func(string) {}
	}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, river.Worker[UnitArgs](&unitWorker{w: w})); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	qc := map[string]river.QueueConfig{}
	for _, q := range queues {
		qc[q] = river.QueueConfig{MaxWorkers: o.Concurrency}
	}
	client, err := river.NewClient(drv, &river.Config{
		ID: o.ID, Queues: qc, Workers: workers, Logger: logger(o.Log),
		JobTimeout: -1, RescueStuckJobsAfter: rescueAfter, MaxAttempts: maxJobAttempts,
		FetchCooldown: fetchCooldown, FetchPollInterval: 200 * time.Millisecond,
	})
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	w.client = client
	w.commit = newCommitter(st, completeJobs(drv), o.Concurrency*len(queues))
	committed := make(chan struct{})
	go func() { w.commit.run(context.WithoutCancel(ctx)); close(committed) }()
	defer func() { w.commit.close(); <-committed }() // after River's stop: no unit is left to put
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("worker: start River: %w", err)
	}
	info := store.Worker{ID: o.ID, Host: o.Host, PID: o.PID, Concurrency: o.Concurrency, Queues: strings.Join(queues, ","),
		Started: time.Now(), State: "running"}
	w.beat(ctx, info)
	t := time.NewTicker(beat)
	defer t.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-t.C:
			if w.beat(ctx, info) {
				w.watch(ctx)
			} else {
				w.live.forget()
			}
		}
	}
	// Stopping: the units in flight finish, however long they take, and the heartbeat goes on
	// meanwhile, so that no other worker takes this one for dead.
	info.State = "stopping"
	bctx := context.WithoutCancel(ctx)
	w.beat(bctx, info)
	stopped := make(chan error, 2)
	go func() { stopped <- client.Stop(bctx) }()
	var stopErr error
	hard := o.Hard
wait:
	for {
		select {
		case stopErr = <-stopped:
			break wait
		case <-hard:
			hard = nil
			go func() { stopped <- client.StopAndCancel(bctx) }()
		case <-t.C:
			w.beat(bctx, info)
		}
	}
	info.State = "stopped"
	w.beat(context.WithoutCancel(ctx), info)
	w.closeRuns()
	if stopErr != nil {
		return fmt.Errorf("worker: stop River: %w", stopErr)
	}
	return nil
}

// worker is one worker process's state: the runs it opened, with what it did for each.
type worker struct {
	st     *store.Store
	o      WorkerOptions
	client *river.Client[*sql.Tx]
	drv    riverdriver.Driver[*sql.Tx]
	live   *liveness
	commit *committer
	note   func(string)

	mu   sync.Mutex
	runs map[string]*openRun
	// kept holds what the worker did for runs it closed (ended, stopped, cancelled), carried
	// over when a resume makes it open them again.
	kept    map[string][2]int
	closing []*openRun        // closed runs with units still winding down
	flush   []store.WorkerRun // final counts of closed runs, for the next heartbeat
}

// openRun is a run a worker opened, with its state as last read.
type openRun struct {
	opened *runner.Run
	err    error // why it cannot be opened here
	ctx    context.Context
	cancel context.CancelFunc

	mu                     sync.Mutex
	state                  string
	done, errors, inFlight int
}

func (r *openRun) State() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state
}

// run returns the run id, opened once per worker, with one more unit in flight (not when it
// cannot be opened).
func (w *worker) run(ctx context.Context, id string) (*openRun, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if r, ok := w.runs[id]; ok {
		if r.err == nil {
			r.add(0, 0, 1)
		}
		return r, r.err
	}
	r := &openRun{done: w.kept[id][0], errors: w.kept[id][1]}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.opened, r.err = runner.Open(ctx, w.st, id, w.o.Open)
	if r.err != nil {
		if !errors.Is(r.err, store.ErrNotFound) && ctx.Err() == nil {
			w.note(fmt.Sprintf("run %s: %v", id, r.err))
		}
		if ctx.Err() != nil { // opening was cut short: try again next time
			return nil, r.err
		}
	} else {
		r.state = r.opened.Record().State
		r.inFlight = 1
	}
	w.runs[id] = r
	return r, r.err
}

func (w *worker) closeRuns() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.runs {
		r.cancel()
		if r.opened != nil {
			r.opened.Close()
		}
	}
	for _, r := range w.closing {
		r.opened.Close()
	}
}

// beat records the heartbeat, reads the state of every run opened (a cancelled one abandons
// its units in flight), and ends the runs whose jobs are over. It reports whether the heartbeat
// was stored.
func (w *worker) beat(ctx context.Context, info store.Worker) bool {
	w.mu.Lock()
	ids := make([]string, 0, len(w.runs))
	runs := make([]*openRun, 0, len(w.runs))
	for id, r := range w.runs {
		if r.opened != nil {
			ids, runs = append(ids, id), append(runs, r)
		}
	}
	rows := w.flush
	w.flush = nil
	w.mu.Unlock()
	for i, r := range runs {
		r.mu.Lock()
		rows = append(rows, store.WorkerRun{RunID: ids[i], Done: r.done, Errors: r.errors, InFlight: r.inFlight})
		r.mu.Unlock()
	}
	beaten := true
	if err := w.st.Beat(ctx, info, rows); err != nil {
		beaten = false
		if ctx.Err() == nil {
			w.note(err.Error())
		}
	}
	if w.client == nil || ctx.Err() != nil {
		return beaten
	}
	for i, r := range runs {
		r.mu.Lock()
		busy := r.inFlight > 0
		r.mu.Unlock()
		state, err := finish(ctx, w.st, ids[i], busy)
		if err != nil {
			continue // the next beat reads again
		}
		r.mu.Lock()
		was := r.state
		r.state = state
		r.mu.Unlock()
		if state == store.StateCancelled {
			r.cancel() // its units in flight are abandoned
		}
		if state == store.StateCancelled || state == store.StateInterrupted || state == store.StateDone {
			// Nothing of it is in flight any more: a resume (maybe with another --max-cost)
			// opens it afresh from the store.
			// Whether it is idle and its final counts are read under the locks w.run counts a
			// unit in flight under: a unit that starts after the check reopens the run.
			closeNow := false
			w.mu.Lock()
			r.mu.Lock()
			if w.runs[ids[i]] == r && (state == store.StateCancelled || r.inFlight == 0) {
				delete(w.runs, ids[i])
				w.kept[ids[i]] = [2]int{r.done, r.errors}
				w.flush = append(w.flush, store.WorkerRun{RunID: ids[i], Done: r.done, Errors: r.errors, InFlight: r.inFlight})
				if closeNow = r.inFlight == 0; !closeNow { // a cancelled unit still winds down: closeRuns closes it at exit
					w.closing = append(w.closing, r)
				}
			}
			r.mu.Unlock()
			w.mu.Unlock()
			if closeNow {
				r.opened.Close()
			}
		}
		if state != was && state != store.StateRunning {
			w.note(fmt.Sprintf("run %s: %s", ids[i], state))
		}
	}
	return beaten
}

// unitWorker is River's worker of unit jobs.
type unitWorker struct {
	river.WorkerDefaults[UnitArgs]
	w *worker
}

// Timeout is each job's own: the run's --timeout plus a margin (see UnitArgs.jobTimeout).
func (u *unitWorker) Timeout(job *river.Job[UnitArgs]) time.Duration { return job.Args.jobTimeout() }

// Work does one unit and stores its attempt with the job's completion, in one transaction (the
// worker's group commit).
func (u *unitWorker) Work(ctx context.Context, job *river.Job[UnitArgs]) error {
	w, a := u.w, job.Args
	r, err := w.run(ctx, a.Run)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return river.JobCancel(err)
	case err != nil:
		return err // River tries again later, maybe on a worker that can open it
	}
	// In flight (since w.run) until its attempt is stored and counted: a run whose jobs are all
	// completed is closed by the next heartbeat only once nothing of it is in flight, with its
	// final counts.
	counted := false
	defer func() {
		if !counted {
			r.add(0, 0, -1)
		}
	}()
	if r.State() != store.StateRunning {
		// As last read: a resume may have made it running again since.
		if run, err := w.st.GetRun(ctx, a.Run); err == nil {
			r.mu.Lock()
			r.state = run.State
			r.mu.Unlock()
		}
	}
	if r.ctx.Err() != nil || r.State() != store.StateRunning {
		// Stopping, stopped or cancelled: the unit is left for a resume, which enqueues it again,
		// unless a resume made the run running meanwhile.
		running, err := w.leave(ctx, job)
		if err != nil || !running {
			return err
		}
		if r.ctx.Err() != nil { // this worker's copy of the run was cancelled: open it afresh
			return fmt.Errorf("run %s was resumed while this worker held it cancelled: tried again", a.Run)
		}
		r.mu.Lock()
		r.state = store.StateRunning
		r.mu.Unlock()
	}
	if job.Attempt > 1 { // a retry or a rescue: an earlier try may have stored it and died before River heard
		next, err := w.st.NextAttempt(ctx, a.Run, a.Case, a.Repeat)
		if err != nil {
			return err
		}
		if next > a.Attempt {
			return nil
		}
	}
	uctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(r.ctx, cancel)()
	unit, err := r.opened.Unit(uctx, a.Case, a.Repeat, a.Attempt)
	if err != nil {
		return err // the case cannot be read now (the store): the job is tried again
	}
	at, _, ok, err := r.opened.Do(uctx, unit)
	if errors.Is(err, subject.ErrAbort) {
		w.note(fmt.Sprintf("run %s: %v: stopping it", a.Run, err))
		_ = w.st.SetState(context.WithoutCancel(ctx), a.Run, store.StateStopping)
		return river.JobCancel(err)
	}
	if !ok {
		switch {
		case ctx.Err() != nil:
			return ctx.Err() // this worker stops hard: the job is tried again elsewhere
		case r.ctx.Err() != nil: // cancelled under it
			if running, err := w.leave(ctx, job); err != nil || !running {
				return err
			}
			return fmt.Errorf("run %s was resumed while this unit of its cancelled invocation wound down: tried again", a.Run)
		}
		// The run's --max-cost refused the unit's first call: nothing new starts.
		w.note(fmt.Sprintf("run %s: --max-cost reached: stopping it", a.Run))
		_ = w.st.SetState(context.WithoutCancel(ctx), a.Run, store.StateStopping)
		return river.JobCancel(runner.ErrBudget)
	}
	// Stored with the job's completion in the worker's next group commit. A job no longer
	// running (rescued while this worker was slow) is not completed: the attempt is stored all
	// the same, and the job's next try finds it.
	err = w.commit.put(a.Run, job.ID, at)
	if errors.Is(err, store.ErrExists) {
		return nil // another try of this unit stored it first: one attempt, not two
	}
	if err != nil {
		return err
	}
	errs := 0
	if at.Verdict.Status == verdict.Error {
		errs = 1
	}
	counted = true
	r.add(1, errs, -1)
	return nil
}

// leave ends the job of a unit this worker does not do because its run is not running: the job
// is completed with nothing stored, in a transaction that holds the run's state. A resume sets
// the state first and then enqueues each unit with no waiting or running job, so either it sees
// this job over and enqueues the unit again, or it came first and running is true: the run was
// resumed, and the caller does the unit (or fails the job, which River tries again).
func (w *worker) leave(ctx context.Context, job *river.Job[UnitArgs]) (running bool, err error) {
	cctx := context.WithoutCancel(ctx)
	err = w.st.InTx(cctx, func(tx *store.Tx) error {
		state, err := tx.RunState(cctx, job.Args.Run)
		if err != nil || state == store.StateRunning {
			running = err == nil
			return err
		}
		// A job no longer running (rescued while this worker was slow) cannot be completed
		// here: its other try decides.
		_, _ = river.JobCompleteTx[riverdriver.Driver[*sql.Tx]](cctx, tx.SQL(), job)
		return nil
	})
	return running, err
}

func (r *openRun) add(done, errs, inFlight int) {
	r.mu.Lock()
	r.done += done
	r.errors += errs
	r.inFlight += inFlight
	r.mu.Unlock()
}
