package store

import (
	"context"
	"database/sql"
	"errors"
)

// EDI delivery states.
const (
	EDIQueued   = "queued"   // waiting for its next attempt (or claimed, under a lease)
	EDIAwaiting = "awaiting" // taken by the partner, its acknowledgement or remote state still to come
	EDIDone     = "done"
	EDIFailed   = "failed" // refused for good, or out of attempts
)

// EDIDelivery is one queued message for one EDI partner: a document version or a status message.
type EDIDelivery struct {
	ID          int64  `json:"id"`
	DocumentID  int64  `json:"document_id"`
	Version     int    `json:"version"`
	Kind        string `json:"kind"`      // document or status
	Connector   string `json:"connector"` // the connector kind that carries it
	Partner     string `json:"partner"`
	FromNIF     string `json:"from_nif"`
	ToNIF       string `json:"to_nif"`
	MessageID   string `json:"message_id"`
	Payload     []byte `json:"-"` // a status message's XML
	State       string `json:"state"`
	Attempts    int    `json:"attempts"`
	NextAt      string `json:"next_at"`
	RemoteID    string `json:"remote_id,omitempty"`
	RemoteState string `json:"remote_state,omitempty"`
	LastError   string `json:"last_error,omitempty"`
	CreatedAt   string `json:"created_at"`
}

const ediColumns = `id, document_id, version, kind, connector, partner, from_nif, to_nif, message_id,
	payload, state, attempts, next_at, remote_id, remote_state, coalesce(last_error, ''), created_at`

func scanEDI(row interface{ Scan(...any) error }) (EDIDelivery, error) {
	var d EDIDelivery
	err := row.Scan(&d.ID, &d.DocumentID, &d.Version, &d.Kind, &d.Connector, &d.Partner, &d.FromNIF, &d.ToNIF,
		&d.MessageID, &d.Payload, &d.State, &d.Attempts, &d.NextAt, &d.RemoteID, &d.RemoteState, &d.LastError, &d.CreatedAt)
	return d, mapError(err)
}

