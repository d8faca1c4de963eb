package portal

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"einvoice/server"
	"einvoice/signing"
	"einvoice/store"
)

// settingsFixture gives the stranger entity (administered by "outra") something in every section: a
// profile, notifications, a webhook with a delivery, a process state, a recipient rule, a seal that
// expires in ten days and a second user.
func settingsFixture(t *testing.T, s *site) store.Webhook {
	t.Helper()
	ctx := context.Background()
	id := s.stranger.ID
	if _, err := s.srv.UpdateProfile(ctx, id, s.stranger.Name, store.Profile{Street: "Rua Augusta", PostalZone: "1100-053",
		City: "Lisboa", Country: "PT", IBAN: "PT50000201231234567890154"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.srv.UpdateNotifications(ctx, id, true, true, []string{"copia@outra.example"}); err != nil {
		t.Fatal(err)
	}
	hook, err := s.srv.CreateWebhook(ctx, id, "https://hooks.outra.example/einvoice", "outra key 0123456789", server.WebhookEvents)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.st.EnqueueWebhookTest(ctx, hook); err != nil {
		t.Fatal(err)
	}
	due, _ := s.st.ClaimOutbox(ctx, "webhook", "9999", "9999", 10)
	if err := s.st.RecordOutbox(ctx, []store.OutboxResult{{ID: due[0].ID, Failed: true, Error: "HTTP 503",
		Attempt: &store.WebhookAttempt{WebhookID: hook.ID, Attempt: 1, StatusCode: 503, LatencyMS: 12, Error: "HTTP 503"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.srv.CreateProcessState(ctx, store.ProcessState{EntityID: id, Code: "PAGO", Name: "Pago"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.srv.SetRecipientRule(ctx, id, "commitment_number", true); err != nil {
		t.Fatal(err)
	}
	seal, err := signing.SelfSignedSeal(s.stranger.Name, s.stranger.NIF, time.Now().Add(-time.Hour), time.Now().Add(10*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := server.KeepSeal(ctx, s.st, id, seal); err != nil {
		t.Fatal(err)
	}
	if _, err := s.srv.AddEntityUser(ctx, id, "contabilista", store.RoleViewer, password); err != nil {
		t.Fatal(err)
	}
	return hook
}

// Every section renders with fixture data for the entity's administrator and for support; anyone
// else gets the same 404 as any page that is not there.
func TestSettingsPagesRenderForAdministratorsOnly(t *testing.T) {
	s := newSite(t)
	settingsFixture(t, s)
	admin, operator, support := s.browser(), s.browser(), s.browser()
	admin.login("outra")
	operator.login("fornecedor")
	support.login("suporte")

	for section, want := range map[string]string{
		"":              `value="Rua Augusta"`,
		"profile":       `value="PT50000201231234567890154"`,
		"mail":          `name="reply_to"`,
		"notifications": "copia@outra.example",
		"webhooks":      `<td>webhook.test</td>`,
		"processstates": "<td>PAGO</td>",
		"rules":         "Número de compromisso obrigatório",
		"seal":          `data-message="settings.seal.expires_soon"`,
		"users":         `data-user="contabilista"`,
	} {
		path := strings.TrimSuffix("/portal/settings/"+section, "/")
		resp, body := admin.do(http.MethodGet, path, nil)
		if resp.StatusCode != 200 || !strings.Contains(body, want) || !strings.Contains(body, `href="/portal/settings" aria-current="page"`) {
			t.Errorf("%s: %d, want %s", path, resp.StatusCode, want)
		}
		if resp, _ := operator.do(http.MethodGet, path, nil); resp.StatusCode != 404 {
			t.Errorf("%s as an operator: %d", path, resp.StatusCode)
		}
	}
	if _, body := operator.do(http.MethodGet, "/portal/", nil); strings.Contains(body, `href="/portal/settings"`) {
		t.Error("an operator's menu links to the settings")
	}
	if resp, _ := operator.do(http.MethodPost, "/portal/settings/profile", url.Values{"name": {"X"}}); resp.StatusCode != 404 {
		t.Errorf("an operator posts the profile: %d", resp.StatusCode)
	}
	// Support sees the settings of the entity it chose.
	support.do(http.MethodPost, "/portal/entity", url.Values{"entity": {"PT" + s.stranger.NIF}, "next": {"/portal/"}})
	if resp, body := support.do(http.MethodGet, "/portal/settings/webhooks", nil); resp.StatusCode != 200 || !strings.Contains(body, "hooks.outra.example") {
		t.Errorf("support: %d", resp.StatusCode)
	}
}

func TestSettingsFormsPostRedirectAndRefuse(t *testing.T) {
	s := newSite(t)
	settingsFixture(t, s)
	ctx := context.Background()
	b := s.browser()
	b.login("outra")

	profile := url.Values{"name": {"Outra, Lda."}, "street": {"Rua Nova"}, "postal_zone": {"1000-001"}, "city": {"Lisboa"},
		"country": {"PT"}, "iban": {"PT50000201231234567890155"}, "gln": {"5601234000016"}}
	resp, body := b.do(http.MethodPost, "/portal/settings/profile", profile)
	if resp.StatusCode != 400 || !strings.Contains(body, `data-code="`+server.CodeInvalidIBAN.ID+`"`) || !strings.Contains(body, `value="Rua Nova"`) {
		t.Fatalf("bad IBAN: %d", resp.StatusCode)
	}
	profile.Set("iban", "PT50000201231234567890154")
	if resp, _ := b.do(http.MethodPost, "/portal/settings/profile", profile); resp.StatusCode != http.StatusSeeOther ||
		resp.Header.Get("Location") != "/portal/settings/profile" {
		t.Fatalf("profile: %d", resp.StatusCode)
	}
	if _, body := b.do(http.MethodGet, "/portal/settings/profile", nil); !strings.Contains(body, `data-message="settings.saved"`) ||
		!strings.Contains(body, `value="Rua Nova"`) {
		t.Fatal("no flash, or the profile was not kept")
	}

	// A webhook whose key is left empty gets one, shown this once.
	resp, body = b.do(http.MethodPost, "/portal/settings/webhooks", url.Values{"url": {"https://erp.outra.example/hook"},
		"events": {"document.received"}})
	if resp.StatusCode != 200 || !strings.Contains(body, `data-message="settings.webhooks.key_once"`) || !strings.Contains(body, "whsec_") {
		t.Fatalf("new webhook: %d", resp.StatusCode)
	}
	if resp, body := b.do(http.MethodPost, "/portal/settings/webhooks", url.Values{"url": {"https://x.example"}, "key": {"short"},
		"events": {"document.received"}}); resp.StatusCode != 400 || !strings.Contains(body, `data-code="`+server.CodeInvalidValue.ID+`"`) {
		t.Fatalf("short key: %d", resp.StatusCode)
	}
	hooks, _ := s.st.Webhooks(ctx, s.stranger.ID)
	if len(hooks) != 2 || !strings.HasPrefix(hooks[1].Key, "whsec_") {
		t.Fatalf("webhooks %+v", hooks)
	}
	id := strconv.FormatInt(hooks[1].ID, 10)
	if resp, _ := b.do(http.MethodPost, "/portal/settings/webhooks/"+id, url.Values{"url": {"https://erp.outra.example/v2"},
		"events": {"document.received", "document.state_changed"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit: %d", resp.StatusCode)
	}
	if h, _ := s.st.WebhookByID(ctx, hooks[1].ID); h.URL != "https://erp.outra.example/v2" || h.Key != hooks[1].Key || len(h.Events) != 2 {
		t.Fatalf("edited %+v", h)
	}
	for _, path := range []string{"/test", "/delete"} {
		if resp, _ := b.do(http.MethodPost, "/portal/settings/webhooks/"+id+path, url.Values{}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
	}
	// Another entity's webhook is not there.
	theirs, _ := s.srv.CreateWebhook(ctx, s.supplier.ID, "https://fornecedor.example/h", "fornecedor key 0123", server.WebhookEvents)
	if resp, _ := b.do(http.MethodPost, "/portal/settings/webhooks/"+strconv.FormatInt(theirs.ID, 10)+"/delete", url.Values{}); resp.StatusCode != 404 {
		t.Fatalf("another entity's webhook: %d", resp.StatusCode)
	}

	if resp, _ := b.do(http.MethodPost, "/portal/settings/processstates", url.Values{"code": {"ARQ"}, "name": {"Arquivado"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("process state: %d", resp.StatusCode)
	}
	if resp, _ := b.do(http.MethodPost, "/portal/settings/processstates/delete", url.Values{"code": {"PAGO"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete process state: %d", resp.StatusCode)
	}
	if resp, _ := b.do(http.MethodPost, "/portal/settings/processstates/delete", url.Values{"code": {"PAGO"}}); resp.StatusCode != 404 {
		t.Fatalf("delete it again: %d", resp.StatusCode)
	}
	if resp, _ := b.do(http.MethodPost, "/portal/settings/notifications", url.Values{"on_received": {"1"}, "cc": {"a@outra.example\nb@outra.example"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("notifications: %d", resp.StatusCode)
	}
	if n, _ := s.st.NotificationsOf(ctx, s.stranger.ID); !n.OnReceived || n.OnRejected || len(n.CC) != 2 {
		t.Fatalf("notifications %+v", n)
	}
	if resp, body := b.do(http.MethodPost, "/portal/settings/mail", url.Values{"reply_to": {"contas"}}); resp.StatusCode != 400 ||
		!regexp.MustCompile(`name="reply_to"[^>]*value="contas">\s*<span class="field-error" data-code="`+server.CodeInvalidValue.ID+`"`).MatchString(body) {
		t.Fatalf("bad reply-to: %d", resp.StatusCode)
	}
	if resp, _ := b.do(http.MethodPost, "/portal/settings/mail", url.Values{"from_name": {"Outra Faturação"}, "reply_to": {"contas@outra.example"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sender: %d", resp.StatusCode)
	}

	if resp, _ := b.do(http.MethodPost, "/portal/settings/users", url.Values{"username": {"nova@outra.example"}, "role": {"operator"},
		"password": {password}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add user: %d", resp.StatusCode)
	}
	if resp, body := b.do(http.MethodPost, "/portal/settings/users/outra/role", url.Values{"role": {"viewer"}}); resp.StatusCode != 400 ||
		!strings.Contains(body, `data-code="`+server.CodeOwnUser.ID+`"`) {
		t.Fatalf("own role: %d", resp.StatusCode)
	}
	if resp, _ := b.do(http.MethodPost, "/portal/settings/users/contabilista/disable", url.Values{"disabled": {"1"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("disable: %d", resp.StatusCode)
	}
	if resp, _ := b.do(http.MethodPost, "/portal/settings/users/fornecedor/role", url.Values{"role": {"admin"}}); resp.StatusCode != 400 {
		t.Fatalf("another entity's user: %d", resp.StatusCode)
	}
	viewer := s.browser()
	resp, _ = viewer.do(http.MethodPost, "/portal/login", url.Values{"username": {"contabilista"}, "password": {password}})
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a disabled user signs in: %d", resp.StatusCode)
	}
}

// An entity's administrator cannot test another entity's webhook nor redeliver its attempts: both are
// the same 404 as a missing row, and nothing is queued.
func TestSettingsWebhookActionsStayInTheEntity(t *testing.T) {
	s := newSite(t)
	ctx := context.Background()
	theirs, err := s.srv.CreateWebhook(ctx, s.customer.ID, "https://erp.cliente.example/hook", "cliente key 0123456789", server.WebhookEvents)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.st.EnqueueWebhookTest(ctx, theirs); err != nil {
		t.Fatal(err)
	}
	due, _ := s.st.ClaimOutbox(ctx, "webhook", "9999", "9999", 10)
	if err := s.st.RecordOutbox(ctx, []store.OutboxResult{{ID: due[0].ID, Failed: true, Error: "HTTP 503",
		Attempt: &store.WebhookAttempt{WebhookID: theirs.ID, Attempt: 1, StatusCode: 503, Error: "HTTP 503"}}}); err != nil {
		t.Fatal(err)
	}
	attempts, err := s.st.WebhookDeliveries(ctx, s.customer.ID, 10)
	if err != nil || len(attempts) != 1 {
		t.Fatalf("attempts %+v: %v", attempts, err)
	}
	admin := s.browser()
	admin.login("outra")
	for _, path := range []string{
		"/portal/settings/webhooks/" + strconv.FormatInt(theirs.ID, 10) + "/test",
		"/portal/settings/webhooks/attempts/" + strconv.FormatInt(attempts[0].ID, 10) + "/redeliver",
	} {
		if resp, _ := admin.do(http.MethodPost, path, url.Values{}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
	}
	if due, _ := s.st.ClaimOutbox(ctx, "webhook", "9999", "9999", 10); len(due) != 0 {
		t.Fatalf("queued for another entity's webhook: %+v", due)
	}
}
