package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strconv"
)

// Email is one sending of a document to one address: the record GET /apps/documents/{id} shows in
// emails[] and the mail job's queue entry.
type Email struct {
	ID            int64  `json:"id"`
	PublicID      string `json:"public_id"`
	DocumentID    int64  `json:"document_id"`
	EntityID      int64  `json:"entity_id"`
	Address       string `json:"address"`
	Lang          string `json:"lang"`
	MessageID     string `json:"message_id"`
	State         string `json:"state"` // queued, sent, failed, returned
	Attempts      int    `json:"attempts"`
	NextAttemptAt string `json:"next_attempt_at,omitempty"`
	LastError     string `json:"last_error,omitempty"`
	SentAt        string `json:"sent_at,omitempty"`
	OpenedAt      string `json:"opened_at,omitempty"`
	ReturnedAt    string `json:"returned_at,omitempty"`
	CreatedAt     string `json:"created_at"`
}

// E-mail states.
const (
	EmailQueued   = "queued"
	EmailSent     = "sent"
	EmailFailed   = "failed"
	EmailReturned = "returned" // came back as undeliverable; sent again when next_attempt_at comes
)

// NewEmail is an e-mail to queue: its Message-ID and the hash of its open-tracking token are made by
// the caller.
type NewEmail struct {
	Address       string
	MessageID     string
	OpenTokenHash []byte
}

const emailColumns = `id, document_id, entity_id, address, lang, message_id, state, attempts, coalesce(next_attempt_at, ''),
	coalesce(last_error, ''), coalesce(sent_at, ''), coalesce(opened_at, ''), coalesce(returned_at, ''), created_at`

func scanEmail(ids *publicIDs, row interface{ Scan(...any) error }) (Email, error) {
	var e Email
	err := row.Scan(&e.ID, &e.DocumentID, &e.EntityID, &e.Address, &e.Lang, &e.MessageID, &e.State, &e.Attempts,
		&e.NextAttemptAt, &e.LastError, &e.SentAt, &e.OpenedAt, &e.ReturnedAt, &e.CreatedAt)
	if err != nil {
		return e, mapError(err)
	}
	e.PublicID = ids.encode(KindEmail, e.ID)
	return e, nil
}

