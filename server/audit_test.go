package server

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"einvoice/store"
)

// Every support operation adds one audit row under the context's actor; a refused one adds none.
func TestSupportOperationsAreAudited(t *testing.T) {
	env := newTestEnv(t)
	w := env.srv.Workflow
	cli := WithActor(context.Background(), Actor{Kind: ActorCLI})
	portal := WithActor(context.Background(), Actor{Kind: ActorPortal, Name: "suporte"})

	other, err := w.CreateEntity(cli, store.NewEntity{Name: "Cliente", Country: "PT", NIF: "500000000"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.CreateEntity(cli, store.NewEntity{Name: "Repetida", Country: "PT", NIF: "500000000"}); ErrorCode(err) != CodeExists {
		t.Fatalf("a second entity with the tax ID: %v", err)
	}
	name, clientID := "Cliente, S.A.", ""
	steps := []func() error{
		func() error { _, err := w.UpdateEntity(portal, other.ID, store.EntityChanges{Name: &name}); return err },
		func() error { _, err := w.SetRecipientRule(portal, other.ID, "pdf_attached", true); return err },
		func() error {
			_, err := w.CreateProcessState(portal, store.ProcessState{EntityID: other.ID, Code: "PAGO", Name: "Pago"})
			return err
		},
		func() error { return w.DeleteProcessState(portal, other.ID, "PAGO") },
		func() error {
			_, err := w.CreateConnection(portal, store.NewConnection{FromEntityID: env.entity.ID, ToEntityID: other.ID})
			return err
		},
		func() error { c, _, err := w.CreateClient(portal, "erp", AllScopes); clientID = c.ClientID; return err },
		func() error { _, err := w.RevokePlatformToken(portal, env.tokenID); return err },
		func() error {
			_, err := w.CreateUser(context.Background(), NewUser{Username: "ana", Password: "a long password", Role: RoleSupport})
			return err
		},
		func() error { return w.ResetPassword(cli, "ana", "another long password") },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	entries, total, err := w.AuditLog(context.Background(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.ActorKind+"/"+e.Actor+" "+e.Action+" "+e.Subject)
	}
	conn, _, _ := w.Connections(context.Background(), "", 0, 1)
	want := []string{
		"cli/cli user.reset_password ana",
		"system/system user.create ana",
		"portal/suporte token.revoke token " + strconv.FormatInt(env.tokenID, 10),
		"portal/suporte client.create " + clientID,
		"portal/suporte connection.create " + conn[0].PublicID,
		"portal/suporte processstate.delete PT500000000",
		"portal/suporte processstate.create PT500000000",
		"portal/suporte rule.add PT500000000",
		"portal/suporte entity.update PT500000000",
		"cli/cli entity.create PT500000000",
	}
	if total != len(want) || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit log (%d):\n%s\nwant:\n%s", total, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(entries[len(entries)-2].Detail, `name="Cliente, S.A."`) {
		t.Fatalf("the update's detail: %q", entries[len(entries)-2].Detail)
	}

	// Filters and pages.
	for _, c := range []struct {
		f    store.AuditFilter
		want int
	}{
		{store.AuditFilter{Actor: "cli"}, 2},
		{store.AuditFilter{Action: "processstate."}, 2},
		{store.AuditFilter{Action: "processstate"}, 0},
		{store.AuditFilter{Action: "rule.add"}, 1},
		{store.AuditFilter{Subject: "500000000"}, 5},
		{store.AuditFilter{From: "2000-01-01", To: "2999-12-31"}, 10},
		{store.AuditFilter{To: "2000-01-01"}, 0},
	} {
		if _, n, err := w.AuditLog(context.Background(), c.f); err != nil || n != c.want {
			t.Errorf("filter %+v: %d entries, want %d (%v)", c.f, n, c.want, err)
		}
	}
	page, total, _ := w.AuditLog(context.Background(), store.AuditFilter{Offset: 8, Limit: 4})
	if total != 10 || len(page) != 2 || page[1].Action != "entity.create" {
		t.Fatalf("the last page: %d of %d", len(page), total)
	}
}
