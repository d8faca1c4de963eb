package store

import (
	"context"
	"database/sql"
)

// claim runs, in a transaction of its own, a statement that leases due rows (UPDATE … SET lease_until
// … WHERE id IN (a sub-select ending with the dialect's skipLocked) RETURNING …), and reads the rows it
// returns with scan. The rows a concurrent claim holds are skipped, not waited for: waiting would claim
// them again once that claim commits.
func claim[T any](ctx context.Context, s *Store, scan func(*sql.Rows, error) ([]T, error), query string, args ...any) ([]T, error) {
	var out []T
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = scan(tx.QueryContext(ctx, query, args...))
		return err
	})
	return out, err
}

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
