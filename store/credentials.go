package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// Credential kinds.
const (
	KindClient   = "client"   // OAuth 2.0 client credentials
	KindPlatform = "platform" // legacy platform token
)

// Credential is a platform credential: an OAuth client or a legacy platform token. Neither the
// client secret nor the token is part of it.
type Credential struct {
	ID        int64    `json:"id"`
	Kind      string   `json:"kind"`
	Name      string   `json:"name"`
	ClientID  string   `json:"client_id,omitempty"`
	Scopes    []string `json:"scopes"`
	Disabled  bool     `json:"disabled"`
	CreatedAt string   `json:"created_at"`
}

const credentialColumns = `id, kind, name, coalesce(client_id, ''), scopes, disabled, created_at`

func scanCredential(row interface{ Scan(...any) error }, extra ...any) (Credential, error) {
	var c Credential
	var scopes string
	err := row.Scan(append([]any{&c.ID, &c.Kind, &c.Name, &c.ClientID, &scopes, &c.Disabled, &c.CreatedAt}, extra...)...)
	c.Scopes = splitScopes(scopes)
	return c, mapError(err)
}

func splitScopes(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// CreateClient stores a new OAuth client and returns it with its secret, which is shown only now.
func (s *Store) CreateClient(ctx context.Context, name string, scopes []string) (Credential, string, error) {
	clientID := "c" + RandomToken(10)
	secret := RandomToken(24)
	c, err := s.insertCredential(ctx, KindClient, name, scopes, clientID, s.secrets.seal([]byte(secret)), nil)
	return c, secret, err
}

// CreatePlatformToken stores a new legacy platform token (as a hash) and returns the token once.
func (s *Store) CreatePlatformToken(ctx context.Context, name string, scopes []string) (Credential, string, error) {
	token := PlatformTokenPrefix + RandomToken(32)
	c, err := s.insertCredential(ctx, KindPlatform, name, scopes, nil, nil, HashToken(token))
	return c, token, err
}

func (s *Store) insertCredential(ctx context.Context, kind, name string, scopes []string, clientID any, secret, tokenHash []byte) (Credential, error) {
	var c Credential
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		c, err = scanCredential(tx.QueryRowContext(ctx, `INSERT INTO credentials
			(kind, name, client_id, secret_enc, token_hash, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
			RETURNING `+credentialColumns,
			kind, name, clientID, secret, tokenHash, strings.Join(scopes, ","), s.timestamp()))
		return err
	})
	return c, err
}

// ClientSecret finds an OAuth client by client_id and returns it with its secret in clear.
func (s *Store) ClientSecret(ctx context.Context, clientID string) (Credential, []byte, error) {
	var sealed []byte
	c, err := scanCredential(s.reader.QueryRowContext(ctx, `SELECT `+credentialColumns+`, secret_enc
		FROM credentials WHERE kind = 'client' AND client_id = ?`, clientID), &sealed)
	if err != nil {
		return c, nil, err
	}
	secret, err := s.secrets.open(sealed)
	return c, secret, err
}

// CredentialByPlatformToken finds the legacy platform credential a token belongs to.
func (s *Store) CredentialByPlatformToken(ctx context.Context, token string) (Credential, error) {
	var hash [32]byte
	copy(hash[:], HashToken(token))
	now := s.now()
	c, generation, ok := s.platformTokens.get(hash, now)
	if ok {
		return c, nil
	}
	c, err := scanCredential(s.reader.QueryRowContext(ctx, `SELECT `+credentialColumns+`
		FROM credentials WHERE kind = 'platform' AND token_hash = ?`, hash[:]))
	if err == nil && !c.Disabled {
		s.platformTokens.put(hash, c, generation, now)
	}
	return c, err
}

// CredentialByID finds a credential by its id.
func (s *Store) CredentialByID(ctx context.Context, id int64) (Credential, error) {
	return scanCredential(s.reader.QueryRowContext(ctx, `SELECT `+credentialColumns+` FROM credentials WHERE id = ?`, id))
}

// CredentialByClientID finds an OAuth client by its client_id.
func (s *Store) CredentialByClientID(ctx context.Context, clientID string) (Credential, error) {
	return scanCredential(s.reader.QueryRowContext(ctx, `SELECT `+credentialColumns+`
		FROM credentials WHERE kind = 'client' AND client_id = ?`, clientID))
}

// Credentials lists the credentials of one kind.
func (s *Store) Credentials(ctx context.Context, kind string) ([]Credential, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+credentialColumns+` FROM credentials WHERE kind = ? ORDER BY id`, kind)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Credential
	for rows.Next() {
		c, err := scanCredential(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// DisableCredential disables a credential and revokes every access token issued to it.
func (s *Store) DisableCredential(ctx context.Context, id int64) error {
	defer s.tokens.clear() // after the commit: a lookup meanwhile may have kept a token of it
	defer s.platformTokens.clear()
	defer s.forgetEntities()
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE credentials SET disabled = 1 WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `UPDATE access_tokens SET revoked = 1 WHERE credential_id = ?`, id)
		return err
	})
}

