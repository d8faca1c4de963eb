-- Each history entry belongs to the recipient the document had when the entry was written (none when
-- the recipient is not an entity here). A recipient reads only its own entries, so that what an earlier
-- recipient did (its import, its rejection and the reason, its process states) never shows to the next
-- one when an edit sends the document to another customer. Entries written before this know no better
-- than the document's recipient now.
ALTER TABLE document_history ADD COLUMN recipient_id INTEGER REFERENCES entities(id);
UPDATE document_history SET recipient_id = (SELECT recipient_id FROM documents WHERE documents.id = document_history.document_id);

CREATE TRIGGER document_history_recipient AFTER INSERT ON document_history WHEN NEW.recipient_id IS NULL
BEGIN
    UPDATE document_history SET recipient_id = (SELECT recipient_id FROM documents WHERE id = NEW.document_id)
        WHERE id = NEW.id;
END;

-- A document has one visual PDF: the one rendered on first request is stored once, whoever asks first,
-- so that the download, the e-mail and the webhook link carry the same bytes. Copies stored twice by
-- concurrent first requests go (the first one is the one that was served).
DELETE FROM document_files WHERE role = 'pdf'
    AND id NOT IN (SELECT min(id) FROM document_files WHERE role = 'pdf' GROUP BY document_id);
CREATE UNIQUE INDEX document_files_one_pdf ON document_files (document_id) WHERE role = 'pdf';
