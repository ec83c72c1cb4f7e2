-- A run's heartbeat: the process that drives a run on the local pool records itself (host:pid)
-- and the time every second, so that a run whose process died shows as stale in vulnbench runs
-- (no heartbeat for a while) rather than running forever, and a resume may take it over while a
-- live one is refused. NULL for runs stored before: nothing is known of them.

-- +goose Up
ALTER TABLE runs ADD COLUMN owner TEXT;
ALTER TABLE runs ADD COLUMN seen_at TEXT;

-- +goose Down
ALTER TABLE runs DROP COLUMN seen_at;
ALTER TABLE runs DROP COLUMN owner;