func scanEDIs(rows *sql.Rows, err error) ([]EDIDelivery, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []EDIDelivery
	for rows.Next() {
		d, err := scanEDI(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// QueueEDI adds a delivery, due now, in the transaction that made what it carries.
func (t *Tx) QueueEDI(d EDIDelivery) error {
	var payload any
	if len(d.Payload) > 0 {
		payload = d.Payload
	}
	_, err := t.exec(`INSERT INTO edi_deliveries (document_id, version, kind, connector, partner,
		from_nif, to_nif, message_id, payload, next_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.DocumentID, d.Version, d.Kind, d.Connector, d.Partner, d.FromNIF, d.ToNIF, d.MessageID, payload, t.now, t.now, t.now)
	return mapError(err)
}

// ClaimEDI takes up to limit due deliveries (queued, or awaiting an acknowledgement that is overdue and
// attempted at most retries times; their time come, no lease running) and leases them until
// leaseUntil: another run skips them, and a crash leaves them due again once the lease ends.
func (s *Store) ClaimEDI(ctx context.Context, now, leaseUntil string, limit, retries int) ([]EDIDelivery, error) {
	query, args := s.claimEDI(now, leaseUntil, limit, retries)
	return claim(ctx, s, scanEDIs, query, args...)
}

// claimEDI is ClaimEDI's statement and its arguments (a test runs it in a transaction it holds open).
func (s *Store) claimEDI(now, leaseUntil string, limit, retries int) (string, []any) {
	return `UPDATE edi_deliveries SET lease_until = ?, updated_at = ?
		WHERE id IN (SELECT id FROM edi_deliveries WHERE (state = 'queued' OR state = 'awaiting' AND attempts <= ?) AND next_at <= ?
			AND (lease_until IS NULL OR lease_until <= ?) ORDER BY next_at, id LIMIT ?` + s.d.skipLocked + `)
		RETURNING ` + ediColumns, []any{leaseUntil, now, retries, now, now, limit}
}

// EDIOutcome is what one attempt at a delivery came to.
type EDIOutcome struct {
	State    string // the delivery's new state
	NextAt   string // when queued: the next attempt
	Error    string
	RemoteID string // kept when empty
}

// RecordEDIAttempt writes an attempt's outcome and ends the delivery's lease. A delivery acknowledged
// while the attempt was under way stays done.
func (t *Tx) RecordEDIAttempt(id int64, o EDIOutcome) error {
	next := o.NextAt
	if next == "" {
		next = t.now
	}
	_, err := t.exec(`UPDATE edi_deliveries SET state = ?, next_at = ?, last_error = ?, lease_until = NULL,
		attempts = attempts + 1, remote_id = CASE WHEN ? = '' THEN remote_id ELSE ? END, updated_at = ? WHERE id = ? AND state != 'done'`,
		o.State, next, nullText(o.Error), o.RemoteID, o.RemoteID, t.now, id)
	return err
}

// RescheduleEDI puts a delivery whose attempt was answered negatively back in the queue (or fails it,
// when nextAt is empty), without counting another attempt.
func (t *Tx) RescheduleEDI(id int64, state, nextAt, detail string) error {
	if nextAt == "" {
		nextAt = t.now
	}
	_, err := t.exec(`UPDATE edi_deliveries SET state = ?, next_at = ?, last_error = ?, lease_until = NULL,
		updated_at = ? WHERE id = ?`, state, nextAt, nullText(detail), t.now, id)
	return err
}

// SetEDIState moves a delivery that was already attempted (an acknowledgement came, a remote state was
// read); remoteState is kept when empty.
func (t *Tx) SetEDIState(id int64, state, remoteState, detail string) error {
	_, err := t.exec(`UPDATE edi_deliveries SET state = ?, remote_state = CASE WHEN ? = '' THEN remote_state ELSE ? END,
		last_error = coalesce(?, last_error), updated_at = ? WHERE id = ?`, state, remoteState, remoteState, nullText(detail), t.now, id)
	return err
}

// EDIDeliveryByMessageID finds a delivery by its message id, locked until the transaction ends.
func (t *Tx) EDIDeliveryByMessageID(messageID string) (EDIDelivery, error) {
	return scanEDI(t.queryRow(`SELECT `+ediColumns+` FROM edi_deliveries WHERE message_id = ?`+t.d.forUpdate, messageID))
}

// EDIFilter selects deliveries: of one document, in one state (zero values: any), newest first.
type EDIFilter struct {
	DocumentID int64
	State      string
	Limit      int
}

// EDIDeliveries lists the filter's deliveries, newest first.
func (s *Store) EDIDeliveries(ctx context.Context, f EDIFilter) ([]EDIDelivery, error) {
	return scanEDIs(s.reader.QueryContext(ctx, `SELECT `+ediColumns+` FROM edi_deliveries
		WHERE (? = 0 OR document_id = ?) AND (? = '' OR state = ?) ORDER BY id DESC LIMIT ?`,
		f.DocumentID, f.DocumentID, f.State, f.State, f.Limit))
}

// ReceiveEDI records a message a partner sent; false when the partner sent this message id before.
func (t *Tx) ReceiveEDI(partner, messageID, kind string) (bool, error) {
	res, err := t.exec(`INSERT INTO edi_received (partner, message_id, kind, received_at)
		VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, partner, messageID, kind, t.now)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SetEDIReceivedDocument ties a received message to the document it became or is about, and to the
// connector kind it came through (kept when empty).
func (t *Tx) SetEDIReceivedDocument(partner, messageID string, documentID int64, connector string) error {
	_, err := t.exec(`UPDATE edi_received SET document_id = ?, connector = CASE WHEN ? = '' THEN connector ELSE ? END
		WHERE partner = ? AND message_id = ?`, documentID, connector, connector, partner, messageID)
	return err
}

// EDIOrigin is where a received document came from.
type EDIOrigin struct {
	Partner, Connector, MessageID string
}

// EDIOriginOf tells where a document received from an EDI partner came from (its latest version);
// ErrNotFound for any other document.
func (t *Tx) EDIOriginOf(documentID int64) (EDIOrigin, error) {
	var o EDIOrigin
	err := t.queryRow(`SELECT partner, connector, message_id FROM edi_received
		WHERE document_id = ? AND kind = 'document' ORDER BY received_at DESC, `+t.d.insertOrder+` DESC LIMIT 1`, documentID).
		Scan(&o.Partner, &o.Connector, &o.MessageID)
	return o, mapError(err)
}

// ExternalConnection finds the connection between an entity here and an external tax ID, whichever
// side asked.
func (t *Tx) ExternalConnection(entityID int64, country, nif string) (Connection, error) {
	return scanConnection(t.ids, t.queryRow(connectionSelect+`
		WHERE (c.from_entity_id = ? AND c.to_entity_id IS NULL AND c.to_country = ? AND c.to_nif = ?)
		   OR (c.to_entity_id = ? AND c.from_entity_id IS NULL AND c.from_country = ? AND c.from_nif = ?)
		ORDER BY c.state = 'approved' DESC, c.id LIMIT 1`, entityID, country, nif, entityID, country, nif))
}

// IsExternalIssuer tells whether an entity exists here only as the issuer of documents received
// from EDI partners.
func (t *Tx) IsExternalIssuer(entityID int64) (bool, error) {
	if read, ok := t.entities[entityID]; ok {
		return read.external, nil
	}
	return isExternalIssuer(t.ctx, t.tx, entityID)
}

// ExternalIssuer is the entity standing for an external issuer of received documents: the entity
// with its tax ID, made (with a public key no one is given) when there is none.
func (t *Tx) ExternalIssuer(country, nif, name, partner string, test bool) (Entity, error) {
	e, err := t.EntityByNIF(country, nif)
	if !errors.Is(err, ErrNotFound) {
		return e, err
	}
	e, err = scanEntity(t.queryRow(`INSERT INTO entities (name, country, nif, public_key, test_entity,
		created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (country, nif) DO NOTHING RETURNING `+entityColumns,
		name, country, nif, RandomToken(20), test, t.now, t.now))
	if errors.Is(err, ErrNotFound) {
		return e, errRaced // a concurrent transaction made the entity since EntityByNIF looked
	} else if err != nil {
		return e, err
	}
	_, err = t.exec(`INSERT INTO external_issuers (entity_id, partner) VALUES (?, ?)`, e.ID, partner)
	delete(t.entities, e.ID) // what an earlier read learned of it is out of date
	return e, err
}

// EntityByID finds an entity by its id in the transaction.
func (t *Tx) EntityByID(id int64) (Entity, error) {
	return scanEntity(t.queryRow(`SELECT `+entityColumns+` FROM entities WHERE id = ?`, id))
}

// DocumentData reads the stored model of a document.
func (t *Tx) DocumentData(id int64) ([]byte, error) {
	var data string
	err := t.queryRow(`SELECT data FROM document_data WHERE document_id = ?`, id).Scan(&data)
	return []byte(data), mapError(err)
}

// EDIDocumentsByNumber finds the documents of a number delivered through a partner (from the tax ID
// fromNIF, with its country prefix, unless empty), newest first, locked until the transaction ends.
func (t *Tx) EDIDocumentsByNumber(partner, fromNIF, number string) ([]Document, error) {
	rows, err := t.query(`SELECT `+documentColumns+` FROM documents d WHERE d.number = ?
		AND EXISTS (SELECT 1 FROM edi_deliveries e WHERE e.document_id = d.id AND e.kind = 'document' AND e.partner = ?
			AND (? = '' OR e.from_nif = ?)) ORDER BY d.id DESC LIMIT 20`+t.d.forUpdate, number, partner, fromNIF, fromNIF)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Document
	for rows.Next() {
		d, err := scanDocument(t.ids, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// EDIDeliveryByRemoteID finds the document delivery a partner knows by its own id, locked until the
// transaction ends.
func (t *Tx) EDIDeliveryByRemoteID(connector, partner, remoteID string) (EDIDelivery, error) {
	return scanEDI(t.queryRow(`SELECT `+ediColumns+` FROM edi_deliveries
		WHERE connector = ? AND partner = ? AND remote_id = ? ORDER BY id DESC LIMIT 1`+t.d.forUpdate, connector, partner, remoteID))
}

// EDIPartners lists the partners of a connector kind that took deliveries they know by an id of their own.
func (s *Store) EDIPartners(ctx context.Context, connector string) ([]string, error) {
	return queryStrings(ctx, s.reader, `SELECT DISTINCT partner FROM edi_deliveries WHERE connector = ? AND remote_id <> ''
		ORDER BY partner`, connector)
}

// IsExternalIssuer tells whether an entity exists here only as the issuer of documents received from
// EDI partners.
func (s *Store) IsExternalIssuer(ctx context.Context, entityID int64) (bool, error) {
	return isExternalIssuer(ctx, s.reader, entityID)
}

func isExternalIssuer(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, entityID int64) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM external_issuers WHERE entity_id = ?`, entityID).Scan(&n)
	return n > 0, err
}
