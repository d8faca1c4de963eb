package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
)

// Seal is an entity's signing key and certificates as stored. The store keeps bytes; reading them as
// keys and certificates is the signing package's job.
type Seal struct {
	EntityID  int64    `json:"entity_id"`
	Subject   string   `json:"subject"`
	Issuer    string   `json:"issuer"`
	Serial    string   `json:"serial"`
	NotBefore string   `json:"not_before"`
	NotAfter  string   `json:"not_after"`
	Key       []byte   `json:"-"` // PKCS#8 DER, in clear once read
	Chain     [][]byte `json:"-"` // certificates, DER, leaf first
	CreatedAt string   `json:"created_at"`
}

// SaveSeal stores (or replaces) an entity's seal, its key encrypted, and marks the entity as one the
// service signs for.
func (s *Store) SaveSeal(ctx context.Context, seal Seal) error {
	defer s.forgetEntities()
	var chain []byte
	for _, c := range seal.Chain {
		chain = binary.BigEndian.AppendUint32(chain, uint32(len(c)))
		chain = append(chain, c...)
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		now := s.timestamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO seals (entity_id, subject, issuer, serial, not_before, not_after, key_enc, chain, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (entity_id) DO UPDATE SET subject = excluded.subject, issuer = excluded.issuer,
			serial = excluded.serial, not_before = excluded.not_before, not_after = excluded.not_after, key_enc = excluded.key_enc,
			chain = excluded.chain, created_at = excluded.created_at`,
			seal.EntityID, seal.Subject, seal.Issuer, seal.Serial, seal.NotBefore, seal.NotAfter, s.secrets.seal(seal.Key), chain, now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE entities SET service_signing = 1, updated_at = ? WHERE id = ?`, now, seal.EntityID)
		return err
	})
}

const sealColumns = `entity_id, subject, issuer, serial, not_before, not_after, key_enc, chain, created_at`

func (s *Store) scanSeal(row interface{ Scan(...any) error }, withKey bool) (Seal, error) {
	var out Seal
	var key, chain []byte
	if err := row.Scan(&out.EntityID, &out.Subject, &out.Issuer, &out.Serial, &out.NotBefore, &out.NotAfter, &key, &chain, &out.CreatedAt); err != nil {
		return out, mapError(err)
	}
	for len(chain) >= 4 {
		n := int(binary.BigEndian.Uint32(chain))
		if n > len(chain)-4 {
			return out, errors.New("store: damaged certificate chain")
		}
		out.Chain = append(out.Chain, chain[4:4+n])
		chain = chain[4+n:]
	}
	if withKey {
		plain, err := s.secrets.open(key)
		if err != nil {
			return out, err
		}
		out.Key = plain
	}
	return out, nil
}

// SealOf reads an entity's seal with its key; ErrNotFound when it has none.
func (s *Store) SealOf(ctx context.Context, entityID int64) (Seal, error) {
	return s.scanSeal(s.reader.QueryRowContext(ctx, `SELECT `+sealColumns+` FROM seals WHERE entity_id = ?`, entityID), true)
}

// Seals lists every seal, without keys.
func (s *Store) Seals(ctx context.Context) ([]Seal, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+sealColumns+` FROM seals ORDER BY entity_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Seal{}
	for rows.Next() {
		seal, err := s.scanSeal(rows, false)
		if err != nil {
			return nil, err
		}
		out = append(out, seal)
	}
	return out, rows.Err()
}

// DeleteSeal removes an entity's seal: the service no longer signs for it.
func (s *Store) DeleteSeal(ctx context.Context, entityID int64) error {
	defer s.forgetEntities()
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM seals WHERE entity_id = ?`, entityID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `UPDATE entities SET service_signing = 0, updated_at = ? WHERE id = ?`, s.timestamp(), entityID)
		return err
	})
}
