-- Batches on a provider's batch API made for the response cache rather than for a run (score
-- --judge-batch: the judge's calls): each batch as soon as it is created, with the cache keys of
-- the requests it holds (its custom ids), so that a killed process polls the same batch and never
-- submits a request twice; its state as last polled; collected once it ended and its answers were
-- written to llm_cache (in the same transaction). A request of a collected batch that is not in
-- the cache (it failed or expired) may be submitted again.

-- +goose Up
CREATE TABLE cache_batches (
    provider   TEXT NOT NULL,             -- openai or anthropic
    base_host  TEXT NOT NULL,             -- the host of a custom base URL, '' for the provider's API
    batch_id   TEXT NOT NULL,             -- the provider's id
    custom_ids TEXT NOT NULL,             -- JSON array: the requests' cache keys, in order
    state      TEXT NOT NULL,             -- the provider's status as last polled
    collected  BOOLEAN NOT NULL DEFAULT FALSE, -- it ended and its answers are in llm_cache
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (provider, base_host, batch_id)
);

-- +goose Down
DROP TABLE cache_batches;
