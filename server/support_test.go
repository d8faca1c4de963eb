package server

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"einvoice/signing"
	"einvoice/store"
)

// wantCode checks that a workflow error carries code: on field (a FieldErrors), or as the error's own
// code when field is "".
func wantWorkflowCode(t *testing.T, what string, err error, field string, code *Code) {
	t.Helper()
	got := ErrorCode(err)
	if field != "" {
		got = refusedField(err, field)
	}
	if got != code {
		t.Errorf("%s: %v, want %s on %q", what, err, code.ID, field)
	}
}

func TestSupportEntitiesRulesAndConnections(t *testing.T) {
	env := newTestEnv(t)
	w, ctx := env.srv.Workflow, context.Background()

	_, err := w.CreateEntity(ctx, store.NewEntity{Name: "  ", Country: "PT", NIF: "500000000"})
	wantWorkflowCode(t, "no name", err, "name", CodeRequired)
	_, err = w.CreateEntity(ctx, store.NewEntity{Name: "X", Country: "PT", NIF: "123456780"})
	wantWorkflowCode(t, "check digit", err, "nif", CodeInvalidValue)
	_, err = w.CreateEntity(ctx, store.NewEntity{Name: "X", Country: "P", NIF: "1"})
	wantWorkflowCode(t, "country", err, "country", CodeInvalidValue)
	_, err = w.CreateEntity(ctx, store.NewEntity{Name: "X", Country: "PT", NIF: "500000000", Transactions: -1})
	wantWorkflowCode(t, "negative balance", err, "transactions", CodeInvalidValue)
	_, err = w.CreateEntity(ctx, store.NewEntity{Name: "Outro", Country: "PT", NIF: env.entity.NIF})
	wantWorkflowCode(t, "same tax ID", err, "", CodeExists)
	b, err := w.CreateEntity(ctx, store.NewEntity{Name: " Cliente ", Country: "ES", NIF: "B12345678"})
	if err != nil || b.Name != "Cliente" {
		t.Fatalf("create: %v %+v", err, b)
	}

	bad := "not an address"
	_, err = w.UpdateEntity(ctx, b.ID, store.EntityChanges{MailReplyTo: &bad})
	wantWorkflowCode(t, "reply-to", err, "mail_reply_to", CodeInvalidValue)
	_, err = w.UpdateEntity(ctx, b.ID+100, store.EntityChanges{})
	wantWorkflowCode(t, "unknown entity", err, "", CodeNotFound)
	from := " contas@cliente.example "
	if e, err := w.UpdateEntity(ctx, b.ID, store.EntityChanges{MailFromAddress: &from}); err != nil || e.Mail.FromAddress != "contas@cliente.example" {
		t.Fatalf("update: %v %+v", err, e.Mail)
	}

	_, err = w.SetRecipientRule(ctx, b.ID, "colour", true)
	wantWorkflowCode(t, "unknown rule", err, "rule", CodeInvalidValue)
	_, err = w.SetRecipientRule(ctx, b.ID+100, ruleCommitmentNumber, true)
	wantWorkflowCode(t, "rule of unknown entity", err, "", CodeNotFound)
	if rules, err := w.SetRecipientRule(ctx, b.ID, rulePDFAttached, true); err != nil || !slices.Equal(rules, []string{rulePDFAttached}) {
		t.Fatalf("rule: %v %v", err, rules)
	}

	_, err = w.CreateConnection(ctx, store.NewConnection{FromEntityID: b.ID, ToEntityID: b.ID})
	wantWorkflowCode(t, "to itself", err, "to", CodeInvalidValue)
	_, err = w.CreateConnection(ctx, store.NewConnection{FromEntityID: env.entity.ID, ToEntityID: b.ID, State: "open"})
	wantWorkflowCode(t, "unknown state", err, "state", CodeInvalidValue)
	_, err = w.CreateConnection(ctx, store.NewConnection{FromEntityID: env.entity.ID, ToEntityID: b.ID + 100})
	wantWorkflowCode(t, "to an unknown entity", err, "", CodeNotFound)
	c, err := w.CreateConnection(ctx, store.NewConnection{FromEntityID: env.entity.ID, ToEntityID: b.ID})
	if err != nil || c.State != store.ConnAnalyzing {
		t.Fatalf("connection: %v %+v", err, c)
	}
	_, err = w.CreateConnection(ctx, store.NewConnection{FromEntityID: env.entity.ID, ToEntityID: b.ID})
	wantWorkflowCode(t, "second connection", err, "", CodeExists)
	_, err = w.SetConnectionState(ctx, 0, store.ConnApproved, "")
	wantWorkflowCode(t, "no id", err, "id", CodeRequired)
	_, err = w.SetConnectionState(ctx, c.ID+100, store.ConnApproved, "")
	wantWorkflowCode(t, "unknown connection", err, "", CodeNotFound)
	_, err = w.SetConnectionState(ctx, c.ID, store.ConnPending, strings.Repeat("x", maxReasonLength+1))
	wantWorkflowCode(t, "long reason", err, "reason", CodeInvalidValue)
	if c, err = w.SetConnectionState(ctx, c.ID, store.ConnPending, "falta o contrato"); err != nil || c.State != store.ConnPending || c.Reason != "falta o contrato" {
		t.Fatalf("pending: %v %+v", err, c)
	}
}

