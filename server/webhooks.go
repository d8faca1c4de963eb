package server

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"einvoice/store"
)

// Webhook delivery: the issuing and receiving workflows put one outbox row per event and webhook in
// the same transaction as the change; this job claims them (leased, so that the processes sharing a
// database never post one event at the same time) and posts them. Each event is delivered at least
// once: a row is marked done only after a 2xx, so a crash retries it when its lease ends, and its
// webhook-id stays the same so that receivers can drop duplicates. Failures are retried on the
// configured schedule.

const jobWebhooks = "webhooks"

// webhookBatch is how many due events one pass of the job takes.
const webhookBatch = 200

// webhookPayload is what an outbox row of kind webhook carries.
type webhookPayload struct {
	WebhookID     int64  `json:"webhook_id"`
	Event         string `json:"event"`
	State         string `json:"state,omitempty"`
	PreviousState string `json:"previous_state,omitempty"`
}

// webhookBody is what a receiver gets.
type webhookBody struct {
	Event     string `json:"event"`
	EventID   string `json:"event_id"`
	CreatedAt string `json:"created_at"`
	Data      any    `json:"data"`
}

// deliverWebhooks claims every due event, a batch at a time, and posts it, until none is due.
func (s *Server) deliverWebhooks(ctx context.Context) error {
	for ctx.Err() == nil {
		now, leaseUntil := s.claimTimes()
		due, err := s.store.ClaimOutbox(ctx, "webhook", now, leaseUntil, webhookBatch)
		if err != nil || len(due) == 0 {
			return err
		}
		results := make([]store.OutboxResult, len(due))
		hooks := &webhookCache{s: s, byID: map[int64]*store.Webhook{}}
		sem := make(chan struct{}, s.cfg.Webhooks.Concurrency)
		var wg sync.WaitGroup
		for i, item := range due {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				results[i] = s.deliverOne(ctx, item, hooks)
			}()
		}
		wg.Wait()
		// The outcomes are written even when the job is being stopped: what was delivered stays delivered.
		if err := s.store.RecordOutbox(context.WithoutCancel(ctx), results); err != nil {
			return err
		}
		if len(due) < webhookBatch {
			return nil
		}
	}
	return ctx.Err()
}

// webhookCache loads each webhook of a batch once.
type webhookCache struct {
	s    *Server
	mu   sync.Mutex
	byID map[int64]*store.Webhook
}

func (c *webhookCache) get(ctx context.Context, id int64) (*store.Webhook, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w, ok := c.byID[id]; ok {
		return w, nil
	}
	w, err := c.s.store.WebhookByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		c.byID[id] = nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c.byID[id] = &w
	return &w, nil
}

// deliverOne makes one attempt at one event and says what to record.
func (s *Server) deliverOne(ctx context.Context, item store.OutboxItem, hooks *webhookCache) store.OutboxResult {
	result := store.OutboxResult{ID: item.ID}
	var p webhookPayload
	if err := json.Unmarshal(item.Payload, &p); err != nil {
		result.Failed, result.Error = true, "unreadable payload: "+err.Error()
		return result
	}
	hook, err := hooks.get(ctx, p.WebhookID)
	if err != nil {
		return s.retry(result, item, err.Error())
	}
	if hook == nil {
		result.Failed, result.Error = true, "webhook deleted"
		return result
	}
	body, err := s.webhookBody(ctx, item, p)
	if errors.Is(err, errNotAParty) {
		result.Failed, result.Error = true, err.Error()
		return result
	}
	if err != nil {
		return s.retry(result, item, err.Error())
	}
	id := eventID(item)
	start := time.Now()
	status, sendErr := s.postWebhook(ctx, hook, id, body)
	attempt := &store.WebhookAttempt{WebhookID: hook.ID, Attempt: item.Attempts + 1, StatusCode: status, LatencyMS: time.Since(start).Milliseconds()}
	result.Attempt = attempt
	switch {
	case sendErr != nil:
		attempt.Error = sendErr.Error()
	case status < 200 || status > 299:
		attempt.Error = "HTTP " + strconv.Itoa(status)
	default:
		result.Done = true
		return result
	}
	if p.Event == store.WebhookTestEvent { // a test tells how the receiver answers now: it is not tried again
		result.Failed, result.Error = true, attempt.Error
		return result
	}
	return s.retry(result, item, attempt.Error)
}

