-- E-mails of documents: one row per recipient address and sending, which is both the record the API
-- shows in emails[] and the queue the mail job works through.
CREATE TABLE emails (
    id              INTEGER PRIMARY KEY,
    document_id     INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    entity_id       INTEGER NOT NULL REFERENCES entities(id),
    address         TEXT    NOT NULL,
    lang            TEXT    NOT NULL,
    message_id      TEXT    NOT NULL UNIQUE,
    open_token_hash BLOB    NOT NULL UNIQUE,   -- SHA-256 of the open-tracking token
    state           TEXT    NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'failed', 'returned')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,                      -- when queued or returned: the next sending
    last_error      TEXT,
    sent_at         TEXT,
    opened_at       TEXT,
    returned_at     TEXT,
    created_at      TEXT    NOT NULL,
    updated_at      TEXT    NOT NULL
);
CREATE INDEX emails_document ON emails (document_id, id);
CREATE INDEX emails_due ON emails (next_attempt_at, id) WHERE state IN ('queued', 'returned');
CREATE INDEX emails_state ON emails (state, id);

-- An entity's own sender: display name, From and Reply-To addresses (empty: the installation's), and
-- whether its customers get the XML beside the PDF.
ALTER TABLE entities ADD COLUMN mail_from_name TEXT NOT NULL DEFAULT '';
ALTER TABLE entities ADD COLUMN mail_from_address TEXT NOT NULL DEFAULT '';
ALTER TABLE entities ADD COLUMN mail_reply_to TEXT NOT NULL DEFAULT '';
ALTER TABLE entities ADD COLUMN mail_attach_xml INTEGER NOT NULL DEFAULT 0;
