-- Leases on the delivery queues (webhook and mail rows of the outbox, document e-mails), as the EDI
-- deliveries have: a delivery job claims due rows until lease_until, so that another process running
-- the same job skips them; the outcome ends the lease, and a crash leaves them due again when it ends.
ALTER TABLE outbox ADD COLUMN lease_until TEXT;
ALTER TABLE emails ADD COLUMN lease_until TEXT;
