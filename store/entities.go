package store

import (
	"context"
	"database/sql"
)

// Entity is a company of this installation: it issues and receives documents and is identified in API
// calls by its public key.
type Entity struct {
	ID                   int64  `json:"id"`
	Name                 string `json:"name"`
	Country              string `json:"country"`
	NIF                  string `json:"nif"`
	PublicKey            string `json:"public_key"`
	PaysReceived         bool   `json:"pays_received"`
	Transactions         int64  `json:"transactions"`
	ProcessStatesEnabled bool   `json:"process_states_enabled"`
	SignsItself          bool   `json:"signs_itself"`
	ServiceSigning       bool   `json:"service_signing"`
	TestEntity           bool   `json:"test_entity"`
	Mail                 Sender `json:"mail"`
	CreatedAt            string `json:"created_at"`
	UpdatedAt            string `json:"updated_at"`
}

// Sender is how an entity's e-mails go out: display name, From and Reply-To (empty: the
// installation's), and whether the XML goes with the PDF.
type Sender struct {
	FromName    string `json:"from_name"`
	FromAddress string `json:"from_address"`
	ReplyTo     string `json:"reply_to"`
	AttachXML   bool   `json:"attach_xml"`
}

// NewEntity is what creating an entity takes; the public key is generated.
type NewEntity struct {
	Name         string
	Country      string
	NIF          string
	PaysReceived bool
	Transactions int64
	TestEntity   bool
}

// EntityChanges lists the fields to change; nil leaves a field as it is.
type EntityChanges struct {
	Name                 *string
	PaysReceived         *bool
	Transactions         *int64
	ProcessStatesEnabled *bool
	SignsItself          *bool
	TestEntity           *bool
	MailFromName         *string
	MailFromAddress      *string
	MailReplyTo          *string
	MailAttachXML        *bool
}

const entityColumns = `id, name, country, nif, public_key, pays_received, transactions,
	process_states_enabled, signs_itself, service_signing, test_entity, mail_from_name, mail_from_address, mail_reply_to,
	mail_attach_xml, created_at, updated_at`

// scanEntity reads entityColumns, then the extra columns into extra.
func scanEntity(row interface{ Scan(...any) error }, extra ...any) (Entity, error) {
	var e Entity
	err := row.Scan(append([]any{&e.ID, &e.Name, &e.Country, &e.NIF, &e.PublicKey, &e.PaysReceived, &e.Transactions,
		&e.ProcessStatesEnabled, &e.SignsItself, &e.ServiceSigning, &e.TestEntity, &e.Mail.FromName, &e.Mail.FromAddress,
		&e.Mail.ReplyTo, &e.Mail.AttachXML, &e.CreatedAt, &e.UpdatedAt}, extra...)...)
	return e, mapError(err)
}

// CreateEntity stores a new entity with a fresh public key; ErrConflict if the tax ID exists.
func (s *Store) CreateEntity(ctx context.Context, n NewEntity) (Entity, error) {
	var e Entity
	err := s.write(ctx, func(tx *sql.Tx) error {
		now := s.timestamp()
		row := tx.QueryRowContext(ctx, `INSERT INTO entities (name, country, nif, public_key, pays_received,
			transactions, test_entity, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			RETURNING `+entityColumns,
			n.Name, n.Country, n.NIF, RandomToken(20), n.PaysReceived, n.Transactions, n.TestEntity, now, now)
		var err error
		e, err = scanEntity(row)
		return err
	})
	return e, err
}

// EntityByNIF finds an entity by country and tax ID.
func (s *Store) EntityByNIF(ctx context.Context, country, nif string) (Entity, error) {
	return scanEntity(s.reader.QueryRowContext(ctx,
		`SELECT `+entityColumns+` FROM entities WHERE country = ? AND nif = ?`, country, nif))
}

// EntityByPublicKey finds the entity a public key identifies.
func (s *Store) EntityByPublicKey(ctx context.Context, key string) (Entity, error) {
	return scanEntity(s.reader.QueryRowContext(ctx,
		`SELECT `+entityColumns+` FROM entities WHERE public_key = ?`, key))
}

// Access is what a credential may do for an entity.
type Access struct {
	Authorized bool // the credential may act for the entity
	Handshake  bool // and its legacy handshake is done
}

// EntityAccess finds the entity a public key identifies and what a credential may do for it, in one
// read. Authentication does it on every request: an answer that lets the credential act is kept
// briefly (briefcache.go).
func (s *Store) EntityAccess(ctx context.Context, key string, credentialID int64) (Entity, Access, error) {
	now, k := s.now(), entityAccessKey{key, credentialID}
	kept, generation, ok := s.entityAccess.get(k, now)
	if ok {
		return kept.entity, kept.access, nil
	}
	e, access, err := s.readEntityAccess(ctx, key, credentialID)
	if err == nil && access.Authorized {
		s.entityAccess.put(k, entityAccess{e, access}, generation, now)
	}
	return e, access, err
}

func (s *Store) readEntityAccess(ctx context.Context, key string, credentialID int64) (Entity, Access, error) {
	var handshake sql.NullBool // NULL when the credential is not authorised for the entity
	e, err := scanEntity(s.reader.QueryRowContext(ctx, `SELECT `+entityColumns+`,
		(SELECT handshake_at IS NOT NULL FROM authorizations WHERE credential_id = ? AND entity_id = entities.id)
		FROM entities WHERE public_key = ?`, credentialID, key), &handshake)
	return e, Access{Authorized: handshake.Valid, Handshake: handshake.Bool}, err
}

// EntityByID finds an entity by its id.
func (s *Store) EntityByID(ctx context.Context, id int64) (Entity, error) {
	return scanEntity(s.reader.QueryRowContext(ctx, `SELECT `+entityColumns+` FROM entities WHERE id = ?`, id))
}

// Entities lists every entity by name.
func (s *Store) Entities(ctx context.Context) ([]Entity, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+entityColumns+` FROM entities ORDER BY name, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entity
	for rows.Next() {
		e, err := scanEntity(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// UpdateEntity applies the non-nil changes and returns the entity as stored.
func (s *Store) UpdateEntity(ctx context.Context, id int64, c EntityChanges) (Entity, error) {
	defer s.forgetEntities()
	var e Entity
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE entities SET
			name = coalesce(?, name),
			pays_received = coalesce(?, pays_received),
			transactions = coalesce(?, transactions),
			process_states_enabled = coalesce(?, process_states_enabled),
			signs_itself = coalesce(?, signs_itself),
			test_entity = coalesce(?, test_entity),
			mail_from_name = coalesce(?, mail_from_name),
			mail_from_address = coalesce(?, mail_from_address),
			mail_reply_to = coalesce(?, mail_reply_to),
			mail_attach_xml = coalesce(?, mail_attach_xml),
			updated_at = ?
			WHERE id = ?`,
			c.Name, c.PaysReceived, c.Transactions, c.ProcessStatesEnabled, c.SignsItself, c.TestEntity,
			c.MailFromName, c.MailFromAddress, c.MailReplyTo, c.MailAttachXML, s.timestamp(), id)
		if err != nil {
			return err
		}
		e, err = scanEntity(tx.QueryRowContext(ctx, `SELECT `+entityColumns+` FROM entities WHERE id = ?`, id))
		return err
	})
	return e, err
}
