-- Scheduled jobs: the files store's cron/jobs.json, one row each (seq keeps
-- the order they were added in), and their runs (cron/runs/<id>.jsonl).
-- A run's row is written when the run is claimed, with status NULL while
-- it runs: for a scheduled run, due is the time it was due at, and
-- (job_id, due) is unique, so a due time runs once however many replicas
-- claim it. River (its own tables, in this schema too) carries the due
-- runs to the replicas' workers.
CREATE TABLE clawseed.cron_jobs (
    id          text PRIMARY KEY,
    seq         bigint GENERATED ALWAYS AS IDENTITY,
    workspace   text NOT NULL,
    name        text NOT NULL,
    kind        text NOT NULL,
    schedule    text NOT NULL,
    prompt      text NOT NULL DEFAULT '',
    command     text NOT NULL DEFAULT '',
    skills      text[] NOT NULL DEFAULT '{}',
    args        text[] NOT NULL DEFAULT '{}',
    enabled     boolean NOT NULL,
    created     timestamptz NOT NULL,
    next_run    timestamptz NOT NULL,
    last_run    timestamptz,
    last_status text NOT NULL DEFAULT '',
    UNIQUE (workspace, name)
);

CREATE INDEX cron_jobs_due ON clawseed.cron_jobs (next_run) WHERE enabled;

CREATE TABLE clawseed.cron_runs (
    job_id  text NOT NULL REFERENCES clawseed.cron_jobs (id) ON DELETE CASCADE,
    seq     bigint GENERATED ALWAYS AS IDENTITY,
    trigger text NOT NULL,
    due     timestamptz,
    started timestamptz NOT NULL,
    ended   timestamptz,
    status  text,
    session text NOT NULL DEFAULT '',
    output  text NOT NULL DEFAULT '',
    PRIMARY KEY (job_id, seq),
    UNIQUE (job_id, due)
);
