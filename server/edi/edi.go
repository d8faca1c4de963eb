// Package edi is the boundary between the workflow and the networks that carry documents and status
// messages to other brokers and public entities: a Connector delivers one queued message to a partner,
// and an Inbox takes what a partner sent. The workflow owns the queue, the retries and the states; a
// connector only moves bytes and says whether the other side acknowledged them.
package edi

import "context"

// Message kinds a delivery carries.
const (
	KindDocument = "document" // a UBL invoice, credit note or order
	KindStatus   = "status"   // a UBL DocumentStatus about a document the partner sent
)

// Delivery is one queued message for one partner: a document version or a status message.
type Delivery struct {
	ID         int64  // the queue row; stable across retries
	DocumentID int64  // the document it is about
	MessageID  string // stable across retries, so the receiver can drop a repeat
	Kind       string // KindDocument or KindStatus
	Partner    string // the partner's (or upstream's) name, as configured
	FromNIF    string // the sending entity's tax ID
	ToNIF      string // the receiving entity's tax ID
	Filename   string // for example "FT 2026-1.xml"
	Payload    []byte // the UBL XML
}

// Receipt is what a connector learned from one delivery.
type Receipt struct {
	MessageID string // the message id as sent (normally Delivery.MessageID)
	RemoteID  string // the partner's id for it, when it gives one
	Pending   bool   // the acknowledgement comes later (an asynchronous MDN, a remote state)
}

// Connector delivers messages to the partners of one kind (AS2, an upstream broker's API).
type Connector interface {
	// Deliver sends d and returns once the partner accepted it (Pending false) or took it for an
	// acknowledgement that will arrive through Inbox.Acknowledge (Pending true). An error is retried
	// later unless it is Permanent.
	Deliver(ctx context.Context, d Delivery) (Receipt, error)
}

// Inbox is the workflow's side, called by connectors for what arrives from partners.
type Inbox interface {
	// Receive takes a message a partner sent: a document for an entity here, or a status message about
	// a document sent from here. A repeated messageID from the same partner is accepted and ignored.
	Receive(ctx context.Context, partner, messageID string, payload []byte) error
	// Acknowledge records the late answer to a delivery whose Receipt was Pending.
	Acknowledge(ctx context.Context, messageID string, ok bool, detail string) error
}

// Permanent marks a delivery error that retrying cannot fix (the partner refused the message).
type Permanent struct{ Err error }

func (p Permanent) Error() string { return "permanent: " + p.Err.Error() }
func (p Permanent) Unwrap() error { return p.Err }