// retry schedules the next attempt, or gives up after the last one.
func (s *Server) retry(r store.OutboxResult, item store.OutboxItem, reason string) store.OutboxResult {
	r.Error = reason
	schedule := s.cfg.Webhooks.RetrySchedule
	if item.Attempts >= len(schedule) {
		r.Failed = true
		return r
	}
	r.NextAt = s.now().Add(schedule[item.Attempts]).UTC().Format(store.TimeLayout)
	return r
}

// eventID is an event's event_id and webhook-id, the same on every attempt.
func eventID(item store.OutboxItem) string { return "evt_" + item.PublicID }

// webhookBody is the event with the document as GET /apps/documents/{id} shows it to the webhook's
// entity, with public download links made for that entity. An entity that is no longer a party to the
// document (an edit changed the customer) gets nothing: errNotAParty.
func (s *Server) webhookBody(ctx context.Context, item store.OutboxItem, p webhookPayload) ([]byte, error) {
	if p.Event == store.WebhookTestEvent {
		return s.webhookTestBody(ctx, item, p)
	}
	d, err := s.store.DocumentByID(ctx, item.DocumentID)
	if err != nil {
		return nil, err
	}
	if !isParty(d, item.EntityID) {
		return nil, errNotAParty
	}
	view, err := s.documentView(ctx, d, item.EntityID, s.publicFileURL(d, item.EntityID), "pt")
	if err != nil {
		return nil, err
	}
	return json.Marshal(webhookBody{Event: p.Event, EventID: eventID(item), CreatedAt: item.CreatedAt, Data: view})
}

// webhookTestBody is a test event: the entity it is for, and no document.
func (s *Server) webhookTestBody(ctx context.Context, item store.OutboxItem, p webhookPayload) ([]byte, error) {
	e, err := s.store.EntityByID(ctx, item.EntityID)
	if err != nil {
		return nil, err
	}
	data := map[string]any{"test": true, "entity": map[string]string{"name": e.Name, "nif": e.Country + e.NIF}}
	return json.Marshal(webhookBody{Event: p.Event, EventID: eventID(item), CreatedAt: item.CreatedAt, Data: data})
}

// webhookClient posts events: it follows no redirect (a 3xx is a failure) and bounds each request.
func (s *Server) webhookClient() *http.Client {
	s.webhookOnce.Do(func() {
		s.webhookHTTP = &http.Client{
			Timeout:       s.cfg.Webhooks.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Transport:     &http.Transport{MaxIdleConnsPerHost: s.cfg.Webhooks.Concurrency, IdleConnTimeout: time.Minute},
		}
	})
	return s.webhookHTTP
}

// postWebhook sends one event with the Bearer key and the Standard Webhooks signature headers.
func (s *Server) postWebhook(ctx context.Context, hook *store.Webhook, id string, body []byte) (int, error) {
	ts := strconv.FormatInt(s.now().Unix(), 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "einvoice-webhooks/1")
	req.Header.Set("Authorization", "Bearer "+hook.Key)
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", ts)
	req.Header.Set("webhook-signature", WebhookSignature(hook.Key, id, ts, body))
	resp, err := s.webhookClient().Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}

// WebhookSignature is the Standard Webhooks signature: "v1," and the base64 HMAC-SHA256 of
// "id.timestamp.body". A key written "whsec_<base64>" signs with the bytes it encodes, as the standard
// says; any other key signs with its own bytes.
func WebhookSignature(key, id, timestamp string, body []byte) string {
	secret := []byte(key)
	if rest, ok := strings.CutPrefix(key, "whsec_"); ok {
		if b, err := base64.StdEncoding.DecodeString(rest); err == nil {
			secret = b
		}
	}
	m := hmac.New(sha256.New, secret)
	fmt.Fprintf(m, "%s.%s.", id, timestamp)
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}
