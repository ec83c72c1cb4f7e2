-- +goose Up
CREATE TABLE runs (
    id          TEXT PRIMARY KEY,
    created_at  TEXT NOT NULL,
    finished_at TEXT,
    state       TEXT NOT NULL,
    suite_path  TEXT NOT NULL,
    suite_hash  TEXT NOT NULL,
    subject     TEXT NOT NULL,
    repeats     INTEGER NOT NULL,
    units       INTEGER NOT NULL,
    manifest    TEXT NOT NULL
);

CREATE TABLE verdicts (
    run_id        TEXT NOT NULL REFERENCES runs(id),
    case_id       TEXT NOT NULL,
    repeat_idx    INTEGER NOT NULL,
    status        TEXT NOT NULL,
    label         TEXT,
    score         DOUBLE PRECISION,
    cwe           TEXT,
    category      TEXT,
    explanation   TEXT,
    reason        TEXT,
    raw           TEXT,
    input_tokens  BIGINT NOT NULL DEFAULT 0,
    cached_tokens BIGINT NOT NULL DEFAULT 0,
    output_tokens BIGINT NOT NULL DEFAULT 0,
    cost_usd      DOUBLE PRECISION,
    wall_ms       BIGINT NOT NULL DEFAULT 0,
    tool_calls    INTEGER NOT NULL DEFAULT 0,
    calls         INTEGER NOT NULL DEFAULT 0,
    retries       INTEGER NOT NULL DEFAULT 0,
    trace         TEXT,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (run_id, case_id, repeat_idx)
);

-- +goose Down
DROP TABLE verdicts;
DROP TABLE runs;
