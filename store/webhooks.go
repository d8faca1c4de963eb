package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
)

// What an entity's own settings do with its webhooks: change one, send it a test event, read its
// delivery log and deliver one event again. Delivery itself is the outbox's (receiving.go).

// WebhookTestEvent is the event a webhook's test sends: it carries no document.
const WebhookTestEvent = "webhook.test"

// UpdateWebhook changes a webhook's address and events, and its key when key is not empty.
func (s *Store) UpdateWebhook(ctx context.Context, id int64, url, key string, events []string) (Webhook, error) {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var keyEnc any
		if key != "" {
			keyEnc = s.secrets.seal([]byte(key))
		}
		res, err := tx.ExecContext(ctx, `UPDATE webhooks SET url = ?, events = ?, key_enc = coalesce(?, key_enc) WHERE id = ?`,
			url, strings.Join(events, ","), keyEnc, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return Webhook{}, err
	}
	return s.WebhookByID(ctx, id)
}

// EnqueueWebhookTest queues a test event to one webhook, due now.
func (s *Store) EnqueueWebhookTest(ctx context.Context, w Webhook) error {
	payload, err := json.Marshal(map[string]any{"event": WebhookTestEvent, "webhook_id": w.ID})
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		now := s.timestamp()
		_, err := tx.ExecContext(ctx, `INSERT INTO outbox (kind, entity_id, payload, next_attempt_at, created_at, updated_at)
			VALUES ('webhook', ?, ?, ?, ?, ?)`, w.EntityID, string(payload), now, now, now)
		return err
	})
}

// WebhookDelivery is one attempt of the delivery log, with its event and the webhook's entity and address.
type WebhookDelivery struct {
	WebhookAttempt
	EntityID int64  `json:"entity_id"`
	Event    string `json:"event"`
	URL      string `json:"url"`
}

// WebhookDeliveries lists the latest attempts at one entity's webhooks or (0) at every entity's, newest
// first.
func (s *Store) WebhookDeliveries(ctx context.Context, entityID int64, limit int) ([]WebhookDelivery, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT a.id, a.outbox_id, a.webhook_id, a.attempt, a.status_code, a.latency_ms,
		coalesce(a.error, ''), a.created_at, w.entity_id, coalesce(`+s.d.jsonText("o.payload", "event")+`, ''), w.url
		FROM webhook_attempts a JOIN webhooks w ON w.id = a.webhook_id JOIN outbox o ON o.id = a.outbox_id
		WHERE ? = 0 OR w.entity_id = ? ORDER BY a.id DESC LIMIT ?`, entityID, entityID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []WebhookDelivery{}
	for rows.Next() {
		var d WebhookDelivery
		if err := rows.Scan(&d.ID, &d.OutboxID, &d.WebhookID, &d.Attempt, &d.StatusCode, &d.LatencyMS, &d.Error, &d.CreatedAt,
			&d.EntityID, &d.Event, &d.URL); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// WebhookAttemptByID reads one attempt with the entity its webhook belongs to.
func (s *Store) WebhookAttemptByID(ctx context.Context, id int64) (WebhookAttempt, int64, error) {
	var a WebhookAttempt
	var entityID int64
	err := s.reader.QueryRowContext(ctx, `SELECT a.id, a.outbox_id, a.webhook_id, a.attempt, a.status_code, a.latency_ms,
		coalesce(a.error, ''), a.created_at, w.entity_id FROM webhook_attempts a JOIN webhooks w ON w.id = a.webhook_id WHERE a.id = ?`, id).
		Scan(&a.ID, &a.OutboxID, &a.WebhookID, &a.Attempt, &a.StatusCode, &a.LatencyMS, &a.Error, &a.CreatedAt, &entityID)
	return a, entityID, mapError(err)
}

// RequeueOutbox makes a finished or waiting outbox item due now for one more attempt.
func (s *Store) RequeueOutbox(ctx context.Context, id int64) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		now := s.timestamp()
		res, err := tx.ExecContext(ctx, `UPDATE outbox SET state = 'pending', next_attempt_at = ?, updated_at = ? WHERE id = ?`, now, now, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}
