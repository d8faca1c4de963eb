-- Revoked public file links: every link a party of a document was given before revoked_before (unix
-- nanoseconds) stops working. Links carry the time they were made, so that making one reads nothing.
CREATE TABLE file_link_revocations (
    document_id    INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    entity_id      INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    revoked_before INTEGER NOT NULL,
    PRIMARY KEY (document_id, entity_id)
) WITHOUT ROWID;
