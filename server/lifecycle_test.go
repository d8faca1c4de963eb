package server

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"einvoice/store"
)

func TestLifecycleTable(t *testing.T) {
	var (
		none          = docStatus{}
		toSend        = docStatus{store.StateToSend, ediPending}
		toSendError   = docStatus{store.StateToSend, ediError}
		delivered     = docStatus{store.StateSent, ediDelivered}
		forwarded     = docStatus{store.StateSent, ediAccepted}
		accepted      = docStatus{store.StateAccepted, ediAccepted}
		inPayment     = docStatus{store.StateAccepted, ediInPayment}
		paid          = docStatus{store.StateAccepted, ediPaid}
		rejected      = docStatus{store.StateRejected, ediRegularization}
		returned      = docStatus{store.StateRejected, ediReturned}
		inReception   = docStatus{store.StateSent, ediReception}
		issueOutcomes = []docStatus{delivered, toSend}
	)
	cases := []struct {
		on   docEvent
		by   actor
		from docStatus
		to   []docStatus // nil: refused; empty: allowed, nothing changes
	}{
		// The issuer: new documents and new versions of editable ones.
		{evIssue, byIssuer, none, issueOutcomes},
		{evIssue, byIssuer, toSend, issueOutcomes},
		{evIssue, byIssuer, toSendError, issueOutcomes},
		{evIssue, byIssuer, rejected, issueOutcomes},
		{evIssue, byIssuer, inReception, issueOutcomes},
		{evIssue, byIssuer, delivered, nil},
		{evIssue, byIssuer, forwarded, nil},
		{evIssue, byIssuer, accepted, nil},
		{evIssue, byIssuer, returned, nil},
		{evIssue, byIssuer, paid, nil},
		{evIssue, byRecipient, toSend, nil},
		{evAccept, byIssuer, delivered, nil},

		// The recipient here.
		{evAccept, byRecipient, delivered, []docStatus{accepted}},
		{evAccept, byRecipient, forwarded, []docStatus{accepted}},
		{evAccept, byRecipient, accepted, nil},
		{evAccept, byRecipient, rejected, nil},
		{evAccept, byRecipient, toSend, nil},
		{evReject, byRecipient, delivered, []docStatus{rejected}},
		{evReject, byRecipient, accepted, nil},
		{evReject, byRecipient, rejected, nil},
		{evImport, byRecipient, delivered, []docStatus{}},
		{evImport, byRecipient, accepted, []docStatus{}},
		{evImport, byRecipient, rejected, nil},
		{evImport, byIssuer, delivered, nil},
		{evProcessState, byRecipient, delivered, []docStatus{}},
		{evProcessState, byRecipient, accepted, []docStatus{}},
		{evProcessState, byRecipient, rejected, []docStatus{}},
		{evProcessState, byRecipient, toSend, nil},

		// The support team.
		{evReject, bySupport, delivered, []docStatus{rejected}},
		{evReject, bySupport, accepted, nil},
		{evAccept, bySupport, delivered, nil},

		// EDI status messages.
		{espapAccepted, byEDI, toSend, []docStatus{forwarded}},
		{espapAccepted, byEDI, delivered, []docStatus{forwarded}},
		{espapAccepted, byEDI, accepted, nil},
		{espapError, byEDI, toSend, []docStatus{toSendError}},
		{espapError, byEDI, delivered, []docStatus{toSendError}},
		{espapError, byEDI, accepted, nil},
		{espapRegularization, byEDI, forwarded, []docStatus{rejected}},
		{espapRegularization, byEDI, delivered, []docStatus{rejected}},
		{espapRegularization, byEDI, toSend, nil},
		{espapRegularization, byEDI, accepted, nil},
		{espapReturned, byEDI, forwarded, []docStatus{returned}},
		{espapReturned, byEDI, rejected, nil},
		{espapProcessed, byEDI, forwarded, []docStatus{accepted}},
		{espapProcessed, byEDI, accepted, nil},
		{espapCreditAccepted, byEDI, forwarded, []docStatus{accepted}},
		{espapInPayment, byEDI, accepted, []docStatus{inPayment}},
		{espapInPayment, byEDI, forwarded, []docStatus{inPayment}},
		{espapInPayment, byEDI, paid, nil},
		{espapPaid, byEDI, inPayment, []docStatus{paid}},
		{espapPaid, byEDI, accepted, []docStatus{paid}},
		{espapPaid, byEDI, rejected, nil},
		{espapPaid, byEDI, toSend, nil},
		{docEvent("99"), byEDI, forwarded, nil},

		// The EDI delivery of a document queued for a partner.
		{evEDIDelivered, byEDI, toSend, []docStatus{delivered}},
		{evEDIDelivered, byEDI, toSendError, nil},
		{evEDIDelivered, byEDI, delivered, nil},
		{evEDIDelivered, byEDI, forwarded, nil},
		{evEDIDelivered, byIssuer, toSend, nil},
		{evEDIFailed, byEDI, toSend, []docStatus{toSendError}},
		{evEDIFailed, byEDI, delivered, nil},
		{evEDIFailed, byEDI, toSendError, nil},
		{evEDIFailed, byRecipient, toSend, nil},
		{espapProcessed, byRecipient, forwarded, nil},
	}
	for _, c := range cases {
		d := store.Document{State: c.from.state, EDIState: c.from.edi}
		tr, ok := permit(c.on, c.by, d)
		switch {
		case c.to == nil && ok:
			t.Errorf("%s by %s from %v: allowed, want refused", c.on, c.by, c.from)
		case c.to != nil && !ok:
			t.Errorf("%s by %s from %v: refused, want allowed", c.on, c.by, c.from)
		case c.to != nil && !slices.Equal(tr.to, c.to) && !(len(tr.to) == 0 && len(c.to) == 0):
			t.Errorf("%s by %s from %v: leads to %v, want %v", c.on, c.by, c.from, tr.to, c.to)
		}
	}
}