func TestSupportProcessStatesWebhooksAndCredentials(t *testing.T) {
	env := newTestEnv(t)
	w, ctx, e := env.srv.Workflow, context.Background(), env.entity

	_, err := w.CreateProcessState(ctx, store.ProcessState{EntityID: e.ID, Code: strings.Repeat("C", maxProcessStateCode+1), Name: "Pago"})
	wantWorkflowCode(t, "long code", err, "code", CodeInvalidValue)
	if _, err := w.CreateProcessState(ctx, store.ProcessState{EntityID: e.ID, Code: " PAGO ", Name: "Pago"}); err != nil {
		t.Fatal(err)
	}
	_, err = w.CreateProcessState(ctx, store.ProcessState{EntityID: e.ID, Code: "PAGO", Name: "Outra vez"})
	wantWorkflowCode(t, "same code", err, "", CodeExists)
	wantWorkflowCode(t, "delete unknown", w.DeleteProcessState(ctx, e.ID, "NADA"), "", CodeNotFound)
	if err := w.DeleteProcessState(ctx, e.ID, "PAGO"); err != nil {
		t.Fatal(err)
	}

	_, err = w.CreateWebhook(ctx, e.ID, "ftp://erp.example/hook", "0123456789abcdef", WebhookEvents)
	wantWorkflowCode(t, "ftp", err, "url", CodeInvalidValue)
	_, err = w.CreateWebhook(ctx, e.ID, "https://erp.example/hook", "short", WebhookEvents)
	wantWorkflowCode(t, "short key", err, "key", CodeInvalidValue)
	_, err = w.CreateWebhook(ctx, e.ID, "https://erp.example/hook", "0123456789abcdef", []string{"document.deleted"})
	wantWorkflowCode(t, "unknown event", err, "events", CodeInvalidValue)
	_, err = w.CreateWebhook(ctx, e.ID, "https://erp.example/hook", "0123456789abcdef", nil)
	wantWorkflowCode(t, "no event", err, "events", CodeRequired)
	hook, err := w.CreateWebhook(ctx, e.ID, "https://erp.example/hook", "0123456789abcdef", []string{eventReceived, eventReceived})
	if err != nil || !slices.Equal(hook.Events, []string{eventReceived}) {
		t.Fatalf("webhook: %v %+v", err, hook)
	}
	wantWorkflowCode(t, "delete unknown webhook", w.DeleteWebhook(ctx, hook.ID+100), "", CodeNotFound)

	_, _, err = w.CreateClient(ctx, "ERP", []string{ScopeStatesRead, "everything"})
	wantWorkflowCode(t, "unknown scope", err, "scopes", CodeInvalidValue)
	_, _, err = w.CreateClient(ctx, "ERP", nil)
	wantWorkflowCode(t, "no scope", err, "scopes", CodeRequired)
	client, secret, err := w.CreateClient(ctx, "ERP", []string{ScopeStatesRead, ScopeDocumentRead, ScopeStatesRead})
	if err != nil || secret == "" || !slices.Equal(client.Scopes, []string{ScopeDocumentRead, ScopeStatesRead}) {
		t.Fatalf("client: %v %+v", err, client)
	}
	_, err = w.AuthorizeClient(ctx, client.ClientID, e.ID+100)
	wantWorkflowCode(t, "authorise for an unknown entity", err, "", CodeNotFound)
	_, err = w.AuthorizeClient(ctx, "", e.ID)
	wantWorkflowCode(t, "no client", err, "client", CodeRequired)
	if _, err := w.AuthorizeClient(ctx, client.ClientID, e.ID); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := env.st.Authorization(ctx, client.ID, e.ID); err != nil || !ok {
		t.Fatalf("authorised: %v %v", ok, err)
	}
	_, err = w.RevokePlatformToken(ctx, client.ID)
	wantWorkflowCode(t, "a client is not a platform token", err, "", CodeNotFound)
	if c, err := w.RevokePlatformToken(ctx, env.tokenID); err != nil || c.ID != env.tokenID {
		t.Fatalf("revoke: %v", err)
	}
	if c, _ := env.st.CredentialByID(ctx, env.tokenID); !c.Disabled {
		t.Fatal("the revoked token is not disabled")
	}
	if c, err := w.DisableClient(ctx, client.ClientID); err != nil || c.ID != client.ID {
		t.Fatalf("disable: %v", err)
	}
}

