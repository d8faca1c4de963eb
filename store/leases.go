package store

import (
	"context"
	"database/sql"
)

// ReleaseLeases ends every lease on deliveries (outbox, e-mails, EDI), so that work a dead process had
// claimed is due at once. Only for a database one serving process owns (SQLite), when that process
// starts: no other process can be working on them. On a shared database (PostgreSQL) leases end by
// themselves, since another live process may hold them; ReleaseLeases then does nothing.
func (s *Store) ReleaseLeases(ctx context.Context) error {
	if s.d.shared {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, table := range []string{"outbox", "emails", "edi_deliveries"} {
			if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET lease_until = NULL WHERE lease_until IS NOT NULL`); err != nil {
				return err
			}
		}
		return nil
	})
}
