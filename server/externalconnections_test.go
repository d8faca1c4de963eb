package server

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"einvoice/store"
)

// connectionForm is a good POST /apps/external-connections body; change edits it.
func connectionForm(change func(url.Values)) string {
	v := url.Values{
		"externalEntities[0][external_entity_name]":    {"Empresa Externa"},
		"externalEntities[0][external_entity_nif]":     {"501234560"},
		"externalEntities[0][external_entity_country]": {"PT"},
		"externalEntities[1][external_entity_name]":    {"Empresa Espanhola"},
		"externalEntities[1][external_entity_nif]":     {"B12345678"},
		"externalEntities[1][external_entity_country]": {"es"},
		"entity_nif":     {"500000000"},
		"entity_country": {"PT"},
		"operator_email": {"operacoes@broker.example"},
		"observation":    {"Pedido do cliente"},
	}
	if change != nil {
		change(v)
	}
	return v.Encode()
}

func TestCreateExternalConnections(t *testing.T) {
	outbox := t.TempDir()
	env := newTestEnv(t, func(c *Config) { c.Mail.Transport, c.Mail.OutboxDir = "outbox", outbox })
	env.mustEntity("Entidade Publica", "500000000")
	ctx := context.Background()
	tok := env.accessToken(env.client.ClientID, env.secret)
	form := env.auth(tok)
	form["Content-Type"] = "application/x-www-form-urlencoded"

	r := env.do("POST", "/api/v1/en/apps/external-connections", form, connectionForm(nil))
	if r.status != 201 || r.body["success"] != "true" || r.body["message"].(map[string]any)["code"] != "s039" {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	items := r.body["response"].([]any)
	if len(items) != 2 || items[0].(map[string]any)["external_entity_nif"] != "501234560" || items[1].(map[string]any)["external_entity_nif"] != "B12345678" {
		t.Fatalf("items: %v", items)
	}
	id := items[0].(map[string]any)["id"].(string)
	got := env.do("GET", "/api/v1/en/apps/external-connections/"+id, env.auth(tok), "")
	conn := data(got)
	if got.status != 200 || conn["created_entity"].(map[string]any)["nif"] != "501234560" || conn["receiver_entity"].(map[string]any)["nif"] != "500000000" ||
		alias(conn["state_external_connection"]) != store.ConnAnalyzing || alias(conn["type_external_connection"]) != "inbound" {
		t.Fatalf("read back: %d %s", got.status, got.raw)
	}

	// The operator is told of the request, then of the support team's decision.
	if err := env.srv.deliverConnectionMail(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countMails(t, outbox); n != 2 {
		t.Fatalf("confirmation e-mails: %d", n)
	}
	note := "Ligação ativa a partir de amanhã"
	c, err := env.srv.DecideConnection(ctx, env.rowID(store.KindConnection, id), ConnectionDecision{State: store.ConnApproved, AdminObservation: &note})
	if err != nil || c.State != store.ConnApproved || c.AdminObservation != note {
		t.Fatalf("approve: %+v %v", c, err)
	}
	if err := env.srv.deliverConnectionMail(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countMails(t, outbox); n != 3 {
		t.Fatalf("e-mails after the decision: %d", n)
	}
	if got := env.do("GET", "/api/v1/en/apps/external-connections/"+id, env.auth(tok), ""); !strings.Contains(got.raw, note) {
		t.Fatalf("admin observation: %s", got.raw)
	}

	// The same pair again, and multipart.
	expectError(t, env.do("POST", "/api/v1/en/apps/external-connections", form, connectionForm(func(v url.Values) {
		for _, f := range []string{"name", "nif", "country"} {
			v.Del("externalEntities[1][external_entity_" + f + "]")
		}
	})), 400, "externalEntities[0][external_entity_nif]:e451")
	body, contentType := multipartBody(t, map[string]string{
		"externalEntities[3][external_entity_name]": "Outra", "externalEntities[3][external_entity_nif]": "123456789",
		"externalEntities[3][external_entity_country]": "PT", "entity_nif": "500000000", "entity_country": "PT",
		"operator_email": "operacoes@broker.example",
	}, nil)
	multipart := env.auth(tok)
	multipart["Content-Type"] = contentType
	if r := env.do("POST", "/api/v1/en/apps/external-connections", multipart, body); r.status != 201 {
		t.Fatalf("multipart: %d %s", r.status, r.raw)
	}
}

func countMails(t *testing.T, dir string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.eml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		if !strings.Contains(string(raw), "operacoes@broker.example") {
			t.Fatalf("%s is not to the operator", f)
		}
	}
	return len(files)
}

func TestCreateExternalConnectionsRefusesEachBadField(t *testing.T) {
	env := newTestEnv(t)
	env.mustEntity("Entidade Publica", "500000000")
	tok := env.accessToken(env.client.ClientID, env.secret)
	form := env.auth(tok)
	form["Content-Type"] = "application/x-www-form-urlencoded"
	set := func(k, v string) func(url.Values) { return func(vs url.Values) { vs.Set(k, v) } }
	del := func(k string) func(url.Values) { return func(vs url.Values) { vs.Del(k) } }
	name, nif, country := "externalEntities[1][external_entity_name]", "externalEntities[1][external_entity_nif]", "externalEntities[1][external_entity_country]"
	cases := []struct {
		change func(url.Values)
		want   string
	}{
		{del("entity_nif"), "entity_nif:e301"},
		{set("entity_nif", "123"), "entity_nif:e302"},
		{set("entity_nif", "600000001"), "entity_nif:e450"},
		{del("entity_country"), "entity_country:e301"},
		{set("entity_country", "PRT"), "entity_country:e302"},
		{del("operator_email"), "operator_email:e301"},
		{set("operator_email", "not an address"), "operator_email:e302"},
		{set("observation", strings.Repeat("x", maxDescriptionLength+1)), "observation:e302"},
		{del(name), name + ":e301"},
		{set(name, strings.Repeat("x", maxNameLength+1)), name + ":e302"},
		{del(nif), nif + ":e301"},
		{set(nif, "B-123"), nif + ":e302"},
		{func(v url.Values) { v.Set(nif, "501234560"); v.Set(country, "PT") }, nif + ":e302"}, // the same external entity twice
		{del(country), country + ":e301"},
		{set(country, "Spain"), country + ":e302"},
		{set("externalEntities[1][other]", "x"), "externalEntities[1][other]:e337"},
		{set("partner", "x"), "partner:e337"},
		{func(v url.Values) {
			for k := range v {
				if strings.HasPrefix(k, "externalEntities") {
					v.Del(k)
				}
			}
		}, "externalEntities:e301"},
	}
	for _, c := range cases {
		expectError(t, env.do("POST", "/api/v1/en/apps/external-connections", form, connectionForm(c.change)), 400, c.want)
	}
	n, _ := env.st.Connections(context.Background())
	if len(n) != 0 {
		t.Fatalf("refused requests stored %d connections", len(n))
	}
}