// Authorize lets a credential act for an entity (idempotent).
func (s *Store) Authorize(ctx context.Context, credentialID, entityID int64) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO authorizations (credential_id, entity_id, created_at)
			VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, credentialID, entityID, s.timestamp())
		return err
	})
}

// Authorization tells whether a credential may act for an entity and whether its legacy handshake is done.
func (s *Store) Authorization(ctx context.Context, credentialID, entityID int64) (authorized, handshake bool, err error) {
	var at sql.NullString
	err = s.reader.QueryRowContext(ctx, `SELECT handshake_at FROM authorizations
		WHERE credential_id = ? AND entity_id = ?`, credentialID, entityID).Scan(&at)
	if err == sql.ErrNoRows {
		return false, false, nil
	}
	return err == nil, at.Valid, err
}

// SetHandshake records (done) or revokes (not done) the legacy handshake of an authorised pair;
// ErrNotFound when the credential is not authorised for the entity.
func (s *Store) SetHandshake(ctx context.Context, credentialID, entityID int64, done bool) error {
	defer s.forgetEntities()
	var at any
	if done {
		at = s.timestamp()
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE authorizations SET handshake_at = ?
			WHERE credential_id = ? AND entity_id = ?`, at, credentialID, entityID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// AccessToken is a bearer token issued by POST /oauth2/token.
type AccessToken struct {
	CredentialID int64
	Scopes       []string
	ExpiresAt    time.Time
}

// IssueAccessToken creates an access token for a credential and returns it once.
func (s *Store) IssueAccessToken(ctx context.Context, credentialID int64, scopes []string, ttl time.Duration) (string, AccessToken, error) {
	token := RandomToken(32)
	t := AccessToken{CredentialID: credentialID, Scopes: scopes, ExpiresAt: s.now().Add(ttl).Truncate(time.Second)}
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO access_tokens (token_hash, credential_id, scopes, expires_at, created_at)
			VALUES (?, ?, ?, ?, ?)`, HashToken(token), credentialID, strings.Join(scopes, ","), t.ExpiresAt.Unix(), s.timestamp())
		return err
	})
	return token, t, err
}

// LookupAccessToken returns a token that is neither expired, revoked nor held by a disabled credential;
// ErrNotFound otherwise.
func (s *Store) LookupAccessToken(ctx context.Context, token string) (AccessToken, error) {
	var hash [32]byte
	copy(hash[:], HashToken(token))
	now := s.now()
	kept, generation, ok := s.tokens.get(hash, now)
	if ok && kept.ExpiresAt.Unix() > now.Unix() {
		return kept, nil
	}
	var t AccessToken
	var scopes string
	var expires int64
	err := s.reader.QueryRowContext(ctx, `SELECT t.credential_id, t.scopes, t.expires_at
		FROM access_tokens t JOIN credentials c ON c.id = t.credential_id
		WHERE t.token_hash = ? AND t.revoked = 0 AND c.disabled = 0 AND t.expires_at > ?`,
		hash[:], now.Unix()).Scan(&t.CredentialID, &scopes, &expires)
	if err != nil {
		return AccessToken{}, mapError(err)
	}
	t.Scopes, t.ExpiresAt = splitScopes(scopes), time.Unix(expires, 0)
	s.tokens.put(hash, t, generation, now)
	return t, nil
}

// UseNonce records a token-request nonce; ErrConflict when the credential already used it since
// notBefore. Older nonces of the credential are forgotten on the way.
func (s *Store) UseNonce(ctx context.Context, credentialID int64, nonce string, notBefore time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM seen_nonces WHERE credential_id = ? AND seen_at < ?`,
			credentialID, notBefore.Unix()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO seen_nonces (credential_id, nonce, seen_at) VALUES (?, ?, ?)`,
			credentialID, nonce, s.now().Unix())
		return err
	})
}

// PurgeExpired deletes access tokens that expired, and nonces seen and counters (counters.go) whose
// windows and blocks ended before notBefore; it returns how many rows went.
func (s *Store) PurgeExpired(ctx context.Context, notBefore time.Time) (int64, error) {
	var total int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		total = 0 // a transaction that runs again counts again
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`DELETE FROM access_tokens WHERE expires_at <= ?`, []any{s.now().Unix()}},
			{`DELETE FROM seen_nonces WHERE seen_at < ?`, []any{notBefore.Unix()}},
			{`DELETE FROM counters WHERE window_start + window_ms < ? AND blocked_until < ?`,
				[]any{notBefore.UnixMilli(), notBefore.UnixMilli()}},
		} {
			res, err := tx.ExecContext(ctx, q.sql, q.args...)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			total += n
		}
		return nil
	})
	return total, err
}

// PlatformTokenPrefix starts every legacy platform token, so a bearer can be told from an access token.
const PlatformTokenPrefix = "pt_"
