package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"einvoice/server/edi"
	"einvoice/store"
	"einvoice/ubl/status"
)

// fakeConnector records what it is given and answers with answer (nil: acknowledged).
type fakeConnector struct {
	mu     sync.Mutex
	got    []edi.Delivery
	answer func(n int, d edi.Delivery) (edi.Receipt, error)
}

func (f *fakeConnector) Deliver(ctx context.Context, d edi.Delivery) (edi.Receipt, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, d)
	if f.answer == nil {
		return edi.Receipt{MessageID: d.MessageID}, nil
	}
	return f.answer(len(f.got), d)
}

func (f *fakeConnector) delivered() []edi.Delivery {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}

// The external party the EDI tests send to: a tax ID that is no entity here.
const externalNIF = "501234560"

// ediEnv is a docEnv whose issuer has an approved connection with externalNIF through the AS2 partner
// "peer", served by a fake connector, and a clock the test moves.
type ediEnv struct {
	*docEnv
	fake  *fakeConnector
	clock time.Time
}

func newEDIEnv(t *testing.T, tweak ...func(*Config)) *ediEnv {
	t.Helper()
	env := &ediEnv{docEnv: newDocEnv(t, tweak...), fake: &fakeConnector{}, clock: time.Now()}
	env.srv.now = func() time.Time { return env.clock }
	env.st.SetClock(func() time.Time { return env.clock })
	env.srv.RegisterConnector(ConnectorAS2, env.fake)
	if _, err := env.srv.CreateConnection(context.Background(), store.NewConnection{FromEntityID: env.entity.ID,
		ToExternal: store.PartyKey{Country: "PT", NIF: externalNIF, Name: "Entidade Externa"}, Partner: "peer", State: store.ConnApproved}); err != nil {
		t.Fatal(err)
	}
	return env
}

// issueExternal issues an invoice to externalNIF and returns its row id.
func (e *ediEnv) issueExternal(number string) int64 {
	e.t.Helper()
	r := e.post("/documents", e.entity, "application/json", invoiceJSON(number, externalNIF, ""))
	if r.status != 201 {
		e.t.Fatalf("issue %s: %d %s", number, r.status, r.raw)
	}
	if got := alias(data(r)["state_document"]); got != store.StateToSend {
		e.t.Fatalf("issued to an external tax ID: state %s, want tosend until delivered", got)
	}
	return e.rowID(store.KindDocument, data(r)["id"])
}

func (e *ediEnv) runDeliveries() {
	e.t.Helper()
	if err := e.srv.deliverEDI(context.Background()); err != nil {
		e.t.Fatal(err)
	}
}

