-- An entity may sign its issued documents through the service (with its seal): it is then charged
-- transactions for the attachments it sends.
ALTER TABLE entities ADD COLUMN service_signing INTEGER NOT NULL DEFAULT 0;

-- Documents issued by an entity of this installation. The recipient is set when it is an entity here.
-- The natural key is (issuer, number, type, emission date): repeating it edits the document.
CREATE TABLE documents (
    id               INTEGER PRIMARY KEY,
    issuer_id        INTEGER NOT NULL REFERENCES entities(id),
    recipient_id     INTEGER REFERENCES entities(id),
    kind             TEXT    NOT NULL CHECK (kind IN ('invoice', 'credit_note', 'order')),
    type_code        TEXT    NOT NULL,
    number           TEXT    NOT NULL,
    emission_date    TEXT    NOT NULL,
    currency         TEXT    NOT NULL,
    supplier_country TEXT    NOT NULL,
    supplier_nif     TEXT    NOT NULL,
    supplier_name    TEXT    NOT NULL,
    customer_country TEXT    NOT NULL,
    customer_nif     TEXT    NOT NULL,
    customer_name    TEXT    NOT NULL,
    payable_amount   TEXT    NOT NULL,
    state            TEXT    NOT NULL CHECK (state IN ('tosend', 'sent', 'accepted', 'rejected')),
    edi_state        TEXT    NOT NULL,
    to_send_status   TEXT,
    method           TEXT    NOT NULL CHECK (method IN ('ubl', 'data')),
    send_by_email    INTEGER NOT NULL DEFAULT 0,
    email_addresses  TEXT    NOT NULL DEFAULT '[]',
    disable_xml_sign INTEGER NOT NULL DEFAULT 0,
    disable_pdf_sign INTEGER NOT NULL DEFAULT 0,
    edits            INTEGER NOT NULL DEFAULT 0,
    imported_at      TEXT,
    created_at       TEXT    NOT NULL,
    updated_at       TEXT    NOT NULL,
    UNIQUE (issuer_id, number, type_code, emission_date)
);
CREATE INDEX documents_recipient ON documents (recipient_id, state);

-- The full model of a document (JSON), kept apart so that the documents table stays small to scan.
CREATE TABLE document_data (
    document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    data        TEXT NOT NULL
);

-- The files of a document: its XML, its visual PDF and further attachments.
CREATE TABLE document_files (
    id          INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    role        TEXT    NOT NULL CHECK (role IN ('xml', 'pdf', 'attachment')),
    name        TEXT    NOT NULL,
    mime        TEXT    NOT NULL,
    size        INTEGER NOT NULL,
    sha256      BLOB    NOT NULL,
    content     BLOB    NOT NULL,
    created_at  TEXT    NOT NULL
);
CREATE INDEX document_files_document ON document_files (document_id, role);

-- What happened to a document, in order.
CREATE TABLE document_history (
    id          INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    kind        TEXT    NOT NULL CHECK (kind IN ('state', 'email', 'edit', 'process_state', 'import', 'edi')),
    state       TEXT,
    description TEXT    NOT NULL,
    data        TEXT,
    created_at  TEXT    NOT NULL
);
CREATE INDEX document_history_document ON document_history (document_id, id);

-- State changes reported to the issuer by GET /apps/states-report/documents until marked read.
CREATE TABLE state_events (
    id             INTEGER PRIMARY KEY,
    entity_id      INTEGER NOT NULL REFERENCES entities(id),
    document_id    INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    state          TEXT    NOT NULL,
    previous_state TEXT,
    edi_state      TEXT    NOT NULL,
    read_at        TEXT,
    created_at     TEXT    NOT NULL
);
CREATE INDEX state_events_unread ON state_events (entity_id, read_at, id);

-- Work to do after a commit (e-mails, webhooks, deliveries), claimed by the background jobs.
CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY,
    kind            TEXT    NOT NULL,
    entity_id       INTEGER REFERENCES entities(id),
    document_id     INTEGER REFERENCES documents(id) ON DELETE CASCADE,
    payload         TEXT    NOT NULL,
    state           TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT    NOT NULL,
    last_error      TEXT,
    created_at      TEXT    NOT NULL,
    updated_at      TEXT    NOT NULL
);
CREATE INDEX outbox_due ON outbox (state, next_attempt_at);

-- Movements of entities' transaction balances (negative when spent).
CREATE TABLE transactions (
    id          INTEGER PRIMARY KEY,
    entity_id   INTEGER NOT NULL REFERENCES entities(id),
    document_id INTEGER REFERENCES documents(id) ON DELETE SET NULL,
    amount      INTEGER NOT NULL,
    reason      TEXT    NOT NULL,
    created_at  TEXT    NOT NULL
);
CREATE INDEX transactions_entity ON transactions (entity_id, id);

-- Fields a recipient entity requires on the documents it receives, configured by the support team.
CREATE TABLE recipient_rules (
    entity_id  INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    rule       TEXT    NOT NULL,
    created_at TEXT    NOT NULL,
    PRIMARY KEY (entity_id, rule)
);
