package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Document states (state_document.alias in the API).
const (
	StateToSend   = "tosend"
	StateSent     = "sent"
	StateAccepted = "accepted"
	StateRejected = "rejected"
)

// Document is an issued document as stored: the columns the API filters and shows, and the full
// model as JSON in Data.
type Document struct {
	ID             int64
	PublicID       string // what the API shows as its id
	IssuerID       int64
	RecipientID    int64 // 0 when the recipient is not an entity of this installation
	Kind           string
	TypeCode       string
	Number         string
	EmissionDate   string
	Currency       string
	Supplier       PartyKey
	Customer       PartyKey
	PayableAmount  string
	State          string
	EDIState       string
	ToSendStatus   string // set when State is tosend
	Method         string // ubl or data
	SendByEmail    bool
	EmailAddresses []string
	DisableXMLSign bool
	DisablePDFSign bool
	Data           []byte
	Edits          int // its version: every edit adds one
	ImportedAt     string
	ProcessState   string // the recipient's process state code, if any
	ProcessStateAt string
	HasPDF         bool
	CreatedAt      string
	UpdatedAt      string
}

// PartyKey identifies a supplier or customer on a document.
type PartyKey struct {
	Country, NIF, Name string
}

// File is one file of a document.
type File struct {
	ID         int64
	PublicID   string
	DocumentID int64
	Role       string // xml, pdf, attachment
	Name       string
	MIME       string
	Size       int64
	SHA256     []byte
	Content    []byte // empty when listed without content
	CreatedAt  string
}

// File roles.
const (
	FileXML        = "xml"
	FilePDF        = "pdf"
	FileAttachment = "attachment"
)

// HistoryEntry is one thing that happened to a document.
type HistoryEntry struct {
	ID          int64
	PublicID    string
	DocumentID  int64
	Kind        string // state, email, edit, process_state, import, edi
	State       string // the document's state after it, when it changed the state
	Description string
	Data        json.RawMessage
	CreatedAt   string
}

// StateEvent is a state change reported to the issuer until it marks it read.
type StateEvent struct {
	ID               int64
	PublicID         string
	EntityID         int64
	DocumentID       int64
	DocumentPublicID string
	Number           string
	TypeCode         string
	State            string
	PreviousState    string
	EDIState         string
	CreatedAt        string
}

const documentColumns = `id, issuer_id, coalesce(recipient_id, 0), kind, type_code, number, emission_date, currency,
	supplier_country, supplier_nif, supplier_name, customer_country, customer_nif, customer_name, payable_amount,
	state, edi_state, coalesce(to_send_status, ''), method, send_by_email, email_addresses, disable_xml_sign,
	disable_pdf_sign, edits, coalesce(imported_at, ''), coalesce(process_state, ''), coalesce(process_state_at, ''),
	has_pdf, created_at, updated_at`

func scanDocument(ids *publicIDs, row interface{ Scan(...any) error }) (Document, error) {
	var d Document
	var emails string
	err := row.Scan(&d.ID, &d.IssuerID, &d.RecipientID, &d.Kind, &d.TypeCode, &d.Number, &d.EmissionDate, &d.Currency,
		&d.Supplier.Country, &d.Supplier.NIF, &d.Supplier.Name, &d.Customer.Country, &d.Customer.NIF, &d.Customer.Name,
		&d.PayableAmount, &d.State, &d.EDIState, &d.ToSendStatus, &d.Method, &d.SendByEmail, &emails, &d.DisableXMLSign,
		&d.DisablePDFSign, &d.Edits, &d.ImportedAt, &d.ProcessState, &d.ProcessStateAt, &d.HasPDF, &d.CreatedAt, &d.UpdatedAt)
	if err != nil {
		return d, mapError(err)
	}
	d.PublicID = ids.encode(KindDocument, d.ID)
	return d, json.Unmarshal([]byte(emails), &d.EmailAddresses)
}