func TestSupportSeals(t *testing.T) {
	env := newTestEnv(t)
	w, ctx, e := env.srv.Workflow, context.Background(), env.entity
	now := time.Now()
	p12 := func(seal *signing.Seal, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		data, err := pkcs12.Modern.Encode(seal.Signer, seal.Certificate, seal.Chain, "segredo")
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	good := p12(signing.SelfSignedSeal("Fornecedor", e.NIF, now.Add(-time.Hour), now.AddDate(1, 0, 0)))

	_, err := w.ImportSeal(ctx, e.ID, good, "errada")
	wantWorkflowCode(t, "wrong password", err, "file", CodeSealUnreadable)
	_, err = w.ImportSeal(ctx, e.ID, p12(signing.SelfSignedSeal("Fornecedor", e.NIF, now.AddDate(-2, 0, 0), now.AddDate(-1, 0, 0))), "segredo")
	wantWorkflowCode(t, "expired", err, "file", CodeSealUnusable)
	_, err = w.ImportSeal(ctx, e.ID, p12(signing.SelfSignedSeal("Outra", "500000000", now.Add(-time.Hour), now.AddDate(1, 0, 0))), "segredo")
	wantWorkflowCode(t, "another organisation", err, "file", CodeSealOtherParty)
	_, err = w.ImportSeal(ctx, e.ID, make([]byte, MaxSealFile+1), "segredo")
	wantWorkflowCode(t, "too large", err, "file", CodeInvalidValue)
	_, err = w.ImportSeal(ctx, e.ID+100, good, "segredo")
	wantWorkflowCode(t, "unknown entity", err, "", CodeNotFound)

	kept, err := w.ImportSeal(ctx, e.ID, good, "segredo")
	if err != nil || kept.EntityID != e.ID || !strings.Contains(kept.Subject, "Fornecedor") {
		t.Fatalf("import: %v %+v", err, kept)
	}
	if ent, _ := env.st.EntityByID(ctx, e.ID); !ent.ServiceSigning {
		t.Fatal("the entity is not signed for after the import")
	}
	if err := w.DeleteSeal(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	wantWorkflowCode(t, "delete twice", w.DeleteSeal(ctx, e.ID), "", CodeNotFound)
}
