-- The server's event log: each session's events with their sequence
-- numbers (1, 2, ... never reused), for GET /v1/sessions/{id}/events?after=N.
-- data is json, not jsonb: a replayed event is the bytes the live stream
-- sent, in its field order. event_seqs hands out the numbers: its row is
-- the per-session lock that makes them gap-free and unique.
CREATE TABLE clawseed.event_seqs (
    session_id text PRIMARY KEY,
    last       bigint NOT NULL
);

CREATE TABLE clawseed.events (
    session_id text NOT NULL,
    seq        bigint NOT NULL,
    data       json NOT NULL,
    created    timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (session_id, seq)
);
