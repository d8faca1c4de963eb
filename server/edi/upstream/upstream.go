// Package upstream is the EDI connector to an upstream broker: another service offering this same API
// (another einvoice installation, or the hosted incumbent) where an entity here is registered and
// connected with the public entities it sends to. A delivery is POST /apps/documentsUBL there as that
// entity; what becomes of the document is read from its states report and confirmed as read. Tokens
// are taken with the signed client-credentials grant and renewed before they expire, and requests are
// spaced to stay within the broker's rate limit.
package upstream

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"einvoice/server/edi"
)

// Config is one upstream broker as configured here.
type Config struct {
	BaseURL   string // up to the language: https://broker.example/api/v1/pt
	ClientID  string
	Secret    string
	PublicKey string // the entity's public key there
}

// Lookup finds an upstream's configuration by the name connections give it.
type Lookup func(ctx context.Context, name string) (Config, error)

// RequestsPerMinute is the rate limit this connector keeps to with each broker.
const RequestsPerMinute = 200

// Limits of what is read from a broker.
const (
	maxAnswer   = 4 << 20 // bytes of one answer
	reportRows  = 100     // states-report events read at once
	tokenMargin = time.Minute
)

// Connector delivers to upstream brokers and reads back their states.
type Connector struct {
	lookup Lookup
	http   *http.Client
	now    func() time.Time

	mu      sync.Mutex
	brokers map[string]*broker // by name
}

// broker is what the connector keeps per upstream: its token and its request pacing.
type broker struct {
	mu      sync.Mutex
	token   string
	expires time.Time
	next    time.Time // the earliest time the next request may go
}

// New makes a connector that finds upstreams with lookup.
func New(lookup Lookup, client *http.Client) *Connector {
	if client == nil {
		client = &http.Client{Timeout: time.Minute}
	}
	return &Connector{lookup: lookup, http: client, now: time.Now, brokers: map[string]*broker{}}
}

var (
	_ edi.Connector = (*Connector)(nil)
	_ edi.Poller    = (*Connector)(nil)
)

func (c *Connector) broker(name string) *broker {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.brokers[name]
	if b == nil {
		b = &broker{}
		c.brokers[name] = b
	}
	return b
}

// Deliver creates the document at the broker. A document the broker already has (a delivery repeated
// after a crash) counts as delivered; one the broker refuses, or keeps without delivering it (no
// connection there), is a permanent failure with the broker's reasons.
func (c *Connector) Deliver(ctx context.Context, d edi.Delivery) (edi.Receipt, error) {
	if d.Kind != edi.KindDocument {
		return edi.Receipt{}, edi.Permanent{Err: errors.New("an upstream broker takes documents only")}
	}
	var answer struct {
		Response struct {
			Data struct {
				ID     string `json:"id"`
				State  alias  `json:"state_document"`
				ToSend struct {
					Code string `json:"code"`
				} `json:"to_send_status"`
			} `json:"data"`
		} `json:"response"`
		Errors map[string]struct {
			Code    string         `json:"code"`
			Msg     string         `json:"msg"`
			Details map[string]any `json:"details"`
		} `json:"errors"`
	}
	status, err := c.call(ctx, d.Partner, http.MethodPost, "/apps/documentsUBL?disable_xml_sign=1&disable_pdf_sign=1", "application/xml", d.Payload, &answer)
	switch {
	case err != nil:
		return edi.Receipt{}, err
	case status == http.StatusCreated || status == http.StatusOK:
		data := answer.Response.Data
		if data.State.Alias == "tosend" {
			return edi.Receipt{}, edi.Permanent{Err: fmt.Errorf("the upstream broker keeps it undelivered: %s", data.ToSend.Code)}
		}
		return edi.Receipt{MessageID: d.MessageID, RemoteID: data.ID}, nil
	case status == http.StatusBadRequest:
		if e, ok := answer.Errors["number"]; ok && e.Code == "e200" {
			if id, _ := e.Details["id"].(string); id != "" {
				return edi.Receipt{MessageID: d.MessageID, RemoteID: id}, nil
			}
		}
		var reasons []string
		for field, e := range answer.Errors {
			reasons = append(reasons, field+": "+e.Code+" "+e.Msg)
		}
		return edi.Receipt{}, edi.Permanent{Err: fmt.Errorf("the upstream broker refused it: %s", strings.Join(reasons, "; "))}
	}
	return edi.Receipt{}, fmt.Errorf("the upstream broker answered %d", status)
}

type alias struct {
	Alias string `json:"alias"`
}

// Poll reads the broker's unread states report and says what each change amounts to.
func (c *Connector) Poll(ctx context.Context, partner string) ([]edi.Update, error) {
	var report struct {
		Response struct {
			Data []struct {
				ID         string `json:"id"`
				DocumentID string `json:"document_id"`
				State      alias  `json:"state_document"`
				EDIState   alias  `json:"state_edi_document"`
			} `json:"data"`
		} `json:"response"`
	}
	status, err := c.call(ctx, partner, http.MethodGet, "/apps/states-report/documents?order=asc&rows="+strconv.Itoa(reportRows), "", nil, &report)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("the upstream broker's states report answered %d", status)
	}
	out := make([]edi.Update, 0, len(report.Response.Data))
	for _, e := range report.Response.Data {
		u := edi.Update{EventID: e.ID, RemoteID: e.DocumentID, Code: CodeOf(e.State.Alias, e.EDIState.Alias)}
		if u.Code == "14" || u.Code == "22" || u.Code == "ERROR" {
			if u.Description, err = c.reason(ctx, partner, e.DocumentID); err != nil {
				return nil, err
			}
		}
		out = append(out, u)
	}
	return out, nil
}

