package store

import (
	"context"
	"database/sql"
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

// SetConnectionObservation records the support team's observation on a connection (empty clears it).
func (s *Store) SetConnectionObservation(ctx context.Context, id int64, observation string) (Connection, error) {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var obs, at any
		if observation != "" {
			obs, at = observation, s.timestamp()
		}
		res, err := tx.ExecContext(ctx, `UPDATE connections SET admin_observation = ?, admin_observation_at = ?, updated_at = ?
			WHERE id = ?`, obs, at, s.timestamp(), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return Connection{}, err
	}
	return s.ConnectionByID(ctx, id)
}
