-- An entity's company profile: the supplier's defaults for documents issued from structured data.
CREATE TABLE entity_profiles (
    entity_id         INTEGER PRIMARY KEY REFERENCES entities(id) ON DELETE CASCADE,
    street            TEXT NOT NULL DEFAULT '',
    additional_street TEXT NOT NULL DEFAULT '',
    building_number   TEXT NOT NULL DEFAULT '',
    postal_zone       TEXT NOT NULL DEFAULT '',
    city              TEXT NOT NULL DEFAULT '',
    region            TEXT NOT NULL DEFAULT '',
    country           TEXT NOT NULL DEFAULT '',
    share_capital     TEXT NOT NULL DEFAULT '',
    legal_form        TEXT NOT NULL DEFAULT '',
    email             TEXT NOT NULL DEFAULT '',
    telephone         TEXT NOT NULL DEFAULT '',
    iban              TEXT NOT NULL DEFAULT '',
    gln               TEXT NOT NULL DEFAULT '',
    updated_at        TEXT NOT NULL
);

-- Which events e-mail an entity's portal users, and who else gets a copy (addresses joined by commas).
CREATE TABLE entity_notifications (
    entity_id   INTEGER PRIMARY KEY REFERENCES entities(id) ON DELETE CASCADE,
    on_received INTEGER NOT NULL DEFAULT 0,
    on_rejected INTEGER NOT NULL DEFAULT 0,
    cc          TEXT    NOT NULL DEFAULT '',
    updated_at  TEXT    NOT NULL
);
