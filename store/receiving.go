package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// InboxFilter selects an entity's received documents that are neither imported nor rejected, or, with
// Issued, every document the entity issued.
type InboxFilter struct {
	RecipientID int64 // the entity (the issuer, with Issued)
	Issued      bool
	Number      string
	TypeCode    string
	SupplierNIF string
	From, To    string // emission date bounds (inclusive), "" for none
	Offset      int
	Limit       int
}

// Inbox lists an entity's received documents not yet imported or rejected, newest first, and how many
// match in all.
func (s *Store) Inbox(ctx context.Context, f InboxFilter) ([]Document, int, error) {
	where := []string{"recipient_id = ?", "imported_at IS NULL", "state IN ('sent', 'accepted')"}
	order, counter := "id DESC", "inbox"
	if f.Issued { // newest emission first: the order of the issuer's index
		where, order, counter = []string{"issuer_id = ?"}, "emission_date DESC, id DESC", "issued"
	}
	args := []any{f.RecipientID}
	add := func(cond string, v any) { where, args = append(where, cond), append(args, v) }
	if f.Number != "" {
		add("number = ?", f.Number)
	}
	if f.TypeCode != "" {
		add("type_code = ?", f.TypeCode)
	}
	if f.SupplierNIF != "" {
		add("supplier_nif = ?", f.SupplierNIF)
	}
	if f.From != "" {
		add("emission_date >= ?", f.From)
	}
	if f.To != "" {
		add("emission_date <= ?", f.To)
	}
	cond := strings.Join(where, " AND ")
	tx, err := s.reader.BeginTx(ctx, oneSnapshot) // the total and the page agree
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback()
	total, err := listTotal(ctx, tx, len(args) == 1, counter, f.RecipientID, `SELECT count(*) FROM documents WHERE `+cond, args)
	if err != nil {
		return nil, 0, err
	}
	docs, err := s.documentRows(ctx, tx, `SELECT `+documentColumns+` FROM documents WHERE `+cond+` ORDER BY `+order+` LIMIT ? OFFSET ?`,
		append(args, f.Limit, f.Offset)...)
	return docs, total, err
}

// listTotal is a list's total: the kept count when the list is unfiltered, else a count of its rows.
func listTotal(ctx context.Context, tx *sql.Tx, unfiltered bool, counter string, entityID int64, count string, args []any) (int, error) {
	var total int
	var err error
	if unfiltered {
		err = tx.QueryRowContext(ctx, `SELECT coalesce((SELECT `+counter+` FROM entity_counts WHERE entity_id = ?), 0)`, entityID).Scan(&total)
	} else {
		err = tx.QueryRowContext(ctx, count, args...).Scan(&total)
	}
	return total, err
}

// DocumentByID reads a document inside the transaction, and locks it until the transaction ends (on
// PostgreSQL, where transactions run side by side): what the transaction decides from the document
// holds when it writes it.
func (t *Tx) DocumentByID(id int64) (Document, error) {
	return scanDocument(t.ids, t.queryRow(`SELECT `+documentColumns+` FROM documents WHERE id = ?`+t.d.forUpdate, id))
}

