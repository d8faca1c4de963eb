-- Revoked public file links: every link a party of a document was given before revoked_before (unix
-- nanoseconds) stops working. Links carry the time they were made, so that making one reads nothing.
CREATE TABLE file_link_revocations (
    document_id    INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    entity_id      INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    revoked_before INTEGER NOT NULL,
    PRIMARY KEY (document_id, entity_id)
) WITHOUT ROWID;

-- The issued list's total, kept like the inbox's (0003), so that listing an issuer's documents never
-- counts them.
ALTER TABLE entity_counts ADD COLUMN issued INTEGER NOT NULL DEFAULT 0;
INSERT INTO entity_counts (entity_id, issued) SELECT issuer_id, count(*) FROM documents WHERE true GROUP BY issuer_id
    ON CONFLICT (entity_id) DO UPDATE SET issued = excluded.issued;

CREATE TRIGGER documents_count_issued_insert AFTER INSERT ON documents
BEGIN
    INSERT INTO entity_counts (entity_id, issued) VALUES (NEW.issuer_id, 1)
        ON CONFLICT (entity_id) DO UPDATE SET issued = issued + 1;
END;

CREATE TRIGGER documents_count_issued_delete AFTER DELETE ON documents
BEGIN
    UPDATE entity_counts SET issued = issued - 1 WHERE entity_id = OLD.issuer_id;
END;
