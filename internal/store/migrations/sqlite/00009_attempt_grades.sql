-- Grading results of attempts that are costly to make and never change for one attempt and
-- one grader version (AppSecBench's fix checks run scanners in the sandbox): made once, stored
-- beside the attempt, and read by score, report, board and the viewer. A grader whose version
-- changed grades again under its own version; the rows of another version stay.

-- +goose Up
CREATE TABLE attempt_grades (
    run_id     TEXT NOT NULL,
    case_id    TEXT NOT NULL,
    repeat_idx INTEGER NOT NULL,
    attempt    INTEGER NOT NULL,
    part       TEXT NOT NULL,    -- what was graded (fix_check)
    version    TEXT NOT NULL,    -- the grader's version
    result     TEXT NOT NULL,    -- JSON
    graded_at  TEXT NOT NULL,
    PRIMARY KEY (run_id, part, version, case_id, repeat_idx, attempt),
    FOREIGN KEY (run_id, case_id, repeat_idx, attempt) REFERENCES attempts (run_id, case_id, repeat_idx, attempt)
);

-- +goose Down
DROP TABLE attempt_grades;
