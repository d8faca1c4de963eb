package store

import (
	"context"
	"database/sql"
	"time"
)

// AS2Identity is the installation's AS2 station: its AS2 id, key and certificate. The store keeps bytes;
// reading them as a key and a certificate is the workflow's job.
type AS2Identity struct {
	AS2ID       string `json:"as2_id"`
	Key         []byte `json:"-"` // PKCS#8 DER, in clear once read
	Certificate []byte `json:"-"` // DER
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
}

// AS2IdentityOf reads the installation's AS2 identity with its key; ErrNotFound before the first.
func (s *Store) AS2IdentityOf(ctx context.Context) (AS2Identity, error) {
	var id AS2Identity
	var key []byte
	err := s.reader.QueryRowContext(ctx, `SELECT as2_id, key_enc, certificate, created_at, updated_at FROM as2_identity WHERE id = 1`).
		Scan(&id.AS2ID, &key, &id.Certificate, &id.CreatedAt, &id.UpdatedAt)
	if err != nil {
		return id, mapError(err)
	}
	id.Key, err = s.secrets.open(key)
	return id, err
}

// SaveAS2Identity stores the AS2 identity, its key encrypted. With replace false it keeps an identity
// that already exists (the first start and an admin command may race to create one); either way the
// identity in force is returned.
func (s *Store) SaveAS2Identity(ctx context.Context, id AS2Identity, replace bool) (AS2Identity, error) {
	onConflict := `DO NOTHING`
	if replace {
		onConflict = `DO UPDATE SET as2_id = excluded.as2_id, key_enc = excluded.key_enc, certificate = excluded.certificate,
			updated_at = excluded.updated_at`
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		now := s.timestamp()
		_, err := tx.ExecContext(ctx, `INSERT INTO as2_identity (id, as2_id, key_enc, certificate, created_at, updated_at)
			VALUES (1, ?, ?, ?, ?, ?) ON CONFLICT (id) `+onConflict, id.AS2ID, s.secrets.seal(id.Key), id.Certificate, now, now)
		return err
	})
	if err != nil {
		return AS2Identity{}, err
	}
	return s.AS2IdentityOf(ctx)
}

// AS2Partner is another AS2 station documents are exchanged with.
type AS2Partner struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	AS2ID       string `json:"as2_id"`
	URL         string `json:"url"`
	Certificate string `json:"certificate"` // PEM
	Sign        string `json:"sign"`        // sha256, sha1
	Cipher      string `json:"cipher"`      // aes128, aes256, 3des, none
	Compress    bool   `json:"compress"`
	MDN         string `json:"mdn"` // sync, async
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
}

const as2PartnerColumns = `id, name, as2_id, url, certificate, sign_algorithm, encryption_algorithm, compress, mdn_mode, created_at, updated_at`

func scanAS2Partner(row interface{ Scan(...any) error }) (AS2Partner, error) {
	var p AS2Partner
	err := row.Scan(&p.ID, &p.Name, &p.AS2ID, &p.URL, &p.Certificate, &p.Sign, &p.Cipher, &p.Compress, &p.MDN, &p.CreatedAt, &p.UpdatedAt)
	return p, mapError(err)
}

