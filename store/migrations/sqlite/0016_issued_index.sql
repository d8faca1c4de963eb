-- The issuer's documents by emission date also carry the state and the customer, as the recipient's
-- do (documents_received): the portal's state filters, the to-send list and the counts by state read
-- this index alone instead of every document row, at no extra page per new document.
DROP INDEX documents_issuer_date;
CREATE INDEX documents_issued ON documents (issuer_id, emission_date, id, state, customer_nif);
