package store

import (
	"context"
	"database/sql"
	"encoding/json"
)

// What a page of documents shows beside the documents themselves (their models, files, rejections and
// e-mails), read with one query each for the whole page rather than one per document.

// eachRow runs a query whose one parameter is the list of document ids (as a JSON array, so that
// every page size shares one statement) and hands each row to scan.
func (s *Store) eachRow(ctx context.Context, query string, documentIDs []int64, scan func(*sql.Rows) error) error {
	ids, err := json.Marshal(documentIDs)
	if err != nil {
		return err
	}
	rows, err := s.reader.QueryContext(ctx, query, string(ids))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// DocumentsData reads the models (Data) of documents listed without them.
func (s *Store) DocumentsData(ctx context.Context, docs []Document) error {
	at := make(map[int64]int, len(docs))
	ids := make([]int64, len(docs))
	for i, d := range docs {
		at[d.ID], ids[i] = i, d.ID
	}
	return s.eachRow(ctx, `SELECT document_id, data FROM document_data WHERE document_id IN (`+s.d.idsIn+`)`,
		ids, func(rows *sql.Rows) error {
			var id int64
			var data []byte
			err := rows.Scan(&id, &data)
			docs[at[id]].Data = data
			return err
		})
}

// FilesOfDocuments lists the files of documents, without their content, each document's in the order
// they were stored.
func (s *Store) FilesOfDocuments(ctx context.Context, documentIDs []int64) (map[int64][]File, error) {
	out := map[int64][]File{}
	err := s.eachRow(ctx, `SELECT id, document_id, role, name, mime, size, sha256, created_at
		FROM document_files WHERE document_id IN (`+s.d.idsIn+`) ORDER BY id`, documentIDs, func(rows *sql.Rows) error {
		var f File
		if err := rows.Scan(&f.ID, &f.DocumentID, &f.Role, &f.Name, &f.MIME, &f.Size, &f.SHA256, &f.CreatedAt); err != nil {
			return err
		}
		f.PublicID = s.ids.encode(KindFile, f.ID)
		out[f.DocumentID] = append(out[f.DocumentID], f)
		return nil
	})
	return out, err
}

// Rejection is a rejection of a document, with the recipient that made it.
type Rejection struct {
	DocumentID  int64
	RecipientID int64
	Data        json.RawMessage // the history entry's data: the reason
	CreatedAt   string
}

// RejectionsOfDocuments lists the rejections of documents, oldest first.
func (s *Store) RejectionsOfDocuments(ctx context.Context, documentIDs []int64) (map[int64][]Rejection, error) {
	out := map[int64][]Rejection{}
	err := s.eachRow(ctx, `SELECT document_id, coalesce(recipient_id, 0), coalesce(data, '{}'), created_at FROM document_history
		WHERE document_id IN (`+s.d.idsIn+`) AND kind = 'state' AND state = 'rejected' ORDER BY id`,
		documentIDs, func(rows *sql.Rows) error {
			var r Rejection
			var data string
			err := rows.Scan(&r.DocumentID, &r.RecipientID, &data, &r.CreatedAt)
			r.Data = json.RawMessage(data)
			out[r.DocumentID] = append(out[r.DocumentID], r)
			return err
		})
	return out, err
}

// EmailsOfDocuments lists the e-mails of documents, each document's oldest first.
func (s *Store) EmailsOfDocuments(ctx context.Context, documentIDs []int64) (map[int64][]Email, error) {
	out := map[int64][]Email{}
	err := s.eachRow(ctx, `SELECT `+emailColumns+` FROM emails WHERE document_id IN (`+s.d.idsIn+`) ORDER BY id`,
		documentIDs, func(rows *sql.Rows) error {
			e, err := scanEmail(s.ids, rows)
			out[e.DocumentID] = append(out[e.DocumentID], e)
			return err
		})
	return out, err
}
