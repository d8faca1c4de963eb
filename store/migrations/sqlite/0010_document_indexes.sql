-- Fewer indexes on documents: every index is one more page written with each new document. The
-- recipient's documents by emission date (the portal's received list and its date filters, the API
-- inbox's date filters) also carry the state and the supplier, so that the counts by state and the
-- supplier filters read this index instead of an index each.
DROP INDEX documents_recipient;
DROP INDEX documents_recipient_date;
DROP INDEX documents_recipient_supplier;
CREATE INDEX documents_received ON documents (recipient_id, emission_date, id, state, supplier_nif);
