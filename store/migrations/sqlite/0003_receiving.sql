-- The process state a recipient set on a received document (the feature is per entity).
ALTER TABLE documents ADD COLUMN process_state TEXT;
ALTER TABLE documents ADD COLUMN process_state_at TEXT;

-- The recipient's list of received documents: not imported, not rejected, newest first.
CREATE INDEX documents_inbox ON documents (recipient_id, imported_at, id) WHERE state IN ('sent', 'accepted');
-- The inbox filters.
CREATE INDEX documents_recipient_number ON documents (recipient_id, number);
CREATE INDEX documents_recipient_supplier ON documents (recipient_id, supplier_nif);
CREATE INDEX documents_recipient_date ON documents (recipient_id, emission_date);
-- The states report's document filter.
CREATE INDEX state_events_document ON state_events (document_id);

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

-- Counts the unfiltered lists show as their total, kept by triggers in the transactions that change
-- them, so that a list of a large inbox never counts its rows.
CREATE TABLE entity_counts (
    entity_id     INTEGER PRIMARY KEY REFERENCES entities(id) ON DELETE CASCADE,
    inbox         INTEGER NOT NULL DEFAULT 0, -- received, delivered, not imported, not rejected
    unread_events INTEGER NOT NULL DEFAULT 0  -- states-report events not marked read
);

CREATE TRIGGER documents_count_insert AFTER INSERT ON documents
WHEN NEW.recipient_id IS NOT NULL AND NEW.imported_at IS NULL AND NEW.state IN ('sent', 'accepted')
BEGIN
    INSERT INTO entity_counts (entity_id, inbox) VALUES (NEW.recipient_id, 1)
        ON CONFLICT (entity_id) DO UPDATE SET inbox = inbox + 1;
END;

CREATE TRIGGER documents_count_update AFTER UPDATE OF recipient_id, imported_at, state ON documents
BEGIN
    UPDATE entity_counts SET inbox = inbox - 1
        WHERE entity_id = OLD.recipient_id AND OLD.imported_at IS NULL AND OLD.state IN ('sent', 'accepted');
    INSERT INTO entity_counts (entity_id, inbox)
        SELECT NEW.recipient_id, 1 WHERE NEW.recipient_id IS NOT NULL AND NEW.imported_at IS NULL AND NEW.state IN ('sent', 'accepted')
        ON CONFLICT (entity_id) DO UPDATE SET inbox = inbox + 1;
END;

CREATE TRIGGER documents_count_delete AFTER DELETE ON documents
WHEN OLD.recipient_id IS NOT NULL AND OLD.imported_at IS NULL AND OLD.state IN ('sent', 'accepted')
BEGIN
    UPDATE entity_counts SET inbox = inbox - 1 WHERE entity_id = OLD.recipient_id;
END;

CREATE TRIGGER state_events_count_insert AFTER INSERT ON state_events WHEN NEW.read_at IS NULL
BEGIN
    INSERT INTO entity_counts (entity_id, unread_events) VALUES (NEW.entity_id, 1)
        ON CONFLICT (entity_id) DO UPDATE SET unread_events = unread_events + 1;
END;

CREATE TRIGGER state_events_count_read AFTER UPDATE OF read_at ON state_events
WHEN OLD.read_at IS NULL AND NEW.read_at IS NOT NULL
BEGIN
    UPDATE entity_counts SET unread_events = unread_events - 1 WHERE entity_id = NEW.entity_id;
END;

CREATE TRIGGER state_events_count_delete AFTER DELETE ON state_events WHEN OLD.read_at IS NULL
BEGIN
    UPDATE entity_counts SET unread_events = unread_events - 1 WHERE entity_id = OLD.entity_id;
END;
