-- Store v2: every attempt at a unit is kept with its trace events, and a run's cases are stored
-- with it. A wave-1 store's verdicts become attempt 0 of their units (their opaque trace text, if
-- any, one "note" event), then the verdicts table goes.

-- +goose Up
CREATE TABLE run_cases (
    run_id    TEXT COLLATE "C" NOT NULL REFERENCES runs(id),
    ordinal   INTEGER NOT NULL, -- the case's position in the suite, from 0
    case_id   TEXT COLLATE "C" NOT NULL,
    kind      TEXT NOT NULL,
    label     TEXT NOT NULL,
    pair      TEXT,
    language  TEXT,
    case_json TEXT NOT NULL,    -- the whole case, as a suite line
    PRIMARY KEY (run_id, ordinal),
    UNIQUE (run_id, case_id)
);

CREATE TABLE case_cwes (
    run_id  TEXT COLLATE "C" NOT NULL,
    case_id TEXT COLLATE "C" NOT NULL,
    cwe     TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (run_id, cwe, case_id),
    FOREIGN KEY (run_id, case_id) REFERENCES run_cases(run_id, case_id)
);

CREATE TABLE attempts (
    run_id              TEXT COLLATE "C" NOT NULL REFERENCES runs(id),
    case_id             TEXT COLLATE "C" NOT NULL,
    repeat_idx          INTEGER NOT NULL,
    attempt             INTEGER NOT NULL,
    status              TEXT NOT NULL,
    label               TEXT,
    score               DOUBLE PRECISION,
    score_source        TEXT,
    confidence          DOUBLE PRECISION,
    cwe                 TEXT COLLATE "C", -- the verdict's CWE list in its order, comma-separated; attempt_cwes has one row each
    category            TEXT,
    explanation         TEXT,
    reason              TEXT,
    raw                 TEXT,
    findings            TEXT, -- JSON
    vex                 TEXT, -- JSON
    appsec              TEXT, -- JSON
    input_tokens        BIGINT NOT NULL DEFAULT 0,
    cached_input_tokens BIGINT NOT NULL DEFAULT 0,
    cache_write_tokens  BIGINT NOT NULL DEFAULT 0,
    output_tokens       BIGINT NOT NULL DEFAULT 0,
    reasoning_tokens    BIGINT NOT NULL DEFAULT 0,
    cost_usd            DOUBLE PRECISION,
    wall_ms             BIGINT NOT NULL DEFAULT 0,
    tool_calls          INTEGER NOT NULL DEFAULT 0,
    calls               INTEGER NOT NULL DEFAULT 0,
    retries             INTEGER NOT NULL DEFAULT 0,
    cache_hits          INTEGER NOT NULL DEFAULT 0,
    wait_ms             BIGINT NOT NULL DEFAULT 0,
    started_at          TEXT,
    finished_at         TEXT,
    PRIMARY KEY (run_id, case_id, repeat_idx, attempt)
);

-- Labels (what scoring reads, for every attempt of a run in unit order) is an index-only scan.
CREATE INDEX attempts_labels ON attempts (run_id, case_id, repeat_idx, attempt, status, label, score, score_source,
    confidence, cwe, tool_calls);

CREATE TABLE attempt_cwes (
    run_id     TEXT COLLATE "C" NOT NULL,
    case_id    TEXT COLLATE "C" NOT NULL,
    repeat_idx INTEGER NOT NULL,
    attempt    INTEGER NOT NULL,
    cwe        TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (run_id, cwe, case_id, repeat_idx, attempt),
    FOREIGN KEY (run_id, case_id, repeat_idx, attempt) REFERENCES attempts(run_id, case_id, repeat_idx, attempt)
);

CREATE TABLE trace_events (
    run_id              TEXT COLLATE "C" NOT NULL,
    case_id             TEXT COLLATE "C" NOT NULL,
    repeat_idx          INTEGER NOT NULL,
    attempt             INTEGER NOT NULL,
    seq                 INTEGER NOT NULL,
    time                TEXT NOT NULL,
    kind                TEXT NOT NULL,
    name                TEXT,
    call_id             TEXT,
    args                TEXT,
    content             TEXT,
    input_tokens        BIGINT NOT NULL DEFAULT 0,
    cached_input_tokens BIGINT NOT NULL DEFAULT 0,
    cache_write_tokens  BIGINT NOT NULL DEFAULT 0,
    output_tokens       BIGINT NOT NULL DEFAULT 0,
    reasoning_tokens    BIGINT NOT NULL DEFAULT 0,
    cost_usd            DOUBLE PRECISION,
    latency_ms          BIGINT NOT NULL DEFAULT 0,
    cached              BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (run_id, case_id, repeat_idx, attempt, seq),
    FOREIGN KEY (run_id, case_id, repeat_idx, attempt) REFERENCES attempts(run_id, case_id, repeat_idx, attempt)
);

INSERT INTO attempts (run_id, case_id, repeat_idx, attempt, status, label, score, cwe, category, explanation, reason, raw,
        input_tokens, cached_input_tokens, output_tokens, cost_usd, wall_ms, tool_calls, calls, retries, cache_hits, wait_ms,
        finished_at)
    SELECT run_id, case_id, repeat_idx, 0, status, label, score, NULLIF(cwe, ''), category, explanation, reason, raw,
        input_tokens, cached_tokens, output_tokens, cost_usd, wall_ms, tool_calls, calls, retries, cache_hits, wait_ms,
        created_at
    FROM verdicts;

INSERT INTO attempt_cwes (run_id, case_id, repeat_idx, attempt, cwe)
    SELECT DISTINCT run_id, case_id, repeat_idx, 0, c
    FROM verdicts, unnest(string_to_array(cwe, ',')) AS c
    WHERE cwe IS NOT NULL AND c <> '';

INSERT INTO trace_events (run_id, case_id, repeat_idx, attempt, seq, time, kind, name, content)
    SELECT run_id, case_id, repeat_idx, 0, 0, created_at, 'note', 'wave-1 trace', trace
    FROM verdicts WHERE trace IS NOT NULL AND trace <> '';

DROP TABLE verdicts;

-- +goose Down
-- Back to one verdict per unit: the scored attempt (the latest that is not an error, else the
-- latest error); the other attempts and the trace events are lost.
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
    cache_hits    INTEGER NOT NULL DEFAULT 0,
    wait_ms       BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, case_id, repeat_idx)
);
INSERT INTO verdicts (run_id, case_id, repeat_idx, status, label, score, cwe, category, explanation, reason, raw,
        input_tokens, cached_tokens, output_tokens, cost_usd, wall_ms, tool_calls, calls, retries, created_at, cache_hits, wait_ms)
    SELECT run_id, case_id, repeat_idx, status, label, score, cwe, category, explanation, reason, raw,
        input_tokens, cached_input_tokens, output_tokens, cost_usd, wall_ms, tool_calls, calls, retries,
        COALESCE(finished_at, ''), cache_hits, wait_ms
    FROM (SELECT a.*, ROW_NUMBER() OVER (PARTITION BY run_id, case_id, repeat_idx
            ORDER BY CASE WHEN status = 'error' THEN 0 ELSE 1 END DESC, attempt DESC) AS pick
          FROM attempts a) AS ranked
    WHERE pick = 1;
DROP TABLE trace_events;
DROP TABLE attempt_cwes;
DROP TABLE attempts;
DROP TABLE case_cwes;
DROP TABLE run_cases;
