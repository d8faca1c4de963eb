package server

import (
	"context"
	"strings"
	"testing"

	"einvoice/store"
)

// recipientSide is what a document shows of its recipient's doings: for the test's failure messages
// and checks.
func recipientSide(doc map[string]any) (reasons int, processState, importedAt any) {
	return len(doc["reasons"].([]any)), doc["process_state"], doc["imported_at"]
}

// An edit that sends a document to another customer cuts the previous recipient off: the new one sees
// none of what the previous one did (import, process state, rejection and its reason) in the document,
// its history or its states report, and the previous one no longer sees the document at all.
func TestEditToAnotherCustomerCutsThePreviousRecipientOff(t *testing.T) {
	env := newDocEnv(t)
	ctx := context.Background()
	first := env.customer
	second := env.mustEntity("Outro Cliente", "503504564")
	env.connect(env.entity, second, store.ConnApproved)
	env.authorize(second)
	yes := true
	env.st.UpdateEntity(ctx, first.ID, store.EntityChanges{ProcessStatesEnabled: &yes})
	env.st.CreateProcessState(ctx, store.ProcessState{EntityID: first.ID, Code: "PAGO", Name: "Pago"})

	// The first customer imports, sets a process state and rejects with a reason.
	id := env.issue("FT C/1")
	env.post("/documents/"+id, first, "", "")
	if r := env.do("PUT", "/api/v1/en/apps/documents/"+id+"/processstates", env.as(first, "application/json"), `{"identification_code": "PAGO"}`); r.status != 200 {
		t.Fatalf("process state: %d %s", r.status, r.raw)
	}
	if r := env.post("/documents/"+id+"/accepted", first, "application/json", `{"accepted": 0, "reason": "Segredo do primeiro cliente"}`); r.status != 200 {
		t.Fatalf("reject: %d %s", r.status, r.raw)
	}

	// The issuer corrects the customer.
	edit := env.post("/documents", env.entity, "application/json", invoiceJSON("FT C/1", second.NIF, ""))
	if edit.status != 200 || data(edit)["id"] != id || alias(data(edit)["state_document"]) != "sent" {
		t.Fatalf("edit: %d %s", edit.status, edit.raw)
	}

	get := func(as store.Entity, path string) response {
		return env.do("GET", "/api/v1/en/apps/documents/"+id+path, env.as(as, ""), "")
	}
	doc := get(second, "")
	if doc.status != 200 {
		t.Fatalf("the new customer's document: %d %s", doc.status, doc.raw)
	}
	if reasons, ps, imported := recipientSide(data(doc)); reasons != 0 || ps != nil || imported != nil {
		t.Fatalf("the new customer sees the previous one's doings: reasons %d, process state %v, imported %v", reasons, ps, imported)
	}
	history := get(second, "/history")
	for _, leak := range []string{"Segredo", "PAGO", `"kind":"import"`, `"kind":"process_state"`, `"rejected"`} {
		if strings.Contains(history.raw, leak) || strings.Contains(doc.raw, leak) {
			t.Fatalf("the new customer sees %s:\n%s\n%s", leak, doc.raw, history.raw)
		}
	}
	if n := len(history.body["response"].(map[string]any)["data"].([]any)); n == 0 {
		t.Fatalf("the new customer's history is empty: %s", history.raw)
	}
	report := env.do("GET", "/api/v1/en/apps/states-report/documents?document_id="+id, env.as(second, ""), "")
	if report.status != 200 || strings.Contains(report.raw, `"document_id":"`+id+`"`) {
		t.Fatalf("the new customer's states report: %d %s", report.status, report.raw)
	}
	// The new customer acts on a clean slate: it can import the document and has no process state.
	if r := env.post("/documents/"+id, second, "", ""); r.status != 200 {
		t.Fatalf("the new customer's import: %d %s", r.status, r.raw)
	}

	// The previous customer no longer sees it anywhere.
	for _, path := range []string{"", "/history", "/xml", "/pdf"} {
		expectError(t, get(first, path), 404, "e330")
	}
	expectError(t, env.post("/documents/"+id, first, "", ""), 404, "e330")
	if total, _ := env.inbox(""); total != 0 {
		t.Fatalf("the previous customer's inbox lists %d documents", total)
	}

	// The issuer keeps the whole story.
	issuerView := data(get(env.entity, ""))
	if reasons, _, _ := recipientSide(issuerView); reasons != 1 || !strings.Contains(get(env.entity, "/history").raw, `"kind":"process_state"`) {
		t.Fatalf("the issuer lost the history: %v", issuerView["reasons"])
	}
}

// An edit that sends a document to a customer that is not an entity here cuts the previous recipient
// off too.
func TestEditToAnUnregisteredCustomerCutsThePreviousRecipientOff(t *testing.T) {
	env := newDocEnv(t)
	id := env.issue("FT C/2")
	if r := env.post("/documents/"+id+"/accepted", env.customer, "application/json", `{"accepted": 0, "reason": "Cliente errado"}`); r.status != 200 {
		t.Fatalf("reject: %d %s", r.status, r.raw)
	}
	edit := env.post("/documents", env.entity, "application/json", invoiceJSON("FT C/2", "999999990", ""))
	if edit.status != 200 || data(edit)["to_send_status"].(map[string]any)["code"] != "registered_entity" {
		t.Fatalf("edit: %d %s", edit.status, edit.raw)
	}
	if d, err := env.st.DocumentByID(context.Background(), env.rowID(store.KindDocument, id)); err != nil || d.RecipientID != 0 {
		t.Fatalf("the document still names its previous recipient: %d %v", d.RecipientID, err)
	}
	expectError(t, env.do("GET", "/api/v1/en/apps/documents/"+id, env.as(env.customer, ""), ""), 404, "e330")
	expectError(t, env.do("GET", "/api/v1/en/apps/documents/"+id+"/history", env.as(env.customer, ""), ""), 404, "e330")
}
