package store

import (
	"context"
	"database/sql"
	"time"
)

// Roles a portal user can have at an entity. Support users have no per-entity role: they see every
// entity.
const (
	RoleAdmin    = "admin"
	RoleOperator = "operator"
	RoleViewer   = "viewer"
)

// User is a person who signs in to the portal.
type User struct {
	ID          int64        `json:"id"`
	Username    string       `json:"username"`
	Support     bool         `json:"support"`
	Disabled    bool         `json:"disabled"`
	Lang        string       `json:"lang"` // "", "pt" or "en": empty follows the browser
	Memberships []Membership `json:"entities"`
	CreatedAt   string       `json:"created_at"`
	UpdatedAt   string       `json:"updated_at"`
}

// Membership is a user's role at one entity.
type Membership struct {
	EntityID   int64  `json:"-"`
	EntityName string `json:"entity_name"`
	Country    string `json:"country"`
	NIF        string `json:"nif"`
	Role       string `json:"role"`
}

// NewUser is what creating a user takes; the password arrives already hashed (HashPassword).
type NewUser struct {
	Username     string
	PasswordHash string
	Support      bool
	Lang         string
}

// Session is one signed-in browser of a user.
type Session struct {
	ID         int64     `json:"id"`
	UserID     int64     `json:"-"`
	CreatedAt  string    `json:"created_at"`
	LastSeenAt string    `json:"last_seen_at"`
	ExpiresAt  time.Time `json:"expires_at"`
	UserAgent  string    `json:"user_agent"`
	Address    string    `json:"address"`
}

const userColumns = `id, username, support, disabled, lang, created_at, updated_at`

func scanUser(row interface{ Scan(...any) error }) (User, error) {
	var u User
	err := row.Scan(&u.ID, &u.Username, &u.Support, &u.Disabled, &u.Lang, &u.CreatedAt, &u.UpdatedAt)
	return u, mapError(err)
}

// CreateUser adds a user; ErrConflict when the username is taken.
func (s *Store) CreateUser(ctx context.Context, n NewUser) (User, error) {
	now := s.timestamp()
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO users (username, password_hash, support, lang, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, n.Username, n.PasswordHash, n.Support, n.Lang, now, now).Scan(&id)
	})
	if err != nil {
		return User{}, err
	}
	return s.UserByID(ctx, id)
}

// SetMembership gives a user a role at an entity, replacing the role it had there.
func (s *Store) SetMembership(ctx context.Context, userID, entityID int64, role string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO user_entities (user_id, entity_id, role) VALUES (?, ?, ?)
			ON CONFLICT (user_id, entity_id) DO UPDATE SET role = excluded.role`, userID, entityID, role)
		return err
	})
}

// UserByID reads a user with its memberships.
func (s *Store) UserByID(ctx context.Context, id int64) (User, error) {
	u, err := scanUser(s.reader.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id))
	if err != nil {
		return User{}, err
	}
	return s.withMemberships(ctx, u)
}

// UserByUsername reads a user and its password hash, for signing in.
func (s *Store) UserByUsername(ctx context.Context, username string) (User, string, error) {
	var u User
	var hash string
	err := s.reader.QueryRowContext(ctx, `SELECT `+userColumns+`, password_hash FROM users WHERE username = ?`, username).
		Scan(&u.ID, &u.Username, &u.Support, &u.Disabled, &u.Lang, &u.CreatedAt, &u.UpdatedAt, &hash)
	if err != nil {
		return User{}, "", mapError(err)
	}
	u, err = s.withMemberships(ctx, u)
	return u, hash, err
}

// PasswordHash reads a user's password hash.
func (s *Store) PasswordHash(ctx context.Context, userID int64) (string, error) {
	var hash string
	err := s.reader.QueryRowContext(ctx, `SELECT password_hash FROM users WHERE id = ?`, userID).Scan(&hash)
	return hash, mapError(err)
}

func (s *Store) withMemberships(ctx context.Context, u User) (User, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT e.id, e.name, e.country, e.nif, ue.role
		FROM user_entities ue JOIN entities e ON e.id = ue.entity_id WHERE ue.user_id = ? ORDER BY e.name, e.id`, u.ID)
	if err != nil {
		return User{}, err
	}
	defer rows.Close()
	u.Memberships = []Membership{}
	for rows.Next() {
		var m Membership
		if err := rows.Scan(&m.EntityID, &m.EntityName, &m.Country, &m.NIF, &m.Role); err != nil {
			return User{}, err
		}
		u.Memberships = append(u.Memberships, m)
	}
	return u, rows.Err()
}

