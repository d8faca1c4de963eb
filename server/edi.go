package server

import (
	"cmp"
	"errors"
	"sync"
	"time"

	"einvoice/server/edi"
	"einvoice/store"
	"einvoice/ubl"
)

// EDI delivery: a document addressed to an external tax ID with an approved connection that names an
// AS2 partner or an upstream broker is queued (edi_deliveries) in the transaction that creates it, and
// so is a status message going back to the sender of a document received by EDI. The EDI job claims
// due deliveries under a lease, hands each to the connector of its kind and records the attempt in the
// document's history; the document goes sent once the partner acknowledges it. A crash between commit
// and acknowledgement leaves the delivery due again when its lease ends, with the same message id, so
// that the receiver drops the repeat.

const jobEDI = "edi"

// Connector kinds: how the partner a connection names is reached.
const (
	ConnectorAS2      = "as2"
	ConnectorUpstream = "upstream"
)

// EDIConfig is the [edi] section.
type EDIConfig struct {
	Interval      time.Duration   `toml:"interval"`       // how often the delivery job looks for due deliveries (it also runs after each commit that queues one)
	Lease         time.Duration   `toml:"lease"`          // how long a claimed delivery is held; after a crash it is due again when this ends
	Timeout       time.Duration   `toml:"timeout"`        // one delivery attempt
	Concurrency   int             `toml:"concurrency"`    // attempts under way at once
	Batch         int             `toml:"batch"`          // deliveries one pass claims
	RetrySchedule []time.Duration `toml:"retry_schedule"` // waits between attempts; its length + 1 is the number of attempts
	PollInterval  time.Duration   `toml:"poll_interval"`  // how often upstream brokers' states reports are read
}

// DefaultEDI is the default [edi] section.
func DefaultEDI() EDIConfig {
	h := time.Hour
	return EDIConfig{Interval: 5 * time.Second, Lease: 2 * time.Minute, Timeout: time.Minute, Concurrency: 8, Batch: 100,
		RetrySchedule: []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, h, 2 * h, 6 * h, 12 * h, 24 * h, 24 * h, 24 * h},
		PollInterval:  time.Minute}
}

// ediHub holds the connectors by kind.
type ediHub struct {
	mu         sync.RWMutex
	connectors map[string]edi.Connector
}

// RegisterConnector makes c carry the deliveries to partners of a kind (ConnectorAS2, ConnectorUpstream).
func (w *Workflow) RegisterConnector(kind string, c edi.Connector) {
	w.edi.mu.Lock()
	defer w.edi.mu.Unlock()
	if w.edi.connectors == nil {
		w.edi.connectors = map[string]edi.Connector{}
	}
	w.edi.connectors[kind] = c
}

func (w *Workflow) connector(kind string) edi.Connector {
	w.edi.mu.RLock()
	defer w.edi.mu.RUnlock()
	return w.edi.connectors[kind]
}

// ediRoute is how a document reaches an external tax ID: the connection's partner or upstream, or,
// while the connection is not approved, why it waits.
type ediRoute struct {
	connector, partner string
	country, nif       string
	toSend             string // why it is not delivered; empty: it is queued
}

// deliverable tells whether a route queues the document.
func (r *ediRoute) deliverable() bool { return r != nil && r.toSend == "" }

// connectorOf is the connector kind and partner name a connection reaches its external side through.
func connectorOf(c store.Connection) (kind, partner string) {
	if c.Upstream != "" {
		return ConnectorUpstream, c.Upstream
	}
	return ConnectorAS2, c.Partner
}

// ediRouteOf finds the EDI route from the issuer to the counterparty: when the counterparty is not an
// entity here (or only stands here for an external issuer) and a connection with its tax ID exists. A
// recipient that only stands for an external issuer is cleared: the document goes to it by EDI.
func ediRouteOf(tx *store.Tx, issuer store.Entity, counterparty ubl.Party, recipient **store.Entity) (*ediRoute, error) {
	if *recipient != nil {
		external, err := tx.IsExternalIssuer((*recipient).ID)
		if err != nil || !external {
			return nil, err
		}
	}
	to := partyKey(counterparty)
	if to.NIF == "" {
		return nil, nil
	}
	c, err := tx.ExternalConnection(issuer.ID, cmp.Or(to.Country, "PT"), to.NIF)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	*recipient = nil
	kind, partner := connectorOf(c)
	r := &ediRoute{connector: kind, partner: partner, country: cmp.Or(to.Country, "PT"), nif: to.NIF}
	switch {
	case c.State == store.ConnDeclined:
		r.toSend = toSendNoConnection
	case c.State != store.ConnApproved || partner == "":
		r.toSend = toSendConnection
	}
	return r, nil
}

// newMessageID is a message id no partner has seen, stable across the retries of its delivery.
func newMessageID() string { return store.RandomToken(16) + "@einvoice" }

// queueDocumentDelivery queues the delivery of a document's current version along its route.
func queueDocumentDelivery(tx *store.Tx, d *store.Document, issuer store.Entity, r *ediRoute) error {
	return tx.QueueEDI(store.EDIDelivery{DocumentID: d.ID, Version: d.Edits, Kind: edi.KindDocument, Connector: r.connector,
		Partner: r.partner, FromNIF: issuer.Country + issuer.NIF, ToNIF: r.country + r.nif, MessageID: newMessageID()})
}

// aimOf is a document's AIM identifier (an AdditionalDocumentReference of scheme AIM), which status
// messages name it by; empty when it has none.
func aimOf(m *ubl.Document) string {
	for _, a := range m.Attachments {
		if a.IDScheme == "AIM" {
			return a.ID
		}
	}
	return ""
}
