package as2

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"einvoice/server/edi"
)

// keys made once: RSA key generation is the slow part of these tests.
var (
	keysOnce sync.Once
	keys     map[string]Identity
)

// identity is a test station with a self-signed RSA-2048 certificate: "A", "B", or "C" (a stranger).
func identity(t testing.TB, name string) Identity {
	t.Helper()
	keysOnce.Do(func() {
		keys = map[string]Identity{}
		for i, n := range []string{"A", "B", "C"} {
			key, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				panic(err)
			}
			tmpl := &x509.Certificate{SerialNumber: big.NewInt(int64(100 + i)), Subject: pkix.Name{CommonName: "station " + n},
				NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
				KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment}
			der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
			if err != nil {
				panic(err)
			}
			cert, _ := x509.ParseCertificate(der)
			keys[n] = Identity{ID: "station " + n, Certificate: cert, Key: key}
		}
	})
	return keys[name]
}

// memBook is a Book in memory.
type memBook struct {
	mu       sync.Mutex
	self     Identity
	partners []Partner
	sent     map[string]string // partner/message id -> MIC
	received map[string]string
}

func newBook(self Identity, partners ...Partner) *memBook {
	return &memBook{self: self, partners: partners, sent: map[string]string{}, received: map[string]string{}}
}

func (b *memBook) Identity(context.Context) (Identity, error) { return b.self, nil }

func (b *memBook) PartnerByName(_ context.Context, name string) (Partner, error) {
	for _, p := range b.partners {
		if p.Name == name {
			return p, nil
		}
	}
	return Partner{}, ErrUnknown
}

func (b *memBook) PartnerByID(_ context.Context, id string) (Partner, error) {
	for _, p := range b.partners {
		if p.ID == id {
			return p, nil
		}
	}
	return Partner{}, ErrUnknown
}

func (b *memBook) RecordSent(_ context.Context, partner, id, mic string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sent[partner+"/"+id] = mic
	return nil
}

func (b *memBook) SentMIC(_ context.Context, partner, id string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	m, ok := b.sent[partner+"/"+id]
	if !ok {
		return "", ErrUnknown
	}
	return m, nil
}

func (b *memBook) Received(_ context.Context, partner, id string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.received[partner+"/"+id]
	return ok, nil
}

func (b *memBook) RecordReceived(_ context.Context, partner, id, mic string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.received[partner+"/"+id] = mic
	return nil
}

// memInbox records what a Handler hands on.
type memInbox struct {
	mu       sync.Mutex
	received []received
	acks     []ack
	refuse   error // returned by Receive when set
}

type received struct {
	partner, messageID string
	payload            []byte
}

type ack struct {
	messageID string
	ok        bool
	detail    string
}

func (in *memInbox) Receive(_ context.Context, partner, messageID string, payload []byte) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.refuse != nil {
		return in.refuse
	}
	in.received = append(in.received, received{partner, messageID, payload})
	return nil
}

func (in *memInbox) Acknowledge(_ context.Context, messageID string, ok bool, detail string) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.acks = append(in.acks, ack{messageID, ok, detail})
	return nil
}

func (in *memInbox) snapshot() ([]received, []ack) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]received(nil), in.received...), append([]ack(nil), in.acks...)
}

// station is one side of a test exchange: its book, inbox, handler served over loopback, and
// connector.
type station struct {
	self      Identity
	book      *memBook
	inbox     *memInbox
	handler   *Handler
	server    *httptest.Server
	connector *Connector
}

func newStation(t *testing.T, name string) *station {
	t.Helper()
	s := &station{self: identity(t, name), inbox: &memInbox{}}
	s.book = newBook(s.self)
	s.handler = NewHandler(s.book, s.inbox, HandlerOptions{MaxBody: 1 << 20, Timeout: 10 * time.Second,
		Client: &http.Client{Timeout: 5 * time.Second}})
	s.server = httptest.NewServer(s.handler)
	t.Cleanup(s.server.Close)
	s.connector = &Connector{Book: s.book, Client: &http.Client{Timeout: 10 * time.Second}, MDNURL: s.server.URL + "/as2"}
	return s
}

// partnerOf is s as a partner of another station, with the given settings.
func (s *station) partnerOf(settings Partner) Partner {
	settings.Name, settings.ID, settings.URL, settings.Certificate = "partner-"+s.self.ID[len("station "):], s.self.ID, s.server.URL+"/as2", s.self.Certificate
	return settings
}

// pair makes a and b partners of each other with the same settings.
func pair(a, b *station, settings Partner) (aToB, bToA Partner) {
	aToB, bToA = b.partnerOf(settings), a.partnerOf(settings)
	a.book.partners = append(a.book.partners, aToB)
	b.book.partners = append(b.book.partners, bToA)
	return aToB, bToA
}

const invoiceXML = `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>FT 2026/1</ID><PayableAmount>100.00</PayableAmount></Invoice>
`

func delivery(partner, messageID string) edi.Delivery {
	return edi.Delivery{ID: 1, DocumentID: 1, MessageID: messageID, Kind: edi.KindDocument, Partner: partner,
		FromNIF: "500000000", ToNIF: "600000000", Filename: "FT 2026-1.xml", Payload: []byte(invoiceXML)}
}
