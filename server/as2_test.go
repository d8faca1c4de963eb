package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"einvoice/server/edi"
	"einvoice/store/storetest"
)

// recordingInbox keeps what the AS2 handler hands on.
type recordingInbox struct {
	mu       sync.Mutex
	received []string // message ids
	acked    map[string]bool
	ackedAt  chan string
}

func (in *recordingInbox) Receive(_ context.Context, partner, messageID string, payload []byte) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.received = append(in.received, partner+"/"+messageID)
	return nil
}

func (in *recordingInbox) Acknowledge(_ context.Context, messageID string, ok bool, detail string) error {
	in.mu.Lock()
	in.acked[messageID] = ok
	in.mu.Unlock()
	in.ackedAt <- messageID
	return nil
}

// as2Installation is one installation in an AS2 test: its workflow over its own store, its inbound
// route on loopback, and what its inbox got.
type as2Installation struct {
	wf     *Workflow
	inbox  *recordingInbox
	server *httptest.Server
}

func newAS2Installation(t *testing.T, id string) *as2Installation {
	t.Helper()
	st := storetest.Open(t, []byte("test secret key 0123456789"))
	cfg := testConfig()
	cfg.AS2.ID = id
	in := &as2Installation{wf: NewWorkflow(cfg, st, slog.New(slog.DiscardHandler)),
		inbox: &recordingInbox{acked: map[string]bool{}, ackedAt: make(chan string, 4)}}
	in.server = httptest.NewServer(in.wf.AS2Handler(in.inbox))
	t.Cleanup(in.server.Close)
	in.wf.cfg.AS2.MDNURL = in.server.URL + "/as2"
	return in
}

// Two installations, each with its identity made on first use and the other as a partner, exchange a
// document in both directions over the store-backed book: asynchronous MDN one way, synchronous the
// other; a repeat is taken once.
func TestAS2BetweenInstallations(t *testing.T) {
	ctx := context.Background()
	a, b := newAS2Installation(t, "EINVOICE-A"), newAS2Installation(t, "EINVOICE-B")
	idA, err := a.wf.AS2Identity(ctx)
	if err != nil || idA.AS2ID != "EINVOICE-A" {
		t.Fatalf("%+v %v", idA, err)
	}
	again, _ := a.wf.AS2Identity(ctx)
	if again.Fingerprint != idA.Fingerprint {
		t.Fatal("the identity was made twice")
	}
	idB, _ := b.wf.AS2Identity(ctx)
	if _, err := a.wf.CreateAS2Partner(ctx, AS2PartnerInput{Name: "b", AS2ID: idB.AS2ID, URL: b.server.URL + "/as2", Certificate: idB.Certificate,
		Cipher: "3des", Sign: "sha1", MDN: "async"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.wf.CreateAS2Partner(ctx, AS2PartnerInput{Name: "a", AS2ID: idA.AS2ID, URL: a.server.URL + "/as2", Certificate: idA.Certificate,
		Compress: true, MDN: "sync"}); err != nil {
		t.Fatal(err)
	}
	doc := edi.Delivery{MessageID: "doc-1@einvoice-a", Kind: edi.KindDocument, Partner: "b", Filename: "FT 1.xml", Payload: []byte("<Invoice/>")}
	receipt, err := a.wf.AS2Connector().Deliver(ctx, doc)
	if err != nil || !receipt.Pending {
		t.Fatalf("%+v %v", receipt, err)
	}
	select {
	case id := <-a.inbox.ackedAt:
		if id != doc.MessageID || !a.inbox.acked[id] {
			t.Fatalf("acknowledged %s: %v", id, a.inbox.acked)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no asynchronous MDN")
	}
	reply := edi.Delivery{MessageID: "status-1@einvoice-b", Kind: edi.KindStatus, Partner: "a", Filename: "status.xml", Payload: []byte("<DocumentStatus/>")}
	for range 2 {
		if receipt, err := b.wf.AS2Connector().Deliver(ctx, reply); err != nil || receipt.Pending {
			t.Fatalf("%+v %v", receipt, err)
		}
	}
	if len(b.inbox.received) != 1 || b.inbox.received[0] != "a/doc-1@einvoice-a" || len(a.inbox.received) != 1 || a.inbox.received[0] != "b/status-1@einvoice-b" {
		t.Fatalf("a got %v, b got %v", a.inbox.received, b.inbox.received)
	}
	_, err = a.wf.AS2Connector().Deliver(ctx, edi.Delivery{MessageID: "x@a", Partner: "nobody", Payload: []byte("<x/>")})
	var permanent edi.Permanent
	if !errors.As(err, &permanent) {
		t.Fatalf("an unknown partner: %v", err)
	}
}

func TestAS2PartnerValidation(t *testing.T) {
	ctx := context.Background()
	a := newAS2Installation(t, "EINVOICE-A")
	id, _ := a.wf.AS2Identity(ctx)
	_, err := a.wf.CreateAS2Partner(ctx, AS2PartnerInput{Name: " ", AS2ID: `bad"id`, URL: "ftp://x", Certificate: "not PEM", Sign: "md5", Cipher: "rc2", MDN: "later"})
	var fe FieldErrors
	if !errors.As(err, &fe) {
		t.Fatalf("%v", err)
	}
	for field, code := range map[string]*Code{"name": CodeRequired, "as2_id": CodeInvalidValue, "url": CodeInvalidValue, "certificate": CodeAS2BadCertificate,
		"sign": CodeInvalidValue, "cipher": CodeInvalidValue, "mdn": CodeInvalidValue} {
		if fe[field].Code != code {
			t.Errorf("%s: %v, want %s", field, fe[field].Code, code.ID)
		}
	}
	good := AS2PartnerInput{Name: "p", AS2ID: "P", URL: "https://p.example/as2", Certificate: id.Certificate}
	if p, err := a.wf.CreateAS2Partner(ctx, good); err != nil || p.Sign != "sha256" || p.Cipher != "aes256" || p.MDN != "async" {
		t.Fatalf("defaults: %+v %v", p, err)
	}
	if _, err := a.wf.CreateAS2Partner(ctx, good); ErrorCode(err) != CodeExists {
		t.Fatalf("twice: %v", err)
	}
	cipher := "none"
	if p, err := a.wf.UpdateAS2Partner(ctx, "p", AS2PartnerChange{Cipher: &cipher}); err != nil || p.Cipher != "none" || p.URL != good.URL {
		t.Fatalf("update: %+v %v", p, err)
	}
	if _, err := a.wf.UpdateAS2Partner(ctx, "q", AS2PartnerChange{Cipher: &cipher}); ErrorCode(err) != CodeNotFound {
		t.Fatalf("update of none: %v", err)
	}
	if err := a.wf.DeleteAS2Partner(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if err := a.wf.DeleteAS2Partner(ctx, "p"); ErrorCode(err) != CodeNotFound {
		t.Fatalf("second delete: %v", err)
	}
}
