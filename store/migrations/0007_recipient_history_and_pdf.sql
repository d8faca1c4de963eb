-- A document has one visual PDF: the one rendered on first request is stored once, whoever asks first,
-- so that the download, the e-mail and the webhook link carry the same bytes. Copies stored twice by
-- concurrent first requests go (the first one is the one that was served).
DELETE FROM document_files WHERE role = 'pdf'
    AND id NOT IN (SELECT min(id) FROM document_files WHERE role = 'pdf' GROUP BY document_id);
CREATE UNIQUE INDEX document_files_one_pdf ON document_files (document_id) WHERE role = 'pdf';