// CodeOf is the eSPap status code a document's state at the broker amounts to; empty for a state that
// tells nothing new (not yet delivered, or only delivered).
func CodeOf(state, ediState string) string {
	switch ediState {
	case "error":
		return "ERROR"
	case "regularization":
		return "14"
	case "returned":
		return "22"
	case "in_payment":
		return "33"
	case "paid":
		return "29"
	}
	switch {
	case state == "accepted":
		return "11"
	case state == "rejected":
		return "14"
	case state == "sent" && ediState == "accepted":
		return "ACCEPTED"
	}
	return ""
}

// reason is the latest rejection reason the broker shows for a document.
func (c *Connector) reason(ctx context.Context, partner, documentID string) (string, error) {
	var doc struct {
		Response struct {
			Data struct {
				Reasons []struct {
					Reason string `json:"reason"`
				} `json:"reasons"`
			} `json:"data"`
		} `json:"response"`
	}
	status, err := c.call(ctx, partner, http.MethodGet, "/apps/documents/"+url.PathEscape(documentID), "", nil, &doc)
	if err != nil || status != http.StatusOK {
		return "", err
	}
	if r := doc.Response.Data.Reasons; len(r) > 0 {
		return r[len(r)-1].Reason, nil
	}
	return "", nil
}

// Confirm marks the states-report events read at the broker.
func (c *Connector) Confirm(ctx context.Context, partner string, updates []edi.Update) error {
	ids := make([]string, len(updates))
	for i, u := range updates {
		ids[i] = u.EventID
	}
	body, _ := json.Marshal(map[string][]string{"events": ids})
	status, err := c.call(ctx, partner, http.MethodPost, "/apps/states-report/documents/read", "application/json", body, nil)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("marking the states report read answered %d", status)
	}
	return err
}

// call makes one request to a broker as the entity, paced and with a fresh token, and decodes the
// answer into v (when not nil). A 401 forgets the token (the next attempt takes a new one); 429 and
// 5xx are errors to retry later.
func (c *Connector) call(ctx context.Context, name, method, path, contentType string, body []byte, v any) (int, error) {
	cfg, err := c.lookup(ctx, name)
	if err != nil {
		return 0, fmt.Errorf("upstream %s: %w", name, err)
	}
	b := c.broker(name)
	token, err := c.tokenFor(ctx, b, cfg)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(cfg.BaseURL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("entity", cfg.PublicKey)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	status, raw, err := c.send(ctx, b, req)
	if err != nil {
		return 0, err
	}
	switch {
	case status == http.StatusUnauthorized:
		b.mu.Lock()
		b.token = ""
		b.mu.Unlock()
		return status, fmt.Errorf("upstream %s: authentication refused (401)", name)
	case status == http.StatusTooManyRequests || status >= 500:
		return status, fmt.Errorf("upstream %s: answered %d", name, status)
	}
	if v != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, v); err != nil {
			return status, fmt.Errorf("upstream %s: unreadable answer: %w", name, err)
		}
	}
	return status, nil
}

// tokenFor is a token valid for at least tokenMargin more, taken anew when needed.
func (c *Connector) tokenFor(ctx context.Context, b *broker, cfg Config) (string, error) {
	b.mu.Lock()
	token, expires := b.token, b.expires
	b.mu.Unlock()
	if token != "" && c.now().Add(tokenMargin).Before(expires) {
		return token, nil
	}
	ts := strconv.FormatInt(c.now().Unix(), 10)
	nonce := strings.ToLower(rand.Text())[:20]
	body, _ := json.Marshal(map[string]string{"grant_type": "client_credentials", "client_id": cfg.ClientID, "timestamp": ts,
		"nonce": nonce, "signature": Signature(cfg.ClientID, ts, nonce, cfg.Secret)})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(cfg.BaseURL, "/")+"/oauth2/token", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	status, raw, err := c.send(ctx, b, req)
	if err != nil {
		return "", err
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	if status != http.StatusOK || json.Unmarshal(raw, &tok) != nil || tok.AccessToken == "" {
		return "", fmt.Errorf("upstream token: answered %d", status)
	}
	b.mu.Lock()
	b.token, b.expires = tok.AccessToken, c.now().Add(time.Duration(tok.ExpiresIn)*time.Second)
	b.mu.Unlock()
	return tok.AccessToken, nil
}

// Signature is the token request's signature of the API (spec 5.1): the HMAC-SHA256 of
// "client_id:timestamp:nonce" under the client secret, as lowercase hex, then Base64.
func Signature(clientID, timestamp, nonce, secret string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(clientID + ":" + timestamp + ":" + nonce))
	return base64.StdEncoding.EncodeToString([]byte(hex.EncodeToString(mac.Sum(nil))))
}

// send waits for the broker's pace, then makes the request and reads its answer.
func (c *Connector) send(ctx context.Context, b *broker, req *http.Request) (int, []byte, error) {
	if err := c.pace(ctx, b); err != nil {
		return 0, nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	return resp.StatusCode, raw, err
}

// pace spaces the requests to one broker evenly, RequestsPerMinute at most.
func (c *Connector) pace(ctx context.Context, b *broker) error {
	const gap = time.Minute / RequestsPerMinute
	b.mu.Lock()
	now := c.now()
	at := b.next
	if at.Before(now) {
		at = now
	}
	b.next = at.Add(gap)
	b.mu.Unlock()
	if wait := at.Sub(now); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