// Every row names states that exist, and every eSPap code has its row.
func TestLifecycleNamesKnownStates(t *testing.T) {
	states := []string{store.StateToSend, store.StateSent, store.StateAccepted, store.StateRejected}
	edi := []string{ediPending, ediDelivered, ediAccepted, ediError, ediRegularization, ediReception, ediReturned, ediInPayment, ediPaid}
	codes := map[docEvent]bool{}
	for _, tr := range lifecycle {
		for _, s := range tr.from {
			if s != "" && !slices.Contains(states, s) {
				t.Errorf("%s: unknown state %q", tr.on, s)
			}
		}
		for _, s := range tr.fromEDI {
			if !slices.Contains(edi, s) {
				t.Errorf("%s: unknown EDI state %q", tr.on, s)
			}
		}
		for _, s := range tr.to {
			if s.state != "" && !slices.Contains(states, s.state) || s.edi != "" && !slices.Contains(edi, s.edi) {
				t.Errorf("%s: unknown outcome %v", tr.on, s)
			}
		}
		if tr.by == byEDI {
			codes[tr.on] = true
		}
	}
	for _, c := range []docEvent{espapAccepted, espapError, espapRegularization, espapReturned, espapProcessed, espapCreditAccepted, espapInPayment, espapPaid} {
		if !codes[c] {
			t.Errorf("eSPap code %s has no transition", c)
		}
	}
}

