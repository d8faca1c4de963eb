package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
)

// KeepRenderedPDF stores the visual PDF rendered for a document after it was made, once per version of
// the document: only while the document is still the version it was rendered from (its edits count)
// and has no PDF yet. It returns the document's PDF as stored: the one kept here, or the one another
// caller kept first. ErrConflict when the document was edited meanwhile (the PDF is of an older
// version); ErrNotFound when it is gone.
func (s *Store) KeepRenderedPDF(ctx context.Context, f File, edits int) (File, error) {
	var out File
	err := s.write(ctx, func(tx *sql.Tx) error {
		var current int
		if err := tx.QueryRowContext(ctx, `SELECT edits FROM documents WHERE id = ?`+s.d.forUpdate, f.DocumentID).Scan(&current); err != nil {
			return err
		}
		if current != edits {
			return ErrConflict
		}
		sum := sha256.Sum256(f.Content)
		now := s.timestamp()
		res, err := tx.ExecContext(ctx, `INSERT INTO document_files (document_id, role, name, mime, size, sha256, content, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			f.DocumentID, FilePDF, f.Name, f.MIME, len(f.Content), sum[:], f.Content, now)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 1 {
			if _, err := tx.ExecContext(ctx, `UPDATE documents SET has_pdf = 1 WHERE id = ?`, f.DocumentID); err != nil {
				return err
			}
		}
		return tx.QueryRowContext(ctx, `SELECT id, document_id, role, name, mime, size, sha256, content, created_at
			FROM document_files WHERE document_id = ? AND role = ?`, f.DocumentID, FilePDF).
			Scan(&out.ID, &out.DocumentID, &out.Role, &out.Name, &out.MIME, &out.Size, &out.SHA256, &out.Content, &out.CreatedAt)
	})
	return out, err
}
