-- The lists' indexes also carry the counterparty's name, so that a search by part of a name (the
-- portal's q=) and its count read the index alone instead of every document row.
DROP INDEX documents_issued;
CREATE INDEX documents_issued ON documents (issuer_id, emission_date, id, state, customer_nif, customer_name);
DROP INDEX documents_received;
CREATE INDEX documents_received ON documents (recipient_id, emission_date, id, state, supplier_nif, supplier_name);
