-- The process state a recipient set on a received document (the feature is per entity).
ALTER TABLE documents ADD COLUMN process_state TEXT;
ALTER TABLE documents ADD COLUMN process_state_at TEXT;

-- The recipient's list of received documents: not imported, not rejected, newest first.
CREATE INDEX documents_inbox ON documents (recipient_id, imported_at, id) WHERE state IN ('sent', 'accepted');

-- Process states an entity can set on the documents it receives, configured by the support team.
CREATE TABLE process_states (
    id          INTEGER PRIMARY KEY,
    entity_id   INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    code        TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    description TEXT    NOT NULL DEFAULT '',
    created_at  TEXT    NOT NULL,
    UNIQUE (entity_id, code)
);

-- Webhooks of an entity: where document events are posted, with the key that authenticates and signs
-- them (encrypted at rest: it is needed in clear to sign).
CREATE TABLE webhooks (
    id         INTEGER PRIMARY KEY,
    entity_id  INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    url        TEXT    NOT NULL,
    key_enc    BLOB    NOT NULL,
    events     TEXT    NOT NULL,
    created_at TEXT    NOT NULL
);
CREATE INDEX webhooks_entity ON webhooks (entity_id);

-- Every delivery attempt of a webhook event.
CREATE TABLE webhook_attempts (
    id          INTEGER PRIMARY KEY,
    outbox_id   INTEGER NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
    webhook_id  INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    attempt     INTEGER NOT NULL,
    status_code INTEGER NOT NULL,
    latency_ms  INTEGER NOT NULL,
    error       TEXT,
    created_at  TEXT    NOT NULL
);
CREATE INDEX webhook_attempts_webhook ON webhook_attempts (webhook_id, id);

CREATE INDEX outbox_kind_due ON outbox (kind, state, next_attempt_at, id);

-- Whether the document has a visual PDF (lists show its download link without reading the files).
ALTER TABLE documents ADD COLUMN has_pdf INTEGER NOT NULL DEFAULT 0;