func (e *ediEnv) document(id int64) store.Document {
	e.t.Helper()
	d, err := e.st.DocumentByID(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

func (e *ediEnv) wantState(id int64, state, ediState string) {
	e.t.Helper()
	if d := e.document(id); d.State != state || d.EDIState != ediState {
		e.t.Fatalf("document %d: %s/%s, want %s/%s", id, d.State, d.EDIState, state, ediState)
	}
}

// ediAttempts lists the results of the document's delivery attempts in its history.
func (e *ediEnv) ediAttempts(id int64) []string {
	e.t.Helper()
	h, err := e.st.History(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, entry := range h {
		if result, ok := strings.CutPrefix(entry.Description, "edi_delivery_"); ok && entry.Kind == "edi" {
			out = append(out, result)
		}
	}
	return out
}

func TestEDIDeliveryQueuedWithTheDocumentThenSent(t *testing.T) {
	env := newEDIEnv(t)
	id := env.issueExternal("EDI-1")
	env.wantState(id, store.StateToSend, ediPending)
	deliveries, err := env.st.EDIDeliveries(context.Background(), store.EDIFilter{DocumentID: id, Limit: 10})
	if err != nil || len(deliveries) != 1 || deliveries[0].State != store.EDIQueued || deliveries[0].Partner != "peer" {
		t.Fatalf("queued with the document: %+v %v", deliveries, err)
	}
	env.runDeliveries()
	got := env.fake.delivered()
	if len(got) != 1 || got[0].Kind != edi.KindDocument || got[0].ToNIF != "PT"+externalNIF || got[0].FromNIF != "PT"+env.entity.NIF ||
		!strings.Contains(string(got[0].Payload), "EDI-1") || got[0].MessageID != deliveries[0].MessageID {
		t.Fatalf("delivered: %+v", got)
	}
	env.wantState(id, store.StateSent, ediDelivered)
	if a := env.ediAttempts(id); !slices.Equal(a, []string{"delivered"}) {
		t.Fatalf("history: %v", a)
	}
	env.runDeliveries()
	if n := len(env.fake.delivered()); n != 1 {
		t.Fatalf("delivered %d times", n)
	}
	// The API's history shows the attempt.
	r := env.do("GET", "/api/v1/en/apps/documents/"+env.document(id).PublicID+"/history", env.as(env.entity, ""), "")
	if r.status != 200 || !strings.Contains(r.raw, `"attempt":1`) || !strings.Contains(r.raw, deliveries[0].MessageID) {
		t.Fatalf("history: %d %s", r.status, r.raw)
	}
}

func TestEDIRetriesOnTheScheduleThenGivesUp(t *testing.T) {
	env := newEDIEnv(t, func(c *Config) { c.EDI.RetrySchedule = []time.Duration{time.Minute, time.Minute} })
	env.fake.answer = func(int, edi.Delivery) (edi.Receipt, error) { return edi.Receipt{}, errors.New("connection refused") }
	id := env.issueExternal("EDI-2")
	env.runDeliveries()
	env.runDeliveries() // not due yet
	if n := len(env.fake.delivered()); n != 1 {
		t.Fatalf("attempts before the wait: %d", n)
	}
	env.wantState(id, store.StateToSend, ediPending)
	for range 2 {
		env.clock = env.clock.Add(2 * time.Minute)
		env.runDeliveries()
	}
	got := env.fake.delivered()
	if len(got) != 3 || got[0].MessageID != got[2].MessageID {
		t.Fatalf("attempts: %d, message ids %v", len(got), got)
	}
	env.wantState(id, store.StateToSend, ediError)
	if a := env.ediAttempts(id); !slices.Equal(a, []string{"error", "error", "gave_up"}) {
		t.Fatalf("history: %v", a)
	}
	// The issuer corrects and sends it again: a new version, a new delivery, and this time it goes.
	env.fake.answer = nil
	env.clock = env.clock.Add(time.Hour)
	if r := env.post("/documents", env.entity, "application/json", invoiceJSON("EDI-2", externalNIF, "")); r.status != 200 {
		t.Fatalf("resend: %d %s", r.status, r.raw)
	}
	env.runDeliveries()
	env.wantState(id, store.StateSent, ediDelivered)
}

func TestEDIPermanentRefusalIsNotRetried(t *testing.T) {
	env := newEDIEnv(t)
	env.fake.answer = func(int, edi.Delivery) (edi.Receipt, error) {
		return edi.Receipt{}, edi.Permanent{Err: errors.New("unknown recipient")}
	}
	id := env.issueExternal("EDI-3")
	env.runDeliveries()
	env.clock = env.clock.Add(100 * time.Hour)
	env.runDeliveries()
	if n := len(env.fake.delivered()); n != 1 {
		t.Fatalf("attempts: %d", n)
	}
	env.wantState(id, store.StateToSend, ediError)
	if a := env.ediAttempts(id); !slices.Equal(a, []string{"refused"}) {
		t.Fatalf("history: %v", a)
	}
}

func TestEDIAsynchronousAcknowledgement(t *testing.T) {
	env := newEDIEnv(t)
	env.fake.answer = func(_ int, d edi.Delivery) (edi.Receipt, error) {
		return edi.Receipt{MessageID: d.MessageID, Pending: true}, nil
	}
	ctx := context.Background()
	id := env.issueExternal("EDI-4")
	env.runDeliveries()
	env.wantState(id, store.StateToSend, ediPending)
	msg := env.fake.delivered()[0].MessageID
	// A negative answer sends it again; a positive one completes it (a repeat changes nothing).
	if err := env.srv.Acknowledge(ctx, msg, false, "decryption failed"); err != nil {
		t.Fatal(err)
	}
	env.clock = env.clock.Add(2 * time.Minute)
	env.runDeliveries()
	if n := len(env.fake.delivered()); n != 2 {
		t.Fatalf("attempts after a negative acknowledgement: %d", n)
	}
	for range 2 {
		if err := env.srv.Acknowledge(ctx, msg, true, ""); err != nil {
			t.Fatal(err)
		}
	}
	env.wantState(id, store.StateSent, ediDelivered)
	if err := env.srv.Acknowledge(ctx, "unknown@x", true, ""); refusedField(err, "message_id") != CodeNotFound {
		t.Fatalf("unknown message id: %v", err)
	}
}

func TestEDIExpiredLeaseIsDeliveredOnceMore(t *testing.T) {
	env := newEDIEnv(t)
	ctx := context.Background()
	id := env.issueExternal("EDI-5")
	// A run claims the delivery and dies before recording anything.
	now := env.clock.UTC()
	claimed, err := env.st.ClaimEDI(ctx, now.Format(store.TimeLayout), now.Add(env.srv.cfg.EDI.Lease).Format(store.TimeLayout), 10)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	env.runDeliveries() // the lease holds
	if n := len(env.fake.delivered()); n != 0 {
		t.Fatalf("delivered under another run's lease: %d", n)
	}
	env.clock = env.clock.Add(env.srv.cfg.EDI.Lease + time.Second)
	env.runDeliveries()
	env.runDeliveries()
	got := env.fake.delivered()
	if len(got) != 1 || got[0].MessageID != claimed[0].MessageID {
		t.Fatalf("after the lease: %+v", got)
	}
	env.wantState(id, store.StateSent, ediDelivered)
}

// twoInstallations joins two services with an in-process connector each way: A's entity 500000000
// and B's entity 501234560 exchange documents and status messages, each the other's external party.
type twoInstallations struct {
	a, b *docEnv
}

// loopback delivers to another installation's inbox as the partner named from.
type loopback struct {
	to   *Workflow
	from string
}

func (l loopback) Deliver(ctx context.Context, d edi.Delivery) (edi.Receipt, error) {
	err := l.to.Receive(ctx, l.from, d.MessageID, d.Payload)
	var fe FieldErrors
	if errors.As(err, &fe) {
		return edi.Receipt{}, edi.Permanent{Err: err}
	}
	return edi.Receipt{MessageID: d.MessageID}, err
}

func newTwoInstallations(t *testing.T, tweak ...func(*Config)) *twoInstallations {
	ctx := context.Background()
	a := newDocEnv(t, tweak...)
	b := &docEnv{testEnv: newTestEnv(t, append([]func(*Config){func(c *Config) { c.HTTP.BodyLimit = 32 << 20 }}, tweak...)...)}
	b.bearer = b.token
	recipient := b.mustEntity("Entidade Publica", externalNIF)
	b.customer = recipient
	b.authorize(recipient)
	a.srv.RegisterConnector(ConnectorAS2, loopback{to: b.srv.Workflow, from: "installation-a"})
	b.srv.RegisterConnector(ConnectorAS2, loopback{to: a.srv.Workflow, from: "installation-b"})
	if _, err := a.srv.CreateConnection(ctx, store.NewConnection{FromEntityID: a.customer.ID, Partner: "installation-b", State: store.ConnApproved,
		ToExternal: store.PartyKey{Country: "PT", NIF: externalNIF, Name: "Entidade Publica"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.srv.CreateConnection(ctx, store.NewConnection{ToEntityID: recipient.ID, Partner: "installation-a", State: store.ConnApproved,
		FromExternal: store.PartyKey{Country: "PT", NIF: a.customer.NIF, Name: a.customer.Name}}); err != nil {
		t.Fatal(err)
	}
	return &twoInstallations{a: a, b: b}
}

// settle runs both installations' deliveries until neither has any left.
func (ti *twoInstallations) settle(t *testing.T) {
	t.Helper()
	for range 5 {
		for _, s := range []*Server{ti.a.srv, ti.b.srv} {
			if err := s.deliverEDI(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func docState(t *testing.T, st *store.Store, id int64) (string, string) {
	t.Helper()
	d, err := st.DocumentByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d.State, d.EDIState
}

func TestEDIBetweenTwoInstallationsWithStatusMessages(t *testing.T) {
	ti := newTwoInstallations(t)
	a, b := ti.a, ti.b
	r := a.post("/documents", a.customer, "application/json", invoiceJSON("FT 2026/7", externalNIF, ""))
	if r.status != 201 {
		t.Fatalf("issue: %d %s", r.status, r.raw)
	}
	sentID := a.rowID(store.KindDocument, data(r)["id"])
	ti.settle(t)
	// B received it and said ACCEPTED.
	_, inbox := b.inbox("")
	if len(inbox) != 1 {
		t.Fatalf("B's inbox: %v", inbox)
	}
	receivedID := inbox[0].(map[string]any)["id"].(string)
	if s, e := docState(t, a.st, sentID); s != store.StateSent || e != ediAccepted {
		t.Fatalf("A after B took it: %s/%s", s, e)
	}
	// B's recipient asks for a correction: 14 goes back; A corrects and sends again; B accepts: 11.
	if r := b.post("/documents/"+receivedID+"/accepted", b.customer, "application/json", `{"accepted": "0", "reason": "Falta o compromisso"}`); r.status != 200 {
		t.Fatalf("reject: %d %s", r.status, r.raw)
	}
	ti.settle(t)
	if s, e := docState(t, a.st, sentID); s != store.StateRejected || e != ediRegularization {
		t.Fatalf("A after 14: %s/%s", s, e)
	}
	if r := a.post("/documents", a.customer, "application/json", invoiceJSON("FT 2026/7", externalNIF, "")); r.status != 200 {
		t.Fatalf("resend: %d %s", r.status, r.raw)
	}
	ti.settle(t)
	if s, e := docState(t, a.st, sentID); s != store.StateSent || e != ediAccepted {
		t.Fatalf("A after the corrected version went: %s/%s", s, e)
	}
	if r := b.post("/documents/"+receivedID+"/accepted", b.customer, "application/json", `{"accepted": "1"}`); r.status != 200 {
		t.Fatalf("accept the corrected version: %d %s", r.status, r.raw)
	}
	ti.settle(t)
	if s, e := docState(t, a.st, sentID); s != store.StateAccepted || e != ediAccepted {
		t.Fatalf("A after 11: %s/%s", s, e)
	}
	// The other way: B's entity sends to A's, which B knows only as the issuer of what it received.
	if r := b.post("/documents", b.customer, "application/json", invoiceJSON("B-1", a.customer.NIF, "")); r.status != 201 || alias(data(r)["state_document"]) != store.StateToSend {
		t.Fatalf("B issues to A: %d %s", r.status, r.raw)
	}
	ti.settle(t)
	if _, inbox := a.inbox(""); len(inbox) != 1 || inbox[0].(map[string]any)["number"] != "B-1" {
		t.Fatalf("A's inbox: %v", inbox)
	}
	// Every message went once: a repeat of one is dropped by its receiver.
	if d, _ := b.st.DocumentByID(context.Background(), b.rowID(store.KindDocument, receivedID)); d.Edits != 1 {
		t.Fatalf("B's document has %d edits, want 1", d.Edits)
	}
	deliveries, _ := a.st.EDIDeliveries(context.Background(), store.EDIFilter{DocumentID: sentID, Limit: 10})
	xml, _ := a.st.DocumentFileByRole(context.Background(), sentID, store.FileXML)
	if err := b.srv.Receive(context.Background(), "installation-a", deliveries[0].MessageID, xml.Content); err != nil {
		t.Fatalf("a repeated message: %v", err)
	}
	if d, _ := b.st.DocumentByID(context.Background(), b.rowID(store.KindDocument, receivedID)); d.Edits != 1 || d.State != store.StateAccepted {
		t.Fatalf("after a repeat B's document has %d edits and is %s", d.Edits, d.State)
	}
}

func TestEDIInboundRefusals(t *testing.T) {
	ti := newTwoInstallations(t)
	ctx := context.Background()
	xml := buildXML(t, ti.a, "FT 9", externalNIF) // issued by A's first entity, which has no connection at B
	if err := ti.b.srv.Receive(ctx, "installation-a", "m1", xml); refusedField(err, "supplier") != CodeNoEDIConnection {
		t.Fatalf("no connection: %v", err)
	}
	if err := ti.b.srv.Receive(ctx, "installation-a", "m2", []byte("<Invoice/>")); err == nil {
		t.Fatal("invalid XML accepted")
	}
	invalid := strings.Replace(string(must(status.Build(status.Message{ID: "r", Code: status.Processed, Number: "x"}))), ">11<", ">12<", 1)
	if err := ti.a.srv.Receive(ctx, "installation-b", "m4", []byte(invalid)); refusedField(err, "payload") != CodeInvalidStatus {
		t.Fatalf("an unknown status code: %v", err)
	}
	bad, _ := status.Build(status.Message{ID: "r", Code: status.Processed, Number: "unknown"})
	if err := ti.a.srv.Receive(ctx, "installation-b", "m3", bad); refusedField(err, "document") != CodeUnknownDocument {
		t.Fatalf("status of an unknown document: %v", err)
	}
}

func TestEDIStatusMessageEveryCode(t *testing.T) {
	env := newEDIEnv(t)
	ctx := context.Background()
	want := map[string][2]string{
		status.Accepted: {store.StateSent, ediAccepted}, status.Error: {store.StateToSend, ediError},
		status.Regularization: {store.StateRejected, ediRegularization}, status.Returned: {store.StateRejected, ediReturned},
		status.Processed: {store.StateAccepted, ediAccepted}, status.CreditAccepted: {store.StateAccepted, ediAccepted},
		status.InPayment: {store.StateAccepted, ediInPayment}, status.Paid: {store.StateAccepted, ediPaid},
	}
	for i, code := range status.Codes {
		number := "ST-" + code
		id := env.issueExternal(number)
		env.runDeliveries()
		d := env.document(id)
		raw, err := status.Build(status.Message{ID: "Response_" + code, IssuedAt: env.clock, Code: code, Description: "motivo " + code,
			Number: number, IssueDate: d.EmissionDate, TypeCode: d.TypeCode,
			Sender: status.Party{Name: "Entidade Externa", Country: "PT", TaxID: "PT" + externalNIF}, Receiver: status.Party{TaxID: "PT" + env.entity.NIF}})
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := status.Parse(raw)
		if err != nil || parsed.Code != code {
			t.Fatalf("%s: %v", code, err)
		}
		for range 2 { // the repeat is dropped
			if err := env.srv.Receive(ctx, "peer", "status-"+string(rune('a'+i)), raw); err != nil {
				t.Fatalf("%s: %v", code, err)
			}
		}
		env.wantState(id, want[code][0], want[code][1])
		h, _ := env.st.History(ctx, id)
		last := h[len(h)-1]
		if !strings.Contains(string(last.Data), `"edi_status":"`+code+`"`) || !strings.Contains(string(last.Data), "motivo "+code) {
			t.Fatalf("%s: history %s", code, last.Data)
		}
	}
}

func TestEDIInTestMode(t *testing.T) {
	env := newEDIEnv(t, func(c *Config) { c.Environment.Mode = "test" })
	ctx := context.Background()
	yes := true
	if _, err := env.st.UpdateEntity(ctx, env.entity.ID, store.EntityChanges{TestEntity: &yes}); err != nil {
		t.Fatal(err)
	}
	env.entity, _ = env.st.EntityByID(ctx, env.entity.ID)
	// To the external tax ID of an approved connection that names a partner: allowed, and delivered.
	id := env.issueExternal("TEST-1")
	env.runDeliveries()
	env.wantState(id, store.StateSent, ediDelivered)
	// Any other tax ID outside the installation keeps the test-mode rules.
	expectError(t, env.post("/documents", env.entity, "application/json", invoiceJSON("TEST-2", "123456789", "")), 400, "customer:e341")
}

// TestEDIThousandDocumentsBetweenTwoInstallations times 1,000 documents from one installation to
// another through the EDI queue (in-process connectors: the transport is not measured), each answered
// with an ACCEPTED status message. EINVOICE_EDI_LOAD=1 runs it.
func TestEDIThousandDocumentsBetweenTwoInstallations(t *testing.T) {
	if os.Getenv("EINVOICE_EDI_LOAD") != "1" {
		t.Skip("EINVOICE_EDI_LOAD=1 runs it")
	}
	ti := newTwoInstallations(t, func(c *Config) { c.RateLimit.RequestsPerMinute = 0 })
	const n = 1000
	start := time.Now()
	var ids []int64
	for i := range n {
		r := ti.a.post("/documents", ti.a.customer, "application/json", invoiceJSON(fmt.Sprintf("LOAD-%d", i), externalNIF, ""))
		if r.status != 201 {
			t.Fatalf("issue %d: %d %s", i, r.status, r.raw)
		}
		ids = append(ids, ti.a.rowID(store.KindDocument, data(r)["id"]))
	}
	issued := time.Since(start)
	ti.settle(t)
	took := time.Since(start)
	if total, _ := ti.b.inbox("?rows=1"); total != n {
		t.Fatalf("B received %d", total)
	}
	for _, id := range ids {
		if s, e := docState(t, ti.a.st, id); s != store.StateSent || e != ediAccepted {
			t.Fatalf("document %d at A: %s/%s", id, s, e)
		}
	}
	t.Logf("%d documents: issued in %v, delivered and answered ACCEPTED in %v more (%v in all)", n, issued, took-issued, took)
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
