-- An entity's seal: the key that signs its documents (PKCS#8, encrypted with the installation key)
-- and its certificate chain (DER, leaf first). Importing a seal makes the service sign for the entity.
CREATE TABLE seals (
    entity_id  INTEGER PRIMARY KEY REFERENCES entities(id) ON DELETE CASCADE,
    subject    TEXT    NOT NULL,
    issuer     TEXT    NOT NULL,
    serial     TEXT    NOT NULL,
    not_before TEXT    NOT NULL,
    not_after  TEXT    NOT NULL,
    key_enc    BLOB    NOT NULL,
    chain      BLOB    NOT NULL,
    created_at TEXT    NOT NULL
);
