-- Labelling projects (internal/label): a suite's cases to label, each annotator reaching the
-- viewer through a personal secret link (only its SHA-256 is kept), who labels what, and every
-- label as an append-only row: a revision or an adjudication adds a row naming the one it
-- follows, nothing is updated or deleted (the triggers refuse it).

-- +goose Up
CREATE TABLE label_projects (
    id         TEXT PRIMARY KEY,
    mode       TEXT NOT NULL,             -- vex (annotate categories) or audit (judge the ground truth)
    suite_path TEXT NOT NULL,
    suite_hash TEXT NOT NULL,
    config     TEXT NOT NULL,             -- JSON: overlap, calibration, seed, repos, options
    created_at TEXT NOT NULL
);

CREATE TABLE label_cases (
    project     TEXT NOT NULL REFERENCES label_projects (id),
    case_id     TEXT NOT NULL,
    ord         INTEGER NOT NULL,          -- the suite's order
    calibration BOOLEAN NOT NULL,          -- labelled by every annotator first
    body        TEXT NOT NULL,             -- the case, JSON
    context     TEXT NOT NULL,             -- what its page shows beside it (advisories), JSON
    PRIMARY KEY (project, case_id)
);

CREATE TABLE label_annotators (
    project     TEXT NOT NULL REFERENCES label_projects (id),
    name        TEXT NOT NULL,
    token_hash  TEXT NOT NULL UNIQUE,      -- hex SHA-256 of the personal link's secret
    adjudicator BOOLEAN NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (project, name)
);

CREATE TABLE label_assignments (
    project   TEXT NOT NULL REFERENCES label_projects (id),
    case_id   TEXT NOT NULL,
    annotator TEXT NOT NULL,
    PRIMARY KEY (project, case_id, annotator)
);

CREATE TABLE label_rows (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    project   TEXT NOT NULL REFERENCES label_projects (id),
    case_id   TEXT NOT NULL,
    annotator TEXT NOT NULL,
    kind      TEXT NOT NULL,               -- label or adjudication
    at        TEXT NOT NULL,
    answer    TEXT NOT NULL,               -- JSON (internal/label.Answer)
    previous  INTEGER REFERENCES label_rows (id), -- the row of the same case, annotator and kind it revises
    source    TEXT NOT NULL                -- viewer, import or cli
);
CREATE INDEX label_rows_case ON label_rows (project, case_id, annotator, kind, id);

-- +goose StatementBegin
CREATE TRIGGER label_rows_no_update BEFORE UPDATE ON label_rows
BEGIN
    SELECT RAISE(ABORT, 'label rows are append-only: add a row that revises it');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER label_rows_no_delete BEFORE DELETE ON label_rows
BEGIN
    SELECT RAISE(ABORT, 'label rows are append-only: add a row that revises it');
END;
-- +goose StatementEnd

-- +goose Down
DROP TABLE label_rows;
DROP TABLE label_assignments;
DROP TABLE label_annotators;
DROP TABLE label_cases;
DROP TABLE label_projects;
