package server

import (
	"errors"
	"testing"

	"einvoice/store"
)

// connectionsAnswer is a connection lookup that answers what it is told.
type connectionsAnswer struct {
	state string
	err   error
}

func (c connectionsAnswer) ConnectionState(a, b int64) (string, error) {
	return c.state, c.err
}

// Only a connection that does not exist routes a document as no_connection; any other error of the
// database fails the creation instead of storing a document with a false reason.
func TestRouteFailsOnDatabaseErrors(t *testing.T) {
	issuer, recipient := store.Entity{ID: 1}, &store.Entity{ID: 2}
	cases := []struct {
		name          string
		answer        connectionsAnswer
		state, toSend string
	}{
		{"none", connectionsAnswer{err: store.ErrNotFound}, store.StateToSend, toSendNoConnection},
		{"declined", connectionsAnswer{state: store.ConnDeclined}, store.StateToSend, toSendNoConnection},
		{"pending", connectionsAnswer{state: store.ConnPending}, store.StateToSend, toSendConnection},
		{"approved", connectionsAnswer{state: store.ConnApproved}, store.StateSent, ""},
	}
	for _, c := range cases {
		state, toSend, err := route(c.answer, issuer, recipient)
		if err != nil || state != c.state || toSend != c.toSend {
			t.Errorf("%s: %s %s %v", c.name, state, toSend, err)
		}
	}
	broken := errors.New("disk I/O error")
	if state, toSend, err := route(connectionsAnswer{err: broken}, issuer, recipient); !errors.Is(err, broken) {
		t.Fatalf("a database error routed the document: %s %s %v", state, toSend, err)
	}
}

// A creation refused because the document exists and can no longer be edited tells the document's id,
// so that a client whose first answer was lost learns it; the code stays e200.
func TestExistingDocumentRefusalCarriesItsID(t *testing.T) {
	env := newDocEnv(t)
	id := env.issue("FT E/1") // delivered: no longer editable
	for name, r := range map[string]response{
		"data": env.post("/documents", env.entity, "application/json", invoiceJSON("FT E/1", env.customer.NIF, "")),
		"ubl":  env.post("/documentsUBL", env.entity, "application/xml", string(buildXML(t, env, "FT E/1", env.customer.NIF))),
	} {
		expectError(t, r, 400, "number:e200")
		details, _ := r.body["errors"].(map[string]any)["number"].(map[string]any)["details"].(map[string]any)
		if details["id"] != id {
			t.Fatalf("%s: the refusal does not carry the id %s: %s", name, id, r.raw)
		}
	}
}
