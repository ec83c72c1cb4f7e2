-- Runs spread over workers (--queue river): which queue a run's units went to, the run's budget
-- ledger shared by every worker (reserve before a model call, settle after), the workers'
-- heartbeats with their progress per run, and the windows of a run's shared rate limit. River's
-- own tables (river_job, ...) are River's migrations (rivermigrate), not these.

-- +goose Up
ALTER TABLE runs ADD COLUMN queue TEXT NOT NULL DEFAULT 'local';

CREATE TABLE run_budget (
    run_id   TEXT PRIMARY KEY REFERENCES runs(id),
    cap      DOUBLE PRECISION NOT NULL,      -- --max-cost, USD
    spent    DOUBLE PRECISION NOT NULL DEFAULT 0, -- settled calls (and attempts stored before the ledger)
    reserved DOUBLE PRECISION NOT NULL DEFAULT 0, -- estimates of the calls in flight
    calls    INTEGER NOT NULL DEFAULT 0, -- priced calls settled: spent / calls is the estimate of the next
    inflight INTEGER NOT NULL DEFAULT 0, -- reservations not settled
    refused  BOOLEAN NOT NULL DEFAULT FALSE                 -- a call was refused: the cap is reached
);

CREATE TABLE workers (
    id          TEXT PRIMARY KEY,
    host        TEXT NOT NULL,
    pid         INTEGER NOT NULL,
    concurrency INTEGER NOT NULL,
    queues      TEXT NOT NULL,
    started_at  TEXT NOT NULL,
    seen_at     TEXT NOT NULL, -- heartbeat; a worker not seen for a while is gone
    state       TEXT NOT NULL    -- running, stopping, stopped
);

CREATE TABLE worker_runs (
    worker_id TEXT NOT NULL REFERENCES workers(id),
    run_id    TEXT NOT NULL REFERENCES runs(id),
    done      INTEGER NOT NULL DEFAULT 0, -- attempts this worker stored for the run
    errors    INTEGER NOT NULL DEFAULT 0, -- of which errors
    in_flight INTEGER NOT NULL DEFAULT 0,
    seen_at   TEXT NOT NULL,
    PRIMARY KEY (run_id, worker_id)
);

CREATE TABLE rate_windows (
    run_id    TEXT NOT NULL,
    win       BIGINT NOT NULL, -- Unix second
    n         INTEGER NOT NULL,
    PRIMARY KEY (run_id, win)
);

-- +goose Down
DROP TABLE rate_windows;
DROP TABLE worker_runs;
DROP TABLE workers;
DROP TABLE run_budget;
ALTER TABLE runs DROP COLUMN queue;
