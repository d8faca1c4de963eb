-- Counters of events by key in fixed windows: requests per credential, failed authentications per
-- address and per client id, failed sign-ins, AS2 requests per address. On PostgreSQL the processes of
-- an installation share them; on SQLite (one process) they stay in memory and this table stays empty.
-- Times are Unix milliseconds. A key past its limit is blocked until blocked_until.
-- Unlogged: counting a request writes no WAL and waits for no flush; after a crash of the database
-- the table starts empty, which only forgets the counts of the current minute.
CREATE UNLOGGED TABLE counters (
    key           TEXT    PRIMARY KEY, -- what is counted and whose: "rate:42", "auth-address:192.0.2.1"
    window_start  BIGINT  NOT NULL,
    window_ms     BIGINT  NOT NULL,
    events        INTEGER NOT NULL,
    blocked_until BIGINT  NOT NULL
);