// Users lists every user with its memberships, by username.
func (s *Store) Users(ctx context.Context) ([]User, error) {
	return s.listUsers(ctx, `SELECT `+userColumns+` FROM users ORDER BY username`)
}

// listUsers reads the users a query selects (userColumns), each with its memberships.
func (s *Store) listUsers(ctx context.Context, query string, args ...any) ([]User, error) {
	rows, err := s.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	var users []User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		users = append(users, u)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range users {
		if users[i], err = s.withMemberships(ctx, users[i]); err != nil {
			return nil, err
		}
	}
	return users, nil
}

// SetUserDisabled disables or enables a user; disabling ends its sessions.
func (s *Store) SetUserDisabled(ctx context.Context, id int64, disabled bool) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET disabled = ?, updated_at = ? WHERE id = ?`, disabled, s.timestamp(), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		if disabled {
			_, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, id)
		}
		return err
	})
}

// SetPasswordHash replaces a user's password and ends its sessions but keep (0: end them all).
func (s *Store) SetPasswordHash(ctx context.Context, id int64, hash string, keep int64) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?`, hash, s.timestamp(), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ? AND id <> ?`, id, keep)
		return err
	})
}

// SetUserLang records a user's language ("" follows the browser).
func (s *Store) SetUserLang(ctx context.Context, id int64, lang string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE users SET lang = ?, updated_at = ? WHERE id = ?`, lang, s.timestamp(), id)
		return err
	})
}

const sessionColumns = `id, user_id, created_at, last_seen_at, expires_at, user_agent, address`

func scanSession(row interface{ Scan(...any) error }) (Session, error) {
	var ss Session
	var expires int64
	err := row.Scan(&ss.ID, &ss.UserID, &ss.CreatedAt, &ss.LastSeenAt, &expires, &ss.UserAgent, &ss.Address)
	ss.ExpiresAt = time.Unix(expires, 0).UTC()
	return ss, mapError(err)
}

// CreateSession records a signed-in browser under the hash of its cookie's token.
func (s *Store) CreateSession(ctx context.Context, tokenHash []byte, userID int64, expires time.Time, userAgent, address string) (Session, error) {
	now := s.timestamp()
	var ss Session
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		ss, err = scanSession(tx.QueryRowContext(ctx, `INSERT INTO sessions
			(token_hash, user_id, created_at, last_seen_at, expires_at, user_agent, address) VALUES (?, ?, ?, ?, ?, ?, ?)
			RETURNING `+sessionColumns, tokenHash, userID, now, now, expires.Unix(), userAgent, address))
		return err
	})
	return ss, err
}

// SessionByTokenHash finds a session that has not expired at now; ErrNotFound otherwise.
func (s *Store) SessionByTokenHash(ctx context.Context, tokenHash []byte, now time.Time) (Session, error) {
	return scanSession(s.reader.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions
		WHERE token_hash = ? AND expires_at > ?`, tokenHash, now.Unix()))
}

// TouchSession records that a session was used and moves its expiry.
func (s *Store) TouchSession(ctx context.Context, id int64, expires time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE id = ?`,
			s.timestamp(), expires.Unix(), id)
		return err
	})
}

// SessionsOfUser lists a user's live sessions, newest first.
func (s *Store) SessionsOfUser(ctx context.Context, userID int64, now time.Time) ([]Session, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions
		WHERE user_id = ? AND expires_at > ? ORDER BY id DESC`, userID, now.Unix())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		ss, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, ss)
	}
	return out, rows.Err()
}

// DeleteSession ends one of a user's sessions; ErrNotFound when the user has no such session.
func (s *Store) DeleteSession(ctx context.Context, userID, sessionID int64) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ? AND user_id = ?`, sessionID, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// DeleteExpiredSessions removes the sessions that expired before now.
func (s *Store) DeleteExpiredSessions(ctx context.Context, now time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= ?`, now.Unix())
		return err
	})
}
