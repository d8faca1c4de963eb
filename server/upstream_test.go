package server

import (
	"context"
	"net/http/httptest"
	"testing"

	"einvoice/server/edi"
	"einvoice/server/edi/upstream"
	"einvoice/store"
)

// An entity here forwards its documents to another einvoice installation where it is registered: the
// document appears there, its recipient there accepts it, and the state comes back here.
func TestUpstreamForwardsAndTheStateComesBack(t *testing.T) {
	ctx := context.Background()
	remote := newDocEnv(t) // the upstream: the same issuer, connected there with its customer 500000000
	ts := httptest.NewServer(remote.srv.Handler())
	t.Cleanup(ts.Close)

	local := newTestEnv(t)
	if _, err := local.srv.CreateUpstream(ctx, store.Upstream{Name: "hosted", BaseURL: ts.URL + "/api/v1/pt",
		ClientID: remote.client.ClientID, Secret: remote.secret, PublicKey: remote.entity.PublicKey}); err != nil {
		t.Fatal(err)
	}
	if _, err := local.srv.CreateConnection(ctx, store.NewConnection{FromEntityID: local.entity.ID, Upstream: "hosted",
		State: store.ConnApproved, ToExternal: store.PartyKey{Country: "PT", NIF: remote.customer.NIF, Name: "Cliente Publico"}}); err != nil {
		t.Fatal(err)
	}
	headers := local.auth(local.accessToken(local.client.ClientID, local.secret))
	headers["Content-Type"] = "application/json"
	r := local.do("POST", "/api/v1/en/apps/documents", headers, invoiceJSON("UP-1", remote.customer.NIF, ""))
	if r.status != 201 {
		t.Fatalf("issue: %d %s", r.status, r.raw)
	}
	id := local.rowID(store.KindDocument, data(r)["id"])
	if err := local.srv.deliverEDI(ctx); err != nil {
		t.Fatal(err)
	}
	if s, e := docState(t, local.st, id); s != store.StateSent || e != ediDelivered {
		t.Fatalf("after forwarding: %s/%s", s, e)
	}
	_, inbox := remote.inbox("")
	if len(inbox) != 1 || inbox[0].(map[string]any)["number"] != "UP-1" {
		t.Fatalf("the upstream's recipient inbox: %v", inbox)
	}
	remoteID := inbox[0].(map[string]any)["id"].(string)
	deliveries, _ := local.st.EDIDeliveries(ctx, store.EDIFilter{DocumentID: id, Limit: 10})
	if len(deliveries) != 1 || deliveries[0].RemoteID != remoteID {
		t.Fatalf("remote id: %+v, want %s", deliveries, remoteID)
	}

	if r := remote.post("/documents/"+remoteID+"/accepted", remote.customer, "application/json", `{"accepted": "1"}`); r.status != 200 {
		t.Fatalf("accept there: %d %s", r.status, r.raw)
	}
	if err := local.srv.pollEDI(ctx); err != nil {
		t.Fatal(err)
	}
	if s, e := docState(t, local.st, id); s != store.StateAccepted || e != ediAccepted {
		t.Fatalf("after polling: %s/%s", s, e)
	}
	// The events were confirmed there: the next poll finds nothing.
	report := remote.do("GET", "/api/v1/en/apps/states-report/documents", remote.as(remote.entity, ""), "")
	if total := report.body["response"].(map[string]any)["total"]; total != float64(0) {
		t.Fatalf("unread events left at the upstream: %v", total)
	}
	// A repeat after a crash (the same document again) counts as delivered, with the same remote id.
	xml, _ := local.st.DocumentFileByRole(ctx, id, store.FileXML)
	receipt, err := upstream.New(local.srv.upstreamConfig, nil).Deliver(ctx, ediDelivery("hosted", xml.Content))
	if err != nil || receipt.RemoteID != remoteID {
		t.Fatalf("a repeated delivery: %+v %v", receipt, err)
	}
}

func TestUpstreamCodes(t *testing.T) {
	for _, c := range []struct{ state, edi, want string }{
		{store.StateSent, ediDelivered, ""}, {store.StateToSend, ediPending, ""},
		{store.StateSent, ediAccepted, "ACCEPTED"}, {store.StateToSend, ediError, "ERROR"},
		{store.StateRejected, ediRegularization, "14"}, {store.StateRejected, ediReturned, "22"},
		{store.StateAccepted, ediAccepted, "11"}, {store.StateAccepted, ediInPayment, "33"}, {store.StateAccepted, ediPaid, "29"},
	} {
		if got := upstream.CodeOf(c.state, c.edi); got != c.want {
			t.Errorf("%s/%s: %q, want %q", c.state, c.edi, got, c.want)
		}
	}
}

func ediDelivery(partner string, payload []byte) edi.Delivery {
	return edi.Delivery{Kind: edi.KindDocument, Partner: partner, MessageID: "repeat@test", Payload: payload}
}
