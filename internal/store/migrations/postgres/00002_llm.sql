-- +goose Up
CREATE TABLE llm_cache (
    key        TEXT COLLATE "C" PRIMARY KEY,
    provider   TEXT NOT NULL,
    model      TEXT NOT NULL,
    response   TEXT NOT NULL,
    created_at TEXT NOT NULL
);
ALTER TABLE verdicts ADD COLUMN cache_hits INTEGER NOT NULL DEFAULT 0;
ALTER TABLE verdicts ADD COLUMN wait_ms BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE verdicts DROP COLUMN wait_ms;
ALTER TABLE verdicts DROP COLUMN cache_hits;
DROP TABLE llm_cache;
