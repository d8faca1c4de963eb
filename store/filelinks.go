package store

import (
	"context"
	"errors"
)

// LinksRevokedBefore is when a party of a document last revoked its public file links (unix
// nanoseconds): links it was given before then no longer work. 0 when it never did.
func (s *Store) LinksRevokedBefore(ctx context.Context, documentID, entityID int64) (int64, error) {
	var ns int64
	err := mapError(s.reader.QueryRowContext(ctx, `SELECT revoked_before FROM file_link_revocations WHERE document_id = ? AND entity_id = ?`,
		documentID, entityID).Scan(&ns))
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	return ns, err
}

// RevokeLinks revokes the public file links a party of a document was given before ns (unix
// nanoseconds).
func (t *Tx) RevokeLinks(documentID, entityID, ns int64) error {
	_, err := t.exec(`INSERT INTO file_link_revocations (document_id, entity_id, revoked_before) VALUES (?, ?, ?)
		ON CONFLICT (document_id, entity_id) DO UPDATE SET revoked_before = excluded.revoked_before
		WHERE excluded.revoked_before > file_link_revocations.revoked_before`,
		documentID, entityID, ns)
	return err
}
