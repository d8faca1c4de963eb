-- EDI: connections that reach a tax ID outside this installation, the delivery queue of documents and
-- status messages to EDI partners and upstream brokers, what partners sent (so that a repeated message
-- is dropped) and the upstream brokers.

-- A connection joins an entity here with another entity here or with an external tax ID (its side's
-- entity id is then NULL and its country, tax ID and name are kept here). An external side is reached
-- through an AS2 partner (partner) or an upstream broker (upstream). The operator is the EDI operator
-- that asked for it through the API, told by e-mail of every change.
CREATE TABLE connections_edi (
    id                   INTEGER PRIMARY KEY,
    reference            TEXT    NOT NULL UNIQUE,
    from_entity_id       INTEGER REFERENCES entities(id) ON DELETE CASCADE,
    from_country         TEXT    NOT NULL DEFAULT '',
    from_nif             TEXT    NOT NULL DEFAULT '',
    from_name            TEXT    NOT NULL DEFAULT '',
    to_entity_id         INTEGER REFERENCES entities(id) ON DELETE CASCADE,
    to_country           TEXT    NOT NULL DEFAULT '',
    to_nif               TEXT    NOT NULL DEFAULT '',
    to_name              TEXT    NOT NULL DEFAULT '',
    state                TEXT    NOT NULL CHECK (state IN ('analyzing', 'approved', 'declined', 'pending')),
    kind                 TEXT    NOT NULL DEFAULT 'standard',
    person               TEXT    NOT NULL DEFAULT '',
    partner              TEXT    NOT NULL DEFAULT '',
    upstream             TEXT    NOT NULL DEFAULT '',
    operator_entity_id   INTEGER REFERENCES entities(id) ON DELETE SET NULL,
    operator_email       TEXT    NOT NULL DEFAULT '',
    observation          TEXT    NOT NULL DEFAULT '',
    reason               TEXT,
    reason_at            TEXT,
    admin_observation    TEXT,
    admin_observation_at TEXT,
    created_at           TEXT    NOT NULL,
    updated_at           TEXT    NOT NULL,
    CHECK (from_entity_id IS NOT NULL OR to_entity_id IS NOT NULL),
    CHECK (from_entity_id IS NOT NULL OR from_nif <> ''),
    CHECK (to_entity_id IS NOT NULL OR to_nif <> ''),
    CHECK (from_entity_id IS NULL OR to_entity_id IS NULL OR from_entity_id <> to_entity_id)
);
INSERT INTO connections_edi (id, reference, from_entity_id, to_entity_id, state, kind, person, partner, observation,
    reason, reason_at, admin_observation, admin_observation_at, created_at, updated_at)
SELECT id, reference, from_entity_id, to_entity_id, state, kind, person, partner, observation,
    reason, reason_at, admin_observation, admin_observation_at, created_at, updated_at FROM connections;
DROP TABLE connections;
ALTER TABLE connections_edi RENAME TO connections;
CREATE UNIQUE INDEX connections_pair ON connections (ifnull(from_entity_id, 0), from_country, from_nif,
    ifnull(to_entity_id, 0), to_country, to_nif);
CREATE INDEX connections_to ON connections (to_entity_id);
CREATE INDEX connections_to_external ON connections (to_nif, to_country) WHERE to_entity_id IS NULL;
CREATE INDEX connections_from_external ON connections (from_nif, from_country) WHERE from_entity_id IS NULL;

-- The delivery queue: one row per document version or status message for one partner, written in the
-- transaction that made it. The job claims due rows with a lease; a row whose lease ran out (a crash
-- mid-delivery) is due again. The message id never changes, so a receiver can drop a repeat.
CREATE TABLE edi_deliveries (
    id          INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    version     INTEGER NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('document', 'status')),
    connector   TEXT    NOT NULL,           -- the connector kind: as2, upstream
    partner     TEXT    NOT NULL,           -- the partner's or upstream's name
    from_nif    TEXT    NOT NULL,
    to_nif      TEXT    NOT NULL,
    message_id  TEXT    NOT NULL UNIQUE,
    payload     BLOB,                       -- a status message's XML; a document's is its XML file
    state       TEXT    NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'awaiting', 'done', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_at     TEXT    NOT NULL,
    lease_until TEXT,
    remote_id   TEXT    NOT NULL DEFAULT '', -- the partner's id for it (an upstream's document id)
    remote_state TEXT   NOT NULL DEFAULT '', -- the last state read from an upstream
    last_error  TEXT,
    created_at  TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
);
CREATE INDEX edi_deliveries_due ON edi_deliveries (next_at, id) WHERE state = 'queued';
CREATE INDEX edi_deliveries_document ON edi_deliveries (document_id, id);
CREATE INDEX edi_deliveries_remote ON edi_deliveries (connector, partner, remote_id) WHERE remote_id <> '';

-- Every message a partner sent, once: a repeated (partner, message id) is dropped. A received document
-- keeps where it came from, so that its recipient's decision goes back the same way.
CREATE TABLE edi_received (
    partner     TEXT    NOT NULL,
    message_id  TEXT    NOT NULL,
    connector   TEXT    NOT NULL DEFAULT '',
    kind        TEXT    NOT NULL CHECK (kind IN ('document', 'status')),
    document_id INTEGER REFERENCES documents(id) ON DELETE SET NULL,
    received_at TEXT    NOT NULL,
    PRIMARY KEY (partner, message_id)
);
CREATE INDEX edi_received_document ON edi_received (document_id) WHERE kind = 'document';

-- Upstream brokers: services offering this same API that an entity here forwards its documents to,
-- with the platform credentials (the secret encrypted) and the entity's public key there.
CREATE TABLE upstreams (
    id             INTEGER PRIMARY KEY,
    name           TEXT    NOT NULL UNIQUE,
    base_url       TEXT    NOT NULL,
    client_id      TEXT    NOT NULL,
    secret_enc     BLOB    NOT NULL,
    public_key_enc BLOB    NOT NULL,
    created_at     TEXT    NOT NULL
);

-- Entities that exist here only as the issuers of documents received from EDI partners.
CREATE TABLE external_issuers (
    entity_id INTEGER PRIMARY KEY REFERENCES entities(id) ON DELETE CASCADE,
    partner   TEXT    NOT NULL
);
