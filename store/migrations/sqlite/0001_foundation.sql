-- Entities: the companies this installation issues and receives documents for.
CREATE TABLE entities (
    id                     INTEGER PRIMARY KEY,
    name                   TEXT    NOT NULL,
    country                TEXT    NOT NULL,
    nif                    TEXT    NOT NULL,
    public_key             TEXT    NOT NULL UNIQUE,
    pays_received          INTEGER NOT NULL DEFAULT 0,
    transactions           INTEGER NOT NULL DEFAULT 0,
    process_states_enabled INTEGER NOT NULL DEFAULT 0,
    signs_itself           INTEGER NOT NULL DEFAULT 0,
    test_entity            INTEGER NOT NULL DEFAULT 0,
    created_at             TEXT    NOT NULL,
    updated_at             TEXT    NOT NULL,
    UNIQUE (country, nif)
);

-- Platform credentials: OAuth clients (client_id + encrypted secret) and legacy platform tokens (hash only).
CREATE TABLE credentials (
    id          INTEGER PRIMARY KEY,
    kind        TEXT    NOT NULL CHECK (kind IN ('client', 'platform')),
    name        TEXT    NOT NULL,
    client_id   TEXT UNIQUE,
    secret_enc  BLOB,
    token_hash  BLOB UNIQUE,
    scopes      TEXT    NOT NULL,
    disabled    INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT    NOT NULL,
    CHECK ((kind = 'client' AND client_id IS NOT NULL AND secret_enc IS NOT NULL)
        OR (kind = 'platform' AND token_hash IS NOT NULL))
);

-- Which credential may act for which entity; a legacy token also needs its handshake.
CREATE TABLE authorizations (
    credential_id INTEGER NOT NULL REFERENCES credentials(id) ON DELETE CASCADE,
    entity_id     INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    handshake_at  TEXT,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (credential_id, entity_id)
);

-- Access tokens issued by POST /oauth2/token, stored only as hashes.
CREATE TABLE access_tokens (
    id            INTEGER PRIMARY KEY,
    token_hash    BLOB    NOT NULL UNIQUE,
    credential_id INTEGER NOT NULL REFERENCES credentials(id) ON DELETE CASCADE,
    scopes        TEXT    NOT NULL,
    expires_at    INTEGER NOT NULL,
    revoked       INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT    NOT NULL
);
CREATE INDEX access_tokens_expiry ON access_tokens (expires_at);

-- Nonces seen in token requests, kept for the timestamp window so that none is accepted twice.
CREATE TABLE seen_nonces (
    credential_id INTEGER NOT NULL REFERENCES credentials(id) ON DELETE CASCADE,
    nonce         TEXT    NOT NULL,
    seen_at       INTEGER NOT NULL,
    PRIMARY KEY (credential_id, nonce)
);
CREATE INDEX seen_nonces_age ON seen_nonces (seen_at);

-- Connections between two entities (from asks, to receives); routing needs an approved one.
CREATE TABLE connections (
    id                INTEGER PRIMARY KEY,
    reference         TEXT    NOT NULL UNIQUE,
    from_entity_id    INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    to_entity_id      INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    state             TEXT    NOT NULL CHECK (state IN ('analyzing', 'approved', 'declined', 'pending')),
    kind              TEXT    NOT NULL DEFAULT 'standard',
    person            TEXT    NOT NULL DEFAULT '',
    partner           TEXT    NOT NULL DEFAULT '',
    observation       TEXT    NOT NULL DEFAULT '',
    reason            TEXT,
    reason_at         TEXT,
    admin_observation TEXT,
    admin_observation_at TEXT,
    created_at        TEXT    NOT NULL,
    updated_at        TEXT    NOT NULL,
    UNIQUE (from_entity_id, to_entity_id),
    CHECK (from_entity_id <> to_entity_id)
);
CREATE INDEX connections_to ON connections (to_entity_id);

-- Installation-wide settings kept with the data (for example the demo set-up marker).
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