// DocumentByID reads a document with its model; ErrNotFound when there is none.
func (s *Store) DocumentByID(ctx context.Context, id int64) (Document, error) {
	d, err := scanDocument(s.ids, s.reader.QueryRowContext(ctx, `SELECT `+documentColumns+` FROM documents WHERE id = ?`, id))
	if err != nil {
		return d, err
	}
	err = s.reader.QueryRowContext(ctx, `SELECT data FROM document_data WHERE document_id = ?`, id).Scan(&d.Data)
	return d, mapError(err)
}

// DocumentFiles lists a document's files in the order they were stored, without their content.
func (s *Store) DocumentFiles(ctx context.Context, documentID int64) ([]File, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT id, document_id, role, name, mime, size, sha256, created_at
		FROM document_files WHERE document_id = ? ORDER BY id`, documentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []File
	for rows.Next() {
		var f File
		if err := rows.Scan(&f.ID, &f.DocumentID, &f.Role, &f.Name, &f.MIME, &f.Size, &f.SHA256, &f.CreatedAt); err != nil {
			return nil, err
		}
		f.PublicID = s.ids.encode(KindFile, f.ID)
		out = append(out, f)
	}
	return out, rows.Err()
}

// DocumentFile reads one file of a document with its content; ErrNotFound when the document has no
// such file.
func (s *Store) DocumentFile(ctx context.Context, documentID, fileID int64) (File, error) {
	var f File
	err := s.reader.QueryRowContext(ctx, `SELECT id, document_id, role, name, mime, size, sha256, content, created_at
		FROM document_files WHERE document_id = ? AND id = ?`, documentID, fileID).
		Scan(&f.ID, &f.DocumentID, &f.Role, &f.Name, &f.MIME, &f.Size, &f.SHA256, &f.Content, &f.CreatedAt)
	if err != nil {
		return f, mapError(err)
	}
	f.PublicID = s.ids.encode(KindFile, f.ID)
	return f, nil
}

// DocumentFileByRole reads the first file of a role (the XML, the PDF) with its content.
func (s *Store) DocumentFileByRole(ctx context.Context, documentID int64, role string) (File, error) {
	var id int64
	err := s.reader.QueryRowContext(ctx, `SELECT id FROM document_files WHERE document_id = ? AND role = ? ORDER BY id LIMIT 1`,
		documentID, role).Scan(&id)
	if err != nil {
		return File{}, mapError(err)
	}
	return s.DocumentFile(ctx, documentID, id)
}

// DocumentVersion reads how many times a document was edited and who receives it now: a caller that
// read a document and then one of its files checks with it that the file is of the version it read.
func (s *Store) DocumentVersion(ctx context.Context, id int64) (edits int, recipientID int64, err error) {
	err = s.reader.QueryRowContext(ctx, `SELECT edits, coalesce(recipient_id, 0) FROM documents WHERE id = ?`, id).Scan(&edits, &recipientID)
	return edits, recipientID, mapError(err)
}

// History lists what happened to a document, oldest first. The e-mail entries name their e-mail by its
// public identifier.
func (s *Store) History(ctx context.Context, documentID int64) ([]HistoryEntry, error) {
	return s.history(ctx, `document_id = ?`, documentID)
}

// history lists the history entries that match cond, oldest first.
func (s *Store) history(ctx context.Context, cond string, args ...any) ([]HistoryEntry, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT id, document_id, kind, coalesce(state, ''), description,
		coalesce(data, ''), created_at FROM document_history WHERE `+cond+` ORDER BY id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []HistoryEntry
	for rows.Next() {
		var h HistoryEntry
		var data string
		if err := rows.Scan(&h.ID, &h.DocumentID, &h.Kind, &h.State, &h.Description, &data, &h.CreatedAt); err != nil {
			return nil, err
		}
		if data != "" {
			h.Data = json.RawMessage(data)
		}
		if h.Kind == "email" {
			h.Data = s.publicEmailID(h.Data)
		}
		h.PublicID = s.ids.encode(KindHistory, h.ID)
		out = append(out, h)
	}
	return out, rows.Err()
}

// EventFilter selects unread state events of one entity.
type EventFilter struct {
	EntityID   int64
	DocumentID int64
	Number     string
	State      string
	From, To   string // created_at bounds (inclusive), "" for none
	Offset     int
	Limit      int
}

// StateEvents lists an entity's unread state events, oldest first, and how many match in all.
func (s *Store) StateEvents(ctx context.Context, f EventFilter) ([]StateEvent, int, error) {
	where := []string{"e.entity_id = ?", "e.read_at IS NULL"}
	args := []any{f.EntityID}
	if f.DocumentID != 0 {
		where, args = append(where, "e.document_id = ?"), append(args, f.DocumentID)
	}
	if f.Number != "" {
		where, args = append(where, "e.document_id IN (SELECT id FROM documents WHERE issuer_id = ? AND number = ?)"), append(args, f.EntityID, f.Number)
	}
	if f.State != "" {
		where, args = append(where, "e.state = ?"), append(args, f.State)
	}
	if f.From != "" {
		where, args = append(where, "e.created_at >= ?"), append(args, f.From)
	}
	if f.To != "" {
		where, args = append(where, "e.created_at <= ?"), append(args, f.To)
	}
	cond := strings.Join(where, " AND ")
	tx, err := s.reader.BeginTx(ctx, oneSnapshot) // the total and the page agree
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback()
	total, err := listTotal(ctx, tx, len(args) == 1, "unread_events", f.EntityID, `SELECT count(*) FROM state_events e WHERE `+cond, args)
	if err != nil {
		return nil, 0, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT e.id, e.entity_id, e.document_id, d.number, d.type_code, e.state,
		coalesce(e.previous_state, ''), e.edi_state, e.created_at
		FROM (SELECT * FROM state_events e WHERE `+cond+` ORDER BY e.id LIMIT ? OFFSET ?) e
		JOIN documents d ON d.id = e.document_id ORDER BY e.id`,
		append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []StateEvent
	for rows.Next() {
		var e StateEvent
		if err := rows.Scan(&e.ID, &e.EntityID, &e.DocumentID, &e.Number, &e.TypeCode, &e.State, &e.PreviousState,
			&e.EDIState, &e.CreatedAt); err != nil {
			return nil, 0, err
		}
		e.PublicID, e.DocumentPublicID = s.ids.encode(KindEvent, e.ID), s.ids.encode(KindDocument, e.DocumentID)
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// MarkEventsRead marks an entity's events read. Ids that are not the entity's unread events are
// returned, and nothing is marked, so that a caller learns nothing of other entities' events.
func (s *Store) MarkEventsRead(ctx context.Context, entityID int64, ids []int64) (unknown []int64, err error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		unknown = nil
		// The events are locked: two callers never both mark one read.
		rows, err := tx.QueryContext(ctx, `SELECT id FROM state_events WHERE id IN (`+s.d.idsIn+`)
			AND entity_id = ? AND read_at IS NULL`+s.d.forUpdate, string(list), entityID)
		if err != nil {
			return err
		}
		unread := map[int64]bool{}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			unread[id] = true
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
		for _, id := range ids {
			if !unread[id] {
				unknown = append(unknown, id)
			}
		}
		if len(unknown) > 0 {
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE state_events SET read_at = ? WHERE id IN (`+s.d.idsIn+`)`, s.timestamp(), string(list))
		return err
	})
	return unknown, err
}

// RecipientRules lists the fields an entity requires on the documents it receives.
func (s *Store) RecipientRules(ctx context.Context, entityID int64) ([]string, error) {
	return recipientRules(ctx, s.reader, entityID)
}

// querier runs queries: the reader pool or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryStrings is the first column of every row of a query.
func queryStrings(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func recipientRules(ctx context.Context, q querier, entityID int64) ([]string, error) {
	return queryStrings(ctx, q, `SELECT rule FROM recipient_rules WHERE entity_id = ? ORDER BY rule`, entityID)
}

// SetRecipientRule adds (on) or removes (off) a rule of a recipient entity.
func (s *Store) SetRecipientRule(ctx context.Context, entityID int64, rule string, on bool) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if on {
			_, err = tx.ExecContext(ctx, `INSERT INTO recipient_rules (entity_id, rule, created_at) VALUES (?, ?, ?)
				ON CONFLICT DO NOTHING`, entityID, rule, s.timestamp())
		} else {
			_, err = tx.ExecContext(ctx, `DELETE FROM recipient_rules WHERE entity_id = ? AND rule = ?`, entityID, rule)
		}
		return err
	})
}

// Tx is one write transaction. The server's workflows make their decisions inside one, so that what
// they read (an existing document, a connection, a balance) and what they write (the document, its
// history, events and outbox rows) form one atomic step.
type Tx struct {
	ctx      context.Context
	tx       *sql.Tx
	now      string
	ids      *publicIDs
	d        *dialect
	webhooks int64 // webhook deliveries queued in this transaction

	entities        map[int64]entityReads // what EntityByNIF read with the entities it found
	changedEntities bool                  // it changed an entity's row (the caches forget them)
}

// QueuedWebhooks is how many webhook deliveries the transaction queued, complete once it has
// committed (on PostgreSQL the writes that queue them may wait for the commit).
func (t *Tx) QueuedWebhooks() *int64 { return &t.webhooks }

// later runs a write whose outcome the transaction needs only when it commits. On PostgreSQL it
// waits until the transaction's next statement or its commit and goes to the server with it (see
// postgres_tx.go); on SQLite (no network) it runs at once. rows, when not nil, is added the number
// of rows the write wrote.
func (t *Tx) later(rows *int64, query string, args ...any) error {
	res, err := t.tx.ExecContext(sendLater(t.ctx, rows), query, args...)
	if err != nil || rows == nil {
		return err
	}
	n, err := res.RowsAffected() // 0 for a write that waits: its count is added when it is sent
	*rows += n
	return err
}

// exec, query and queryRow run a statement of the transaction.
func (t *Tx) exec(query string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(t.ctx, query, args...)
}

func (t *Tx) query(query string, args ...any) (*sql.Rows, error) {
	return t.tx.QueryContext(t.ctx, query, args...)
}

func (t *Tx) queryRow(query string, args ...any) *sql.Row {
	return t.tx.QueryRowContext(t.ctx, query, args...)
}

// Update runs fn in one immediate write transaction; an error from fn rolls everything back. Updates
// that arrive together are committed together (see writeGrouped); once fn runs, its statements are
// not interrupted by the end of ctx. On PostgreSQL, fn runs again when its transaction lost a race
// with another one (a deadlock, a key made meanwhile): what it collects outside starts over with it.
func (s *Store) Update(ctx context.Context, fn func(*Tx) error) error {
	changedEntities := false
	defer func() {
		if changedEntities { // after the commit: a lookup meanwhile may have kept the old row
			s.forgetEntities()
		}
	}()
	return s.writeGrouped(ctx, func(tx *sql.Tx) error {
		t := &Tx{ctx: context.WithoutCancel(ctx), tx: tx, now: s.timestamp(), ids: s.ids, d: &s.d}
		err := fn(t)
		changedEntities = changedEntities || t.changedEntities
		return err
	})
}

// Now is the transaction's timestamp, written on everything it changes.
func (t *Tx) Now() string { return t.now }

// EntityByNIF finds an entity by country and tax ID. The same statement reads whether the entity
// stands here only for an external issuer and which fields it requires on what it receives:
// IsExternalIssuer and RecipientRules then answer for it from what the transaction read.
func (t *Tx) EntityByNIF(country, nif string) (Entity, error) {
	return t.entityByNIF(0, country, nif)
}

// CounterpartyByNIF is EntityByNIF for an entity that entity asker deals with: the same statement
// also reads the state of the connection between the two, which ConnectionState then answers.
func (t *Tx) CounterpartyByNIF(asker int64, country, nif string) (Entity, error) {
	return t.entityByNIF(asker, country, nif)
}

func (t *Tx) entityByNIF(asker int64, country, nif string) (Entity, error) {
	var external int64
	var rules, connection sql.NullString
	e, err := scanEntity(t.queryRow(`SELECT `+entityColumns+`,
		(SELECT count(*) FROM external_issuers x WHERE x.entity_id = entities.id),
		(SELECT `+t.d.joinedText("r.rule")+` FROM recipient_rules r WHERE r.entity_id = entities.id),
		(`+connectionStateWith("entities.id")+`)
		FROM entities WHERE country = ? AND nif = ?`, asker, asker, country, nif), &external, &rules, &connection)
	if err != nil {
		return e, err
	}
	read := entityReads{external: external > 0, asker: asker, connection: connection}
	if rules.String != "" {
		read.rules = strings.Split(rules.String, ",")
		sort.Strings(read.rules)
	}
	if t.entities == nil {
		t.entities = map[int64]entityReads{}
	}
	t.entities[e.ID] = read
	return e, nil
}

// entityReads is what EntityByNIF read about an entity besides its row.
type entityReads struct {
	external   bool
	rules      []string
	asker      int64          // the entity whose connection with this one was read (0: none)
	connection sql.NullString // the state of that connection; not valid when there is none
}

// ConnectionState is the state of the connection between two entities, whichever asked for it;
// ErrNotFound when there is none. After CounterpartyByNIF it answers from what that statement read.
func (t *Tx) ConnectionState(a, b int64) (string, error) {
	for _, pair := range [][2]int64{{a, b}, {b, a}} {
		if read, ok := t.entities[pair[1]]; ok && pair[0] != 0 && read.asker == pair[0] {
			if !read.connection.Valid {
				return "", ErrNotFound
			}
			return read.connection.String, nil
		}
	}
	var state string
	err := t.queryRow(connectionStateWith("?"), a, b, b, a).Scan(&state)
	return state, mapError(err)
}

// connectionStateWith selects the state of the connection between the entity of the first and last
// placeholders and other (an expression), whichever asked for it.
func connectionStateWith(other string) string {
	return `SELECT c.state FROM connections c WHERE (c.from_entity_id = ? AND c.to_entity_id = ` + other + `)
		OR (c.from_entity_id = ` + other + ` AND c.to_entity_id = ?) ORDER BY c.id LIMIT 1`
}

// RecipientRules lists the fields an entity requires on the documents it receives.
func (t *Tx) RecipientRules(entityID int64) ([]string, error) {
	if read, ok := t.entities[entityID]; ok {
		return read.rules, nil
	}
	return recipientRules(t.ctx, t.tx, entityID)
}

// DocumentByKey finds an issuer's document by its natural key, locked as DocumentByID locks it. When
// there is none, another transaction may make it meanwhile: SaveDocument then has the transaction run
// again, to find it.
func (t *Tx) DocumentByKey(issuerID int64, number, typeCode, emissionDate string) (Document, error) {
	return scanDocument(t.ids, t.queryRow(t.documentByKey(), issuerID, number, typeCode, emissionDate))
}

// ExpectDocumentByKey announces that the transaction will look this document up by its key, and make
// it when there is none: on PostgreSQL the read, and the new document's id, then go to the server
// with the transaction's next statement, rather than in round trips of their own. The transaction
// must not write the document before it looks.
func (t *Tx) ExpectDocumentByKey(issuerID int64, number, typeCode, emissionDate string) error {
	if !t.d.shared {
		return nil
	}
	if _, err := t.tx.ExecContext(readAhead(t.ctx), t.documentByKey(), issuerID, number, typeCode, emissionDate); err != nil {
		return err
	}
	_, err := t.tx.ExecContext(readAhead(t.ctx), nextID, "documents")
	return err
}

// nextID takes the next id of a table's sequence (PostgreSQL).
const nextID = `SELECT nextval(pg_get_serial_sequence(?, 'id'))`

func (t *Tx) documentByKey() string {
	return `SELECT ` + documentColumns + ` FROM documents
		WHERE issuer_id = ? AND number = ? AND type_code = ? AND emission_date = ?` + t.d.forUpdate
}

// SaveDocument inserts a document (ID 0) or rewrites an existing one, and returns it as stored.
func (t *Tx) SaveDocument(d *Document) error {
	emails, err := json.Marshal(nonNil(d.EmailAddresses))
	if err != nil {
		return err
	}
	var recipient any
	if d.RecipientID != 0 {
		recipient = d.RecipientID
	}
	var toSend any
	if d.ToSendStatus != "" {
		toSend = d.ToSendStatus
	}
	args := []any{d.IssuerID, recipient, d.Kind, d.TypeCode, d.Number, d.EmissionDate, d.Currency,
		d.Supplier.Country, d.Supplier.NIF, d.Supplier.Name, d.Customer.Country, d.Customer.NIF, d.Customer.Name,
		d.PayableAmount, d.State, d.EDIState, toSend, d.Method, d.SendByEmail, string(emails), d.DisableXMLSign,
		d.DisablePDFSign, d.Edits, nullText(d.ImportedAt), d.HasPDF}
	var saved Document
	switch {
	case d.ID == 0 && t.d.shared:
		saved, err = t.insertDocumentLater(d, args)
	case d.ID == 0:
		saved, err = scanDocument(t.ids, t.queryRow(`INSERT INTO documents (`+documentInsertColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (issuer_id, number, type_code, emission_date) DO NOTHING RETURNING `+documentColumns,
			append(args, t.now, t.now)...))
		if errors.Is(err, ErrNotFound) {
			err = errRaced // a concurrent transaction made the document since DocumentByKey looked
		}
	default:
		saved, err = scanDocument(t.ids, t.queryRow(`UPDATE documents SET issuer_id = ?, recipient_id = ?, kind = ?, type_code = ?,
			number = ?, emission_date = ?, currency = ?, supplier_country = ?, supplier_nif = ?, supplier_name = ?,
			customer_country = ?, customer_nif = ?, customer_name = ?, payable_amount = ?, state = ?, edi_state = ?,
			to_send_status = ?, method = ?, send_by_email = ?, email_addresses = ?, disable_xml_sign = ?,
			disable_pdf_sign = ?, edits = ?, imported_at = ?, has_pdf = ?, updated_at = ? WHERE id = ? RETURNING `+documentColumns,
			append(args, t.now, d.ID)...))
	}
	if err != nil {
		return err
	}
	if d.Data != nil {
		if err := t.later(nil, `INSERT INTO document_data (document_id, data) VALUES (?, ?)
			ON CONFLICT (document_id) DO UPDATE SET data = excluded.data`, saved.ID, string(d.Data)); err != nil {
			return err
		}
	}
	saved.Data = d.Data
	*d = saved
	return nil
}

// documentInsertColumns are the columns SaveDocument writes of a new document, in the order of its
// arguments, then its times.
const documentInsertColumns = `issuer_id, recipient_id, kind, type_code, number, emission_date, currency,
	supplier_country, supplier_nif, supplier_name, customer_country, customer_nif, customer_name, payable_amount,
	state, edi_state, to_send_status, method, send_by_email, email_addresses, disable_xml_sign, disable_pdf_sign,
	edits, imported_at, has_pdf, created_at, updated_at`

// insertDocumentLater inserts a new document on PostgreSQL: its id is taken from the sequence first
// (announced by ExpectDocumentByKey, or read now), so that the insert itself can wait for the
// transaction's next statement (Tx.later). When a concurrent transaction made a document with the
// same key meanwhile, the insert fails on the key's constraint and the transaction runs again (see
// retryable), to find that document.
func (t *Tx) insertDocumentLater(d *Document, args []any) (Document, error) {
	var id int64
	if err := t.queryRow(nextID, "documents").Scan(&id); err != nil {
		return Document{}, err
	}
	if err := t.later(nil, `INSERT INTO documents (`+documentInsertColumns+`, id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		append(args, t.now, t.now, id)...); err != nil {
		return Document{}, err
	}
	saved := *d // as the statement stores it, and as scanDocument would read it back
	saved.ID, saved.PublicID = id, t.ids.encode(KindDocument, id)
	saved.EmailAddresses = nonNil(d.EmailAddresses)
	saved.ProcessState, saved.ProcessStateAt = "", ""
	saved.CreatedAt, saved.UpdatedAt = t.now, t.now
	return saved, nil
}

func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ReplaceFiles stores a document's files instead of those it had.
func (t *Tx) ReplaceFiles(documentID int64, files []File) error {
	if _, err := t.exec(`DELETE FROM document_files WHERE document_id = ?`, documentID); err != nil {
		return err
	}
	return t.AddFiles(documentID, files)
}

// AddFiles stores the files of a document that has none yet (a new one), in order.
func (t *Tx) AddFiles(documentID int64, files []File) error {
	const perStatement = 100 // one INSERT for up to this many files (8 parameters each)
	for len(files) > 0 {
		batch := files[:min(len(files), perStatement)]
		files = files[len(batch):]
		args := make([]any, 0, 8*len(batch))
		for _, f := range batch {
			sum := sha256.Sum256(f.Content)
			args = append(args, documentID, f.Role, f.Name, f.MIME, len(f.Content), sum[:], f.Content, t.now)
		}
		values := strings.Repeat(", (?, ?, ?, ?, ?, ?, ?, ?)", len(batch))[2:]
		if err := t.later(nil, `INSERT INTO document_files (document_id, role, name, mime, size, sha256,
			content, created_at) VALUES `+values, args...); err != nil {
			return err
		}
	}
	return nil
}

// AddFile stores one more file of a document.
func (t *Tx) AddFile(f File) error {
	sum := sha256.Sum256(f.Content)
	if _, err := t.exec(`INSERT INTO document_files (document_id, role, name, mime, size, sha256, content, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, f.DocumentID, f.Role, f.Name, f.MIME, len(f.Content), sum[:], f.Content, t.now); err != nil {
		return err
	}
	if f.Role == FilePDF {
		_, err := t.exec(`UPDATE documents SET has_pdf = 1 WHERE id = ?`, f.DocumentID)
		return err
	}
	return nil
}

// AddHistory records something that happened to a document.
func (t *Tx) AddHistory(h HistoryEntry) error {
	var data any
	if len(h.Data) > 0 {
		data = string(h.Data)
	}
	var state any
	if h.State != "" {
		state = h.State
	}
	// The entry belongs to the document's recipient now (written here rather than by the trigger that
	// would otherwise update the new row).
	return t.later(nil, `INSERT INTO document_history (document_id, kind, state, description, data, created_at,
		recipient_id) VALUES (?, ?, ?, ?, ?, ?, (SELECT recipient_id FROM documents WHERE id = ?))`,
		h.DocumentID, h.Kind, state, h.Description, data, t.now, h.DocumentID)
}

// AddStateEvent records a state change for the issuer's states report.
func (t *Tx) AddStateEvent(e StateEvent) error {
	var previous any
	if e.PreviousState != "" {
		previous = e.PreviousState
	}
	return t.later(nil, `INSERT INTO state_events (entity_id, document_id, state, previous_state, edi_state,
		created_at) VALUES (?, ?, ?, ?, ?, ?)`, e.EntityID, e.DocumentID, e.State, previous, e.EDIState, t.now)
}

// Enqueue adds work for the background jobs, to be done once this transaction commits.
func (t *Tx) Enqueue(kind string, entityID, documentID int64, payload any) error {
	body, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	return t.later(nil, `INSERT INTO outbox (kind, entity_id, document_id, payload, next_attempt_at,
		created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`, kind, nullID(entityID), nullID(documentID), string(body), t.now, t.now, t.now)
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// Spend takes amount transactions from an entity's balance and records why; the balance may not go
// below zero unless allowNegative.
func (t *Tx) Spend(entityID, documentID, amount int64, reason string, allowNegative bool) error {
	t.changedEntities = true
	res, err := t.exec(`UPDATE entities SET transactions = transactions - ?, updated_at = ?
		WHERE id = ? AND (? = 1 OR transactions >= ?)`, amount, t.now, entityID, allowNegative, amount)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("entity %d: not enough transactions: %w", entityID, ErrConflict)
	}
	_, err = t.exec(`INSERT INTO transactions (entity_id, document_id, amount, reason, created_at)
		VALUES (?, ?, ?, ?, ?)`, entityID, nullID(documentID), -amount, reason, t.now)
	return err
}