// CreateAS2Partner stores a partner; ErrConflict when its name or AS2 id is taken.
func (s *Store) CreateAS2Partner(ctx context.Context, p AS2Partner) (AS2Partner, error) {
	err := s.write(ctx, func(tx *sql.Tx) error {
		now := s.timestamp()
		err := tx.QueryRowContext(ctx, `INSERT INTO as2_partners (name, as2_id, url, certificate, sign_algorithm, encryption_algorithm,
			compress, mdn_mode, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			p.Name, p.AS2ID, p.URL, p.Certificate, p.Sign, p.Cipher, p.Compress, p.MDN, now, now).Scan(&p.ID)
		return mapError(err)
	})
	if err != nil {
		return AS2Partner{}, err
	}
	return s.AS2PartnerByName(ctx, p.Name)
}

// UpdateAS2Partner replaces the settings of the partner with p.ID; ErrNotFound, or ErrConflict when
// the new name or AS2 id is another partner's.
func (s *Store) UpdateAS2Partner(ctx context.Context, p AS2Partner) (AS2Partner, error) {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE as2_partners SET name = ?, as2_id = ?, url = ?, certificate = ?, sign_algorithm = ?,
			encryption_algorithm = ?, compress = ?, mdn_mode = ?, updated_at = ? WHERE id = ?`,
			p.Name, p.AS2ID, p.URL, p.Certificate, p.Sign, p.Cipher, p.Compress, p.MDN, s.timestamp(), p.ID)
		if err != nil {
			return mapError(err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return AS2Partner{}, err
	}
	return s.AS2PartnerByName(ctx, p.Name)
}

// DeleteAS2Partner removes a partner and its message ledger; ErrNotFound when there is none.
func (s *Store) DeleteAS2Partner(ctx context.Context, name string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM as2_partners WHERE name = ?`, name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// AS2Partners lists the partners by name.
func (s *Store) AS2Partners(ctx context.Context) ([]AS2Partner, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+as2PartnerColumns+` FROM as2_partners ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []AS2Partner{}
	for rows.Next() {
		p, err := scanAS2Partner(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// AS2PartnerByName reads a partner by its name here; ErrNotFound.
func (s *Store) AS2PartnerByName(ctx context.Context, name string) (AS2Partner, error) {
	return scanAS2Partner(s.reader.QueryRowContext(ctx, `SELECT `+as2PartnerColumns+` FROM as2_partners WHERE name = ?`, name))
}

// AS2PartnerByAS2ID reads a partner by its AS2 id; ErrNotFound.
func (s *Store) AS2PartnerByAS2ID(ctx context.Context, as2ID string) (AS2Partner, error) {
	return scanAS2Partner(s.reader.QueryRowContext(ctx, `SELECT `+as2PartnerColumns+` FROM as2_partners WHERE as2_id = ?`, as2ID))
}

// Directions of the AS2 message ledger.
const (
	AS2Inbound  = "in"
	AS2Outbound = "out"
)

// RecordAS2Message notes a message exchanged with a partner and its MIC (a repeat replaces the MIC);
// ErrNotFound when the partner is unknown.
func (s *Store) RecordAS2Message(ctx context.Context, partner, direction, messageID, mic string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO as2_messages (partner_id, direction, message_id, mic, created_at)
			SELECT id, ?, ?, ?, ? FROM as2_partners WHERE name = ?
			ON CONFLICT (partner_id, direction, message_id) DO UPDATE SET mic = excluded.mic`,
			direction, messageID, mic, s.timestamp(), partner)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// ForgetAS2Messages deletes the ledger's messages recorded before notBefore, a thousand per
// transaction so that other writes are not held up; it returns how many went.
func (s *Store) ForgetAS2Messages(ctx context.Context, notBefore time.Time) (int64, error) {
	before := notBefore.UTC().Format(TimeLayout)
	var total int64
	for {
		var n int64
		err := s.write(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, `DELETE FROM as2_messages WHERE (partner_id, direction, message_id) IN
				(SELECT partner_id, direction, message_id FROM as2_messages WHERE created_at < ? LIMIT 1000)`, before)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		total += n
		if err != nil || n < 1000 {
			return total, err
		}
	}
}

// AS2MessageMIC is the MIC recorded for a message; ErrNotFound when it was not recorded.
func (s *Store) AS2MessageMIC(ctx context.Context, partner, direction, messageID string) (string, error) {
	var mic string
	err := s.reader.QueryRowContext(ctx, `SELECT m.mic FROM as2_messages m JOIN as2_partners p ON p.id = m.partner_id
		WHERE p.name = ? AND m.direction = ? AND m.message_id = ?`, partner, direction, messageID).Scan(&mic)
	return mic, mapError(err)
}
