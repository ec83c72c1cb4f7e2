-- A run's batches on a provider's batch API (run --batch): each batch as soon as it is created,
-- with the custom ids (units) it holds, so that a restarted run polls the same batch and never
-- submits a unit twice; its state as last polled; collected once it ended and its results were read.

-- +goose Up
CREATE TABLE run_batches (
    run_id     TEXT NOT NULL REFERENCES runs(id),
    batch_id   TEXT NOT NULL,             -- the provider's id
    provider   TEXT NOT NULL,             -- openai or anthropic
    custom_ids TEXT NOT NULL,             -- JSON array: the units' keys, in order
    state      TEXT NOT NULL,             -- the provider's status as last polled
    collected  BOOLEAN NOT NULL DEFAULT FALSE, -- it ended and its results were read
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (run_id, batch_id)
);

-- +goose Down
DROP TABLE run_batches;
