-- The audit log: every change the support team makes (from the portal's console or the admin
-- commands), who made it and to what. Rows are only ever added.
CREATE TABLE audit_log (
    id         INTEGER PRIMARY KEY,
    created_at TEXT    NOT NULL,
    actor_kind TEXT    NOT NULL,              -- portal, cli or system
    actor      TEXT    NOT NULL,              -- the portal user's username, or cli or system
    action     TEXT    NOT NULL,              -- e.g. entity.create, connection.state
    subject    TEXT    NOT NULL DEFAULT '',   -- what it was done to: a tax ID, a client_id, a username, …
    detail     TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_action ON audit_log (action, id);
CREATE INDEX audit_log_actor ON audit_log (actor, id);