func (s *Store) scanEmails(rows *sql.Rows, err error) ([]Email, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Email{}
	for rows.Next() {
		e, err := scanEmail(s.ids, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// QueueEmails adds the sendings of a document, due at once, each with a history entry.
func (t *Tx) QueueEmails(documentID, entityID int64, lang string, emails []NewEmail) error {
	for _, e := range emails {
		var id int64
		if err := t.queryRow(`INSERT INTO emails (document_id, entity_id, address, lang, message_id, open_token_hash,
			next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			documentID, entityID, e.Address, lang, e.MessageID, e.OpenTokenHash, t.now, t.now, t.now).Scan(&id); err != nil {
			return err
		}
		if err := t.addEmailHistory(documentID, id, "email_queued", e.Address, ""); err != nil {
			return err
		}
	}
	return nil
}

func (t *Tx) addEmailHistory(documentID, emailID int64, what, address, detail string) error {
	data := map[string]string{"email_id": strconv.FormatInt(emailID, 10), "address": address}
	if detail != "" {
		data["error"] = detail
	}
	raw, _ := json.Marshal(data)
	return t.AddHistory(HistoryEntry{DocumentID: documentID, Kind: "email", Description: what, Data: raw})
}

// publicEmailID rewrites the e-mail id an e-mail history entry's data holds (as it is stored: the row
// id) as the e-mail's public identifier.
func (s *Store) publicEmailID(data json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return data
	}
	text, _ := m["email_id"].(string)
	id, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return data
	}
	m["email_id"] = s.ids.encode(KindEmail, id)
	out, err := json.Marshal(m)
	if err != nil {
		return data
	}
	return out
}

// DocumentEmails lists a document's e-mails, oldest first.
func (s *Store) DocumentEmails(ctx context.Context, documentID int64) ([]Email, error) {
	return s.scanEmails(s.reader.QueryContext(ctx, `SELECT `+emailColumns+` FROM emails WHERE document_id = ? ORDER BY id`, documentID))
}

// ClaimEmails takes up to limit e-mails to send now (queued, or returned and due again) on which no
// lease runs, and leases them until leaseUntil: another process's claim skips them, and a crash leaves
// them due again once the lease ends (RecordEmails ends it). They come in the order they were queued.
func (s *Store) ClaimEmails(ctx context.Context, now, leaseUntil string, limit int) ([]Email, error) {
	out, err := claim(ctx, s, s.scanEmails, `UPDATE emails SET lease_until = ?
		WHERE id IN (SELECT id FROM emails WHERE state IN ('queued', 'returned') AND next_attempt_at <= ?
			AND (lease_until IS NULL OR lease_until <= ?) ORDER BY next_attempt_at, id LIMIT ?`+s.d.skipLocked+`)
		RETURNING `+emailColumns, leaseUntil, now, now, limit)
	slices.SortFunc(out, func(a, b Email) int { return cmp.Compare(a.ID, b.ID) })
	return out, err
}

// EmailFilter selects e-mails for the support team's list.
type EmailFilter struct {
	EntityID int64  // 0: every entity
	State    string // empty: every state
	Limit    int
}

// Emails lists e-mails, newest first.
func (s *Store) Emails(ctx context.Context, f EmailFilter) ([]Email, error) {
	return s.scanEmails(s.reader.QueryContext(ctx, `SELECT `+emailColumns+` FROM emails
		WHERE (? = 0 OR entity_id = ?) AND (? = '' OR state = ?) ORDER BY id DESC LIMIT ?`,
		f.EntityID, f.EntityID, f.State, f.State, f.Limit))
}

// EmailByID reads one e-mail.
func (s *Store) EmailByID(ctx context.Context, id int64) (Email, error) {
	return scanEmail(s.ids, s.reader.QueryRowContext(ctx, `SELECT `+emailColumns+` FROM emails WHERE id = ?`, id))
}

// EmailByMessageID finds the e-mail a returned message names.
func (s *Store) EmailByMessageID(ctx context.Context, messageID string) (Email, error) {
	return scanEmail(s.ids, s.reader.QueryRowContext(ctx, `SELECT `+emailColumns+` FROM emails WHERE message_id = ?`, messageID))
}

// EmailOutcome is what happened to one e-mail: sent, to be tried again (NextAt), failed, or returned
// (Returned, with NextAt when it will be sent again, else failed for good).
type EmailOutcome struct {
	ID       int64
	Sent     bool
	Returned bool
	NextAt   string // empty when there is no further attempt
	Error    string
}

// RecordEmails writes the outcomes of a batch of sendings in one transaction, with their history, ending
// their leases.
func (s *Store) RecordEmails(ctx context.Context, outcomes []EmailOutcome) error {
	return s.Update(ctx, func(t *Tx) error {
		for _, o := range outcomes {
			state, history := outcomeState(o)
			var next any
			if o.NextAt != "" && !o.Sent {
				next = o.NextAt
			}
			var lastErr any
			if o.Error != "" {
				lastErr = o.Error
			}
			attempt := 1
			if o.Returned {
				attempt = 0 // a returned mail was counted when it was sent
			}
			var documentID int64
			var address string
			if err := t.queryRow(`UPDATE emails SET state = ?, attempts = attempts + ?, next_attempt_at = ?,
				last_error = coalesce(?, last_error), lease_until = NULL, sent_at = CASE WHEN ? = 1 THEN ? ELSE sent_at END,
				returned_at = CASE WHEN ? = 1 THEN ? ELSE returned_at END, updated_at = ? WHERE id = ? RETURNING document_id, address`,
				state, attempt, next, lastErr, o.Sent, t.now, o.Returned, t.now, t.now, o.ID).Scan(&documentID, &address); err != nil {
				return mapError(err)
			}
			if err := t.addEmailHistory(documentID, o.ID, history, address, o.Error); err != nil {
				return err
			}
		}
		return nil
	})
}

// outcomeState is the state an outcome leaves an e-mail in, and its history entry.
func outcomeState(o EmailOutcome) (state, history string) {
	switch {
	case o.Sent:
		return EmailSent, "email_sent"
	case o.Returned && o.NextAt != "":
		return EmailReturned, "email_returned"
	case o.Returned:
		return EmailFailed, "email_returned"
	case o.NextAt != "":
		return EmailQueued, "email_retry"
	}
	return EmailFailed, "email_failed"
}

// MarkEmailOpened records the first reading of the e-mail whose open-tracking token hashes to
// tokenHash; false when no e-mail has that token or it was already read.
func (s *Store) MarkEmailOpened(ctx context.Context, tokenHash []byte) (bool, error) {
	// Reading first keeps requests with unknown or used tokens away from the single writer.
	var unread int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM emails WHERE open_token_hash = ? AND opened_at IS NULL`, tokenHash).Scan(&unread); err != nil || unread == 0 {
		return false, err
	}
	opened := false
	err := s.Update(ctx, func(t *Tx) error {
		var id, documentID int64
		var address string
		err := t.queryRow(`UPDATE emails SET opened_at = ?, updated_at = ? WHERE open_token_hash = ? AND opened_at IS NULL
			RETURNING id, document_id, address`, t.now, t.now, tokenHash).Scan(&id, &documentID, &address)
		if err == sql.ErrNoRows {
			return nil
		}
		if err != nil {
			return err
		}
		opened = true
		return t.addEmailHistory(documentID, id, "email_opened", address, "")
	})
	return opened, err
}
