package store

import (
	"context"
)

// What the support console reads and changes beyond the other files' operations.

// CredentialEntity is an entity a credential may act for.
type CredentialEntity struct {
	CredentialID int64
	Entity       EntityRef
	Handshake    bool // the legacy handshake is done (platform tokens)
}

// Authorizations lists which entities each credential may act for, by credential then entity name.
func (s *Store) Authorizations(ctx context.Context) ([]CredentialEntity, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT a.credential_id, e.id, e.name, e.country, e.nif, a.handshake_at IS NOT NULL
		FROM authorizations a JOIN entities e ON e.id = a.entity_id ORDER BY a.credential_id, e.name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []CredentialEntity
	for rows.Next() {
		var a CredentialEntity
		if err := rows.Scan(&a.CredentialID, &a.Entity.ID, &a.Entity.Name, &a.Entity.Country, &a.Entity.NIF, &a.Handshake); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// ConnectionsInState is one page of every entity's connections, of one state (every state when
// empty), newest first, and how many there are in all.
func (s *Store) ConnectionsInState(ctx context.Context, state string, offset, limit int) ([]Connection, int, error) {
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM connections WHERE ? = '' OR state = ?`, state, state).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := s.reader.QueryContext(ctx, connectionSelect+` WHERE ? = '' OR c.state = ? ORDER BY c.id DESC LIMIT ? OFFSET ?`,
		state, state, limit, offset)
	out, err := scanConnections(s.ids, rows, err)
	return out, total, err
}
