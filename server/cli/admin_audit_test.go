package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"einvoice/store"
)

// The admin commands' changes are in the audit log under "cli", and `admin audit list` shows them.
func TestAdminChangesAreAudited(t *testing.T) {
	t.Setenv(envSecretKey, "admin-test-secret-key")
	data := t.TempDir()
	admin := func(args ...string) (int, string, string) {
		return runCLI(t, append(append([]string{"admin"}, args...), "--data", data)...)
	}
	admin("entity", "create", "--name", "Empresa A", "--nif", "508025338")
	admin("entity", "update", "--nif", "508025338", "--test-entity", "on")
	_, out, _ := admin("client", "create", "--name", "ERP", "--json")
	var client struct {
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal([]byte(out), &client); err != nil || client.ClientID == "" {
		t.Fatalf("client create: %v %s", err, out)
	}
	if code, _, _ := admin("entity", "create", "--name", "Repetida", "--nif", "508025338"); code != 1 {
		t.Fatalf("a second entity with the tax ID: exit %d", code)
	}
	code, out, errOut := admin("audit", "list", "--json")
	if code != 0 {
		t.Fatalf("audit list: %d %s", code, errOut)
	}
	var entries []store.AuditEntry
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.ActorKind+"/"+e.Actor+" "+e.Action+" "+e.Subject)
	}
	want := "cli/cli client.create " + client.ClientID + "\ncli/cli entity.update PT508025338\ncli/cli entity.create PT508025338"
	if strings.Join(got, "\n") != want || entries[1].Detail != "test=true" {
		t.Fatalf("audit log:\n%s", strings.Join(got, "\n"))
	}
	code, out, _ = admin("audit", "list", "--action", "entity.", "--limit", "1", "--page", "2")
	if code != 0 || !strings.Contains(out, "2 change(s)") || !strings.Contains(out, "entity.create") || strings.Contains(out, "entity.update") {
		t.Fatalf("filtered, second page: %d %s", code, out)
	}
	if code, _, _ = admin("audit", "list", "--from", "yesterday"); code != 2 {
		t.Fatalf("a bad date: exit %d", code)
	}
}