// MarkImported records that the recipient imported the document (once: a repeat changes nothing and
// reports false).
func (t *Tx) MarkImported(id int64) (bool, error) {
	res, err := t.exec(`UPDATE documents SET imported_at = ?, updated_at = ? WHERE id = ? AND imported_at IS NULL`, t.now, t.now, id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SetProcessState records the recipient's process state on a document.
func (t *Tx) SetProcessState(id int64, code string) error {
	_, err := t.exec(`UPDATE documents SET process_state = ?, process_state_at = ?, updated_at = ? WHERE id = ?`, code, t.now, t.now, id)
	return err
}

// ProcessState is a state an entity can give the documents it receives.
type ProcessState struct {
	ID          int64  `json:"id"`
	EntityID    int64  `json:"entity_id"`
	Code        string `json:"identification_code"`
	Name        string `json:"name"`
	Description string `json:"description"`
	CreatedAt   string `json:"created_at"`
}

const processStateColumns = `id, entity_id, code, name, description, created_at`

func scanProcessState(row interface{ Scan(...any) error }) (ProcessState, error) {
	var p ProcessState
	err := row.Scan(&p.ID, &p.EntityID, &p.Code, &p.Name, &p.Description, &p.CreatedAt)
	return p, mapError(err)
}

// ProcessStates lists an entity's process states by code.
func (s *Store) ProcessStates(ctx context.Context, entityID int64) ([]ProcessState, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+processStateColumns+` FROM process_states WHERE entity_id = ? ORDER BY code`, entityID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ProcessState{}
	for rows.Next() {
		p, err := scanProcessState(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// CreateProcessState adds a process state; ErrConflict when the entity has the code already.
func (s *Store) CreateProcessState(ctx context.Context, p ProcessState) (ProcessState, error) {
	var out ProcessState
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = scanProcessState(tx.QueryRowContext(ctx, `INSERT INTO process_states (entity_id, code, name, description, created_at)
			VALUES (?, ?, ?, ?, ?) RETURNING `+processStateColumns, p.EntityID, p.Code, p.Name, p.Description, s.timestamp()))
		return err
	})
	return out, err
}

// DeleteProcessState removes one of an entity's process states; ErrNotFound when it has no such code.
func (s *Store) DeleteProcessState(ctx context.Context, entityID int64, code string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM process_states WHERE entity_id = ? AND code = ?`, entityID, code)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// ProcessState finds one of an entity's process states by code.
func (t *Tx) ProcessState(entityID int64, code string) (ProcessState, error) {
	return scanProcessState(t.queryRow(`SELECT `+processStateColumns+` FROM process_states
		WHERE entity_id = ? AND code = ?`, entityID, code))
}

// Webhook is where an entity's document events are posted.
type Webhook struct {
	ID        int64    `json:"id"`
	EntityID  int64    `json:"entity_id"`
	URL       string   `json:"url"`
	Key       string   `json:"-"`
	Events    []string `json:"events"`
	CreatedAt string   `json:"created_at"`
}

// CreateWebhook stores a webhook; its key is encrypted.
func (s *Store) CreateWebhook(ctx context.Context, w Webhook) (Webhook, error) {
	err := s.write(ctx, func(tx *sql.Tx) error {
		w.CreatedAt = s.timestamp()
		return tx.QueryRowContext(ctx, `INSERT INTO webhooks (entity_id, url, key_enc, events, created_at) VALUES (?, ?, ?, ?, ?)
			RETURNING id`, w.EntityID, w.URL, s.secrets.seal([]byte(w.Key)), strings.Join(w.Events, ","), w.CreatedAt).Scan(&w.ID)
	})
	return w, err
}

const webhookColumns = `id, entity_id, url, key_enc, events, created_at`

func (s *Store) scanWebhook(row interface{ Scan(...any) error }) (Webhook, error) {
	var w Webhook
	var key []byte
	var events string
	if err := row.Scan(&w.ID, &w.EntityID, &w.URL, &key, &events, &w.CreatedAt); err != nil {
		return w, mapError(err)
	}
	plain, err := s.secrets.open(key)
	if err != nil {
		return w, fmt.Errorf("webhook %d: %w", w.ID, err)
	}
	w.Key, w.Events = string(plain), strings.Split(events, ",")
	return w, nil
}

// Webhooks lists the webhooks of an entity (every entity's with 0), keys decrypted.
func (s *Store) Webhooks(ctx context.Context, entityID int64) ([]Webhook, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE ? = 0 OR entity_id = ? ORDER BY id`, entityID, entityID)
	return s.scanWebhooks(rows, err)
}

// scanWebhooks reads the webhooks of a query of webhookColumns.
func (s *Store) scanWebhooks(rows *sql.Rows, err error) ([]Webhook, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Webhook{}
	for rows.Next() {
		w, err := s.scanWebhook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// FailingWebhooks lists an entity's webhooks whose latest delivery attempt failed (an error, or a status
// outside 2xx).
func (s *Store) FailingWebhooks(ctx context.Context, entityID int64) ([]Webhook, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+webhookColumns+` FROM webhooks w WHERE entity_id = ? AND EXISTS (
		SELECT 1 FROM webhook_attempts a WHERE a.id = (SELECT max(id) FROM webhook_attempts WHERE webhook_id = w.id)
		AND (coalesce(a.error, '') != '' OR a.status_code NOT BETWEEN 200 AND 299)) ORDER BY id`, entityID)
	return s.scanWebhooks(rows, err)
}

// WebhookByID reads one webhook with its key.
func (s *Store) WebhookByID(ctx context.Context, id int64) (Webhook, error) {
	return s.scanWebhook(s.reader.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = ?`, id))
}

// DeleteWebhook removes a webhook and its pending deliveries.
func (s *Store) DeleteWebhook(ctx context.Context, id int64) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM webhooks WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `UPDATE outbox SET state = 'failed', last_error = 'webhook deleted', updated_at = ?
			WHERE kind = 'webhook' AND state = 'pending' AND `+s.d.jsonInt("payload", "webhook_id")+` = ?`, s.timestamp(), id)
		return err
	})
}

// EnqueueWebhooks adds one delivery to the outbox for each of the entity's webhooks that takes the
// event. The payload gets the webhook's id.
func (t *Tx) EnqueueWebhooks(entityID, documentID int64, event string, payload map[string]any) error {
	p := map[string]any{"event": event}
	for k, v := range payload {
		p[k] = v
	}
	body, err := json.Marshal(p)
	if err != nil {
		return err
	}
	// One statement for every webhook of the entity that takes the event (events are stored joined
	// by commas), each payload the object marshalled here (never empty: it has the event) with the
	// webhook's id put first. No ORDER BY: with one, SQLite plans the statement again whenever the
	// entity id changes to or from 0 or 1.
	return t.later(&t.webhooks, `INSERT INTO outbox (kind, entity_id, document_id, payload, next_attempt_at,
		created_at, updated_at)
		SELECT 'webhook', entity_id, ?, '{"webhook_id":' || id || ',' || substr(?, 2), ?, ?, ? FROM webhooks
		WHERE entity_id = ? AND instr(',' || events || ',', ',' || ? || ',') > 0`,
		nullID(documentID), string(body), t.now, t.now, t.now, entityID, event)
}

// OutboxItem is one piece of pending work.
type OutboxItem struct {
	ID         int64
	PublicID   string // a webhook event's webhook-id
	Kind       string
	EntityID   int64
	DocumentID int64
	Payload    json.RawMessage
	Attempts   int
	CreatedAt  string
}

// ClaimOutbox takes up to limit rows of a kind whose time has come and no lease runs, and leases them
// until leaseUntil: another process's claim skips them, and a crash leaves them due again once the
// lease ends (RecordOutbox ends it). They come in the order they were queued.
func (s *Store) ClaimOutbox(ctx context.Context, kind, now, leaseUntil string, limit int) ([]OutboxItem, error) {
	out, err := claim(ctx, s, s.scanOutbox, `UPDATE outbox SET lease_until = ?
		WHERE id IN (SELECT id FROM outbox WHERE kind = ? AND state = 'pending' AND next_attempt_at <= ?
			AND (lease_until IS NULL OR lease_until <= ?) ORDER BY next_attempt_at, id LIMIT ?`+s.d.skipLocked+`)
		RETURNING `+outboxColumns, leaseUntil, kind, now, now, limit)
	slices.SortFunc(out, func(a, b OutboxItem) int { return cmp.Compare(a.ID, b.ID) })
	return out, err
}

const outboxColumns = `id, kind, coalesce(entity_id, 0), coalesce(document_id, 0), payload, attempts, created_at`

func (s *Store) scanOutbox(rows *sql.Rows, err error) ([]OutboxItem, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []OutboxItem
	for rows.Next() {
		var o OutboxItem
		var payload string
		if err := rows.Scan(&o.ID, &o.Kind, &o.EntityID, &o.DocumentID, &payload, &o.Attempts, &o.CreatedAt); err != nil {
			return nil, err
		}
		o.Payload = json.RawMessage(payload)
		o.PublicID = s.ids.encode(KindDelivery, o.ID)
		out = append(out, o)
	}
	return out, rows.Err()
}

// OutboxResult is the outcome of one attempt at an outbox item.
type OutboxResult struct {
	ID      int64
	Done    bool
	Failed  bool   // no attempt left
	NextAt  string // when not done: the next attempt
	Error   string
	Attempt *WebhookAttempt
}

// WebhookAttempt is one delivery attempt of a webhook event.
type WebhookAttempt struct {
	ID         int64  `json:"id"`
	OutboxID   int64  `json:"outbox_id"`
	WebhookID  int64  `json:"webhook_id"`
	Attempt    int    `json:"attempt"`
	StatusCode int    `json:"status_code"`
	LatencyMS  int64  `json:"latency_ms"`
	Error      string `json:"error,omitempty"`
	CreatedAt  string `json:"created_at"`
}

// RecordOutbox writes the outcomes of a batch of attempts in one transaction, ending their leases.
func (s *Store) RecordOutbox(ctx context.Context, results []OutboxResult) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		now := s.timestamp()
		for _, r := range results {
			state, next := "pending", r.NextAt
			switch {
			case r.Done:
				state, next = "done", now
			case r.Failed:
				state, next = "failed", now
			}
			var lastErr any
			if r.Error != "" {
				lastErr = r.Error
			}
			if _, err := tx.ExecContext(ctx, `UPDATE outbox SET state = ?, attempts = attempts + 1, next_attempt_at = ?, last_error = ?,
				lease_until = NULL, updated_at = ? WHERE id = ?`, state, next, lastErr, now, r.ID); err != nil {
				return err
			}
			if a := r.Attempt; a != nil {
				var e any
				if a.Error != "" {
					e = a.Error
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_attempts (outbox_id, webhook_id, attempt, status_code, latency_ms, error,
					created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`, r.ID, a.WebhookID, a.Attempt, a.StatusCode, a.LatencyMS, e, now); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// WebhookAttempts lists the latest attempts, of one webhook or (0) of all, newest first.
func (s *Store) WebhookAttempts(ctx context.Context, webhookID int64, limit int) ([]WebhookAttempt, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT id, outbox_id, webhook_id, attempt, status_code, latency_ms, coalesce(error, ''), created_at
		FROM webhook_attempts WHERE ? = 0 OR webhook_id = ? ORDER BY id DESC LIMIT ?`, webhookID, webhookID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []WebhookAttempt{}
	for rows.Next() {
		var a WebhookAttempt
		if err := rows.Scan(&a.ID, &a.OutboxID, &a.WebhookID, &a.Attempt, &a.StatusCode, &a.LatencyMS, &a.Error, &a.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// MAC authenticates a message with a key derived from the installation's secret key for one purpose
// (for example the tokens of public download links).
func (s *Store) MAC(purpose string, msg []byte) []byte { return s.secrets.mac(purpose, msg) }
