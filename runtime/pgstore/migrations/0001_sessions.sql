-- Sessions: the records of the JSONL session files, one row each, in the
-- order they were written (seq 1 is the header). record is json, not
-- jsonb: it keeps the bytes as written, so a session exported back to a
-- file is the same file.
CREATE TABLE clawseed.sessions (
    id        text PRIMARY KEY,
    workspace text NOT NULL,
    created   timestamptz NOT NULL,
    updated   timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX sessions_workspace_updated ON clawseed.sessions (workspace, updated DESC);

CREATE TABLE clawseed.records (
    session_id text NOT NULL REFERENCES clawseed.sessions (id) ON DELETE CASCADE,
    seq        bigint NOT NULL,
    record     json NOT NULL,
    PRIMARY KEY (session_id, seq)
);

-- The session summary (the files store's <id>.summary.md), replaced whole.
CREATE TABLE clawseed.summaries (
    session_id text PRIMARY KEY REFERENCES clawseed.sessions (id) ON DELETE CASCADE,
    body       text NOT NULL,
    updated    timestamptz NOT NULL DEFAULT clock_timestamp()
);
