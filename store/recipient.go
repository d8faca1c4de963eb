package store

import (
	"context"
)

// A document's recipient-side state belongs to one recipient. When an edit sends the document to
// another customer, the previous recipient is cut off: what it did with the document is reset on the
// document, its history entries stay its own (each entry records the recipient the document had when
// it was written), and what was still on its way to it is cancelled.

// CutOffRecipient ends what a document's previous recipient had of it, inside the edit that sends the
// document to another: its import and process state are cleared, and the webhook events for it
// (previousRecipientID, 0 when it was not an entity here) and the e-mails to the previous addresses
// that were not yet delivered are cancelled.
func (t *Tx) CutOffRecipient(documentID, previousRecipientID int64) error {
	const why = "the document went to another recipient"
	if _, err := t.exec(`UPDATE documents SET imported_at = NULL, process_state = NULL, process_state_at = NULL,
		updated_at = ? WHERE id = ?`, t.now, documentID); err != nil {
		return err
	}
	if previousRecipientID != 0 {
		if _, err := t.exec(`UPDATE outbox SET state = 'failed', last_error = ?, updated_at = ?
			WHERE document_id = ? AND entity_id = ? AND state = 'pending'`, why, t.now, documentID, previousRecipientID); err != nil {
			return err
		}
	}
	_, err := t.exec(`UPDATE emails SET state = 'failed', next_attempt_at = NULL, last_error = ?, updated_at = ?
		WHERE document_id = ? AND state IN ('queued', 'returned')`, why, t.now, documentID)
	return err
}

// RecipientHistory lists, oldest first, what a recipient may see of a document's history: the entries
// written while it was the document's recipient, without the issuer's e-mail records.
func (s *Store) RecipientHistory(ctx context.Context, documentID, recipientID int64) ([]HistoryEntry, error) {
	return s.history(ctx, `document_id = ? AND recipient_id = ? AND kind <> 'email'`, documentID, recipientID)
}
