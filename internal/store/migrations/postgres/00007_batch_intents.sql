-- A run's batch intents (run --batch): each chunk's requests are recorded under a fresh nonce
-- before its batch is created on the provider, and the row goes in the same transaction that
-- records the created batch in run_batches. An intent left over is a process killed between the
-- provider creating the batch and vulnbench storing its id: a resume looks for the batch on the
-- provider (OpenAI: by the run and nonce in its metadata; Anthropic: by its creation time, its
-- request count and then its custom ids) and polls it, or submits the units again when the
-- provider has none.

-- +goose Up
CREATE TABLE batch_intents (
    run_id     TEXT NOT NULL REFERENCES runs(id),
    nonce      TEXT NOT NULL,             -- the chunk's, fresh: in the OpenAI batch's metadata
    provider   TEXT NOT NULL,             -- openai or anthropic
    custom_ids TEXT NOT NULL,             -- JSON array: the units' keys, in order
    created_at TEXT NOT NULL,             -- just before the create request was sent
    PRIMARY KEY (run_id, nonce)
);

-- +goose Down
DROP TABLE batch_intents;