// EDI status messages move a document through the same path as the recipient's decisions: the
// document, its history, the issuer's states report and webhooks, and what the issuer may do next.
func TestEDIStatusMessages(t *testing.T) {
	env := newDocEnv(t)
	ctx := context.Background()
	if _, err := env.st.CreateWebhook(ctx, store.Webhook{EntityID: env.entity.ID, URL: "https://erp.example/hook", Key: "0123456789abcdef",
		Events: WebhookEvents}); err != nil {
		t.Fatal(err)
	}
	idOf := func(number string) int64 { return env.rowID(store.KindDocument, env.issue(number)) }
	apply := func(id int64, code string) (store.Document, error) {
		return env.srv.EDIStatus(ctx, id, code, "Falta o compromisso")
	}
	must := func(id int64, code string, want docStatus) {
		t.Helper()
		d, err := apply(id, code)
		if err != nil || d.State != want.state || d.EDIState != want.edi {
			t.Fatalf("%s: %v %s/%s, want %v", code, err, d.State, d.EDIState, want)
		}
	}
	events := func() int {
		_, total, err := env.st.StateEvents(ctx, store.EventFilter{EntityID: env.entity.ID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return total
	}
	outbox := func() int { return len(env.queued("webhook")) }

	paid := idOf("FT E/1")
	before, queued := events(), outbox()
	must(paid, "ACCEPTED", docStatus{store.StateSent, ediAccepted})
	must(paid, "11", docStatus{store.StateAccepted, ediAccepted})
	must(paid, "33", docStatus{store.StateAccepted, ediInPayment})
	must(paid, "29", docStatus{store.StateAccepted, ediPaid})
	if _, err := apply(paid, "14"); refusedField(err, "code") != CodeInvalidValue {
		t.Fatalf("14 after payment: %v", err)
	}
	if n := events() - before; n != 4 {
		t.Fatalf("%d states-report events for 4 changes", n)
	}
	if n := outbox() - queued; n != 4 {
		t.Fatalf("%d webhook deliveries for 4 changes", n)
	}
	history, err := env.st.History(ctx, paid)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, h := range history {
		kinds = append(kinds, h.Kind)
	}
	if want := []string{"state", "edi", "state", "edi", "edi"}; !slices.Equal(kinds, want) {
		t.Fatalf("history kinds %v, want %v", kinds, want)
	}

	// 14 asks for regularisation: the reason reaches the issuer and a new version may be sent.
	corrected := idOf("FT E/2")
	must(corrected, "14", docStatus{store.StateRejected, ediRegularization})
	doc := data(env.do("GET", "/api/v1/en/apps/documents/"+env.st.PublicID(store.KindDocument, corrected), env.as(env.entity, ""), ""))
	if reasons, _ := doc["reasons"].([]any); len(reasons) != 1 || reasons[0].(map[string]any)["reason"] != "Falta o compromisso" {
		t.Fatalf("issuer's view after 14: %v", doc)
	}
	if r := env.post("/documents", env.entity, "application/json", invoiceJSON("FT E/2", env.customer.NIF, "")); r.status != 200 {
		t.Fatalf("new version after 14: %d %s", r.status, r.raw)
	}

	// 22 returns it for good: a new document, not a new version.
	returned := idOf("FT E/3")
	must(returned, "22", docStatus{store.StateRejected, ediReturned})
	expectError(t, env.post("/documents", env.entity, "application/json", invoiceJSON("FT E/3", env.customer.NIF, "")), 400, "number:e200")

	if _, err := apply(paid+1000, "11"); codeFor(err) != CodeNotFound {
		t.Fatalf("unknown document: %v", err)
	}
	if _, err := env.srv.EDIStatus(ctx, corrected, "ACCEPTED", strings.Repeat("x", maxReasonLength+1)); refusedField(err, "description") != CodeInvalidValue {
		t.Fatalf("long description: %v", err)
	}
	if _, err := apply(returned, "ERROR"); refusedField(err, "code") != CodeInvalidValue {
		t.Fatalf("ERROR after 22: %v", err)
	}
}

// refusedField is the code a workflow error gives a field (nil when it names none).
func refusedField(err error, field string) *Code {
	var fe FieldErrors
	if !errors.As(err, &fe) {
		return nil
	}
	return fe[field].Code
}
