-- AS2 (RFC 4130): this installation's AS2 identity, its partners, and the ledger of messages exchanged
-- with them (duplicate detection for inbound messages, the MIC an outbound message's MDN must report).
CREATE TABLE as2_identity (
    id          INTEGER PRIMARY KEY CHECK (id = 1), -- one identity per installation
    as2_id      TEXT    NOT NULL,
    key_enc     BLOB    NOT NULL, -- PKCS#8, encrypted with the installation key
    certificate BLOB    NOT NULL, -- DER
    created_at  TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
);

CREATE TABLE as2_partners (
    id                   INTEGER PRIMARY KEY,
    name                 TEXT    NOT NULL UNIQUE,
    as2_id               TEXT    NOT NULL UNIQUE,
    url                  TEXT    NOT NULL,
    certificate          TEXT    NOT NULL, -- PEM
    sign_algorithm       TEXT    NOT NULL CHECK (sign_algorithm IN ('sha256', 'sha1')),
    encryption_algorithm TEXT    NOT NULL CHECK (encryption_algorithm IN ('aes128', 'aes256', '3des', 'none')),
    compress             INTEGER NOT NULL DEFAULT 0,
    mdn_mode             TEXT    NOT NULL CHECK (mdn_mode IN ('sync', 'async')),
    created_at           TEXT    NOT NULL,
    updated_at           TEXT    NOT NULL
);

CREATE TABLE as2_messages (
    partner_id INTEGER NOT NULL REFERENCES as2_partners(id) ON DELETE CASCADE,
    direction  TEXT    NOT NULL CHECK (direction IN ('in', 'out')),
    message_id TEXT    NOT NULL,
    mic        TEXT    NOT NULL, -- Received-Content-MIC: "base64, algorithm"
    created_at TEXT    NOT NULL,
    PRIMARY KEY (partner_id, direction, message_id)
) WITHOUT ROWID;
