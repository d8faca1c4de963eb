package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Upstream is a broker offering this same API that an entity here forwards its documents to: its base
// URL, the platform OAuth client there and the entity's public key there. The secret and the key are
// kept encrypted.
type Upstream struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	BaseURL   string `json:"base_url"`
	ClientID  string `json:"client_id"`
	Secret    string `json:"-"`
	PublicKey string `json:"-"`
	CreatedAt string `json:"created_at"`
}

// CreateUpstream stores an upstream; ErrConflict when the name is taken.
func (s *Store) CreateUpstream(ctx context.Context, u Upstream) (Upstream, error) {
	err := s.write(ctx, func(tx *sql.Tx) error {
		u.CreatedAt = s.timestamp()
		return tx.QueryRowContext(ctx, `INSERT INTO upstreams (name, base_url, client_id, secret_enc, public_key_enc, created_at)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, u.Name, u.BaseURL, u.ClientID, s.secrets.seal([]byte(u.Secret)),
			s.secrets.seal([]byte(u.PublicKey)), u.CreatedAt).Scan(&u.ID)
	})
	return u, mapError(err)
}

const upstreamColumns = `id, name, base_url, client_id, secret_enc, public_key_enc, created_at`

func (s *Store) scanUpstream(row interface{ Scan(...any) error }) (Upstream, error) {
	var u Upstream
	var secret, key []byte
	if err := row.Scan(&u.ID, &u.Name, &u.BaseURL, &u.ClientID, &secret, &key, &u.CreatedAt); err != nil {
		return u, mapError(err)
	}
	plainSecret, err := s.secrets.open(secret)
	if err != nil {
		return u, fmt.Errorf("upstream %s: %w", u.Name, err)
	}
	plainKey, err := s.secrets.open(key)
	if err != nil {
		return u, fmt.Errorf("upstream %s: %w", u.Name, err)
	}
	u.Secret, u.PublicKey = string(plainSecret), string(plainKey)
	return u, nil
}

// Upstreams lists every upstream by name, secrets decrypted.
func (s *Store) Upstreams(ctx context.Context) ([]Upstream, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+upstreamColumns+` FROM upstreams ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Upstream{}
	for rows.Next() {
		u, err := s.scanUpstream(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// UpstreamByName reads one upstream with its secrets.
func (s *Store) UpstreamByName(ctx context.Context, name string) (Upstream, error) {
	return s.scanUpstream(s.reader.QueryRowContext(ctx, `SELECT `+upstreamColumns+` FROM upstreams WHERE name = ?`, name))
}

// DeleteUpstream removes an upstream; ErrNotFound when there is none of that name.
func (s *Store) DeleteUpstream(ctx context.Context, name string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM upstreams WHERE name = ?`, name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}
