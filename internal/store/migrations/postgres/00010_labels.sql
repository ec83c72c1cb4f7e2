-- Labelling projects (internal/label): a suite's cases to label, each annotator reaching the
-- viewer through a personal secret link (only its SHA-256 is kept), who labels what, and every
-- label as an append-only row: a revision or an adjudication adds a row naming the one it
-- follows, nothing is updated or deleted (the triggers refuse it).

-- +goose Up
CREATE TABLE label_projects (
    id         TEXT COLLATE "C" PRIMARY KEY,
    mode       TEXT NOT NULL,             -- vex (annotate categories) or audit (judge the ground truth)
    suite_path TEXT NOT NULL,
    suite_hash TEXT NOT NULL,
    config     TEXT NOT NULL,             -- JSON: overlap, calibration, seed, repos, options
    created_at TEXT COLLATE "C" NOT NULL
);

CREATE TABLE label_cases (
    project     TEXT COLLATE "C" NOT NULL REFERENCES label_projects (id),
    case_id     TEXT COLLATE "C" NOT NULL,
    ord         INTEGER NOT NULL,          -- the suite's order
    calibration BOOLEAN NOT NULL,          -- labelled by every annotator first
    body        TEXT NOT NULL,             -- the case, JSON
    context     TEXT NOT NULL,             -- what its page shows beside it (advisories), JSON
    PRIMARY KEY (project, case_id)
);

CREATE TABLE label_annotators (
    project     TEXT COLLATE "C" NOT NULL REFERENCES label_projects (id),
    name        TEXT COLLATE "C" NOT NULL,
    token_hash  TEXT NOT NULL UNIQUE,      -- hex SHA-256 of the personal link's secret
    adjudicator BOOLEAN NOT NULL,
    created_at  TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (project, name)
);

CREATE TABLE label_assignments (
    project   TEXT COLLATE "C" NOT NULL REFERENCES label_projects (id),
    case_id   TEXT COLLATE "C" NOT NULL,
    annotator TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (project, case_id, annotator)
);

CREATE TABLE label_rows (
    id        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project   TEXT COLLATE "C" NOT NULL REFERENCES label_projects (id),
    case_id   TEXT COLLATE "C" NOT NULL,
    annotator TEXT COLLATE "C" NOT NULL,
    kind      TEXT NOT NULL,               -- label or adjudication
    at        TEXT COLLATE "C" NOT NULL,
    answer    TEXT NOT NULL,               -- JSON (internal/label.Answer)
    previous  BIGINT REFERENCES label_rows (id), -- the row of the same case, annotator and kind it revises
    source    TEXT NOT NULL                -- viewer, import or cli
);
CREATE INDEX label_rows_case ON label_rows (project, case_id, annotator, kind, id);

-- +goose StatementBegin
CREATE FUNCTION label_rows_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'label rows are append-only: add a row that revises it';
END
$$ LANGUAGE plpgsql;
-- +goose StatementEnd

CREATE TRIGGER label_rows_append_only BEFORE UPDATE OR DELETE ON label_rows
    FOR EACH ROW EXECUTE FUNCTION label_rows_append_only();

-- +goose Down
DROP TABLE label_rows;
DROP FUNCTION label_rows_append_only();
DROP TABLE label_assignments;
DROP TABLE label_annotators;
DROP TABLE label_cases;
DROP TABLE label_projects;
