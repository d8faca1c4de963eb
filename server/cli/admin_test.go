package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs one command line in-process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestAdminCommands(t *testing.T) {
	t.Setenv(envSecretKey, "admin-test-secret-key")
	data := t.TempDir()
	admin := func(args ...string) (int, string, string) {
		return runCLI(t, append(append([]string{"admin"}, args...), "--data", data)...)
	}
	mustJSON := func(args ...string) map[string]any {
		t.Helper()
		code, out, errOut := admin(append(args, "--json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return v
	}

	e := mustJSON("entity", "create", "--name", "Empresa A", "--nif", "508025338", "--pays-received", "--transactions", "5")
	if e["nif"] != "508025338" || e["country"] != "PT" || e["pays_received"] != true || e["transactions"] != float64(5) {
		t.Fatalf("created %v", e)
	}
	mustJSON("entity", "create", "--name", "Empresa B", "--nif", "PT500000000")
	if u := mustJSON("entity", "update", "--nif", "508025338", "--process-states", "on", "--signs-itself", "on", "--transactions", "9"); u["process_states_enabled"] != true || u["signs_itself"] != true || u["transactions"] != float64(9) {
		t.Fatalf("updated %v", u)
	}
	if s := mustJSON("entity", "show", "--nif", "508025338"); s["public_key"] != e["public_key"] {
		t.Fatalf("show %v", s)
	}

	c := mustJSON("client", "create", "--name", "ERP", "--scopes", "document_read,states_read")
	if c["client_id"] == "" || c["client_secret"] == "" {
		t.Fatalf("client %v", c)
	}
	mustJSON("client", "authorize", "--client", c["client_id"].(string), "--nif", "508025338")
	mustJSON("client", "disable", "--client", c["client_id"].(string))
	tok := mustJSON("token", "create", "--name", "Legacy")
	if !strings.HasPrefix(tok["token"].(string), "pt_") {
		t.Fatalf("token %v", tok)
	}
	conn := mustJSON("connection", "create", "--from", "508025338", "--to", "500000000")
	if conn["state"] != "analyzing" {
		t.Fatalf("connection %v", conn)
	}
	if d := mustJSON("connection", "decline", "--id", "1", "--reason", "missing contract"); d["state"] != "declined" || d["reason"] != "missing contract" {
		t.Fatalf("declined %v", d)
	}
	if code, out, _ := admin("rule", "add", "--nif", "500000000", "--rule", "commitment_number", "--json"); code != 0 || !strings.Contains(out, `"commitment_number"`) {
		t.Fatalf("rule add: %d %s", code, out)
	}
	if code, out, _ := admin("rule", "remove", "--nif", "500000000", "--rule", "commitment_number"); code != 0 || strings.Contains(out, "commitment_number") {
		t.Fatalf("rule remove: %d %s", code, out)
	}
	if u := mustJSON("entity", "update", "--nif", "508025338", "--mail-from-name", "Faturação A", "--mail-from", "faturas@a.example",
		"--mail-reply-to", "contas@a.example", "--mail-xml", "on"); u["mail"].(map[string]any)["from_address"] != "faturas@a.example" ||
		u["mail"].(map[string]any)["attach_xml"] != true {
		t.Fatalf("mail settings %v", u)
	}
	if u := mustJSON("entity", "update", "--nif", "508025338", "--mail-from", ""); u["mail"].(map[string]any)["from_address"] != "" ||
		u["mail"].(map[string]any)["reply_to"] != "contas@a.example" {
		t.Fatalf("cleared From %v", u)
	}
	if code, out, _ := admin("emails", "list", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("emails list: %d %s", code, out)
	}
	if code, out, _ := admin("emails", "outbox"); code != 0 || !strings.Contains(out, "0 message(s)") {
		t.Fatalf("emails outbox: %d %s", code, out)
	}
	os.MkdirAll(filepath.Join(data, "mail-outbox"), 0o700)
	os.WriteFile(filepath.Join(data, "mail-outbox", "20261120T100000-x.eml"), []byte("Return-Path: <b@x>\r\nTo: <c@cliente.example>\r\n"+
		"Subject: =?UTF-8?q?Fatura_FT_1_de_Empresa_A=C3=A7?=\r\nDate: Fri, 20 Nov 2026 10:00:00 +0000\r\n\r\nbody\r\n"), 0o600)
	if code, out, _ := admin("emails", "outbox"); code != 0 || !strings.Contains(out, "1 message(s)") || !strings.Contains(out, "Fatura FT 1 de Empresa Aç") {
		t.Fatalf("emails outbox: %d %s", code, out)
	}
	if code, out, _ := admin("entity", "list"); code != 0 || !strings.Contains(out, "Empresa B") {
		t.Fatalf("list: %d %s", code, out)
	}

	failures := []struct {
		args []string
		code int
	}{
		{[]string{"entity", "create", "--name", "X", "--nif", "123456780"}, 1},           // check digit
		{[]string{"entity", "create", "--name", "X", "--nif", "508025338"}, 1},           // exists
		{[]string{"entity", "create", "--nif", "123456789"}, 2},                          // missing --name
		{[]string{"entity", "create", "--name", "X", "--nif", "1", "--country", "P"}, 2}, // bad country
		{[]string{"entity", "show", "--nif", "123456789"}, 1},                            // unknown entity
		{[]string{"entity", "update", "--nif", "508025338", "--signs-itself", "maybe"}, 2},
		{[]string{"client", "authorize", "--client", "nobody", "--nif", "508025338"}, 1},
		{[]string{"client", "create", "--name", "X", "--scopes", "everything"}, 2},
		{[]string{"token", "revoke", "--id", "999"}, 1},
		{[]string{"connection", "approve"}, 2},
		{[]string{"connection", "create", "--from", "508025338", "--to", "508025338"}, 2},
		{[]string{"entity", "destroy"}, 2},
		{[]string{"rule", "add", "--nif", "500000000", "--rule", "colour"}, 2},
		{[]string{"entity", "update", "--nif", "508025338", "--mail-from", "not an address"}, 2},
		{[]string{"emails", "list", "--state", "lost"}, 2},
	}
	for _, f := range failures {
		code, _, errOut := admin(f.args...)
		if code != f.code || strings.TrimSpace(errOut) == "" {
			t.Errorf("%v: exit %d (want %d), stderr %q", f.args, code, f.code, errOut)
		}
	}
}

func TestTopLevelCommands(t *testing.T) {
	if code, out, _ := runCLI(t, "--new-config"); code != 0 || out != ExampleConfig {
		t.Fatalf("--new-config: %d", code)
	}
	if code, out, _ := runCLI(t, "version"); code != 0 || !strings.HasPrefix(out, "einvoice ") {
		t.Fatalf("version: %d %q", code, out)
	}
	if code, _, _ := runCLI(t, "frobnicate"); code != 2 {
		t.Fatalf("unknown command: %d", code)
	}
}

// Without --data and without a configuration, admin commands look in ./data and say so when there is no
// installation there; they do not create one. Help exits 0.
func TestAdminWithoutAnInstallation(t *testing.T) {
	t.Setenv(envConfig, "")
	t.Setenv(envSecretKey, "admin-test-secret-key")
	t.Chdir(t.TempDir())
	code, _, errOut := runCLI(t, "admin", "entity", "list")
	if code != 2 || !strings.Contains(errOut, "data") || !strings.Contains(errOut, "--data") {
		t.Fatalf("entity list: %d %q", code, errOut)
	}
	if _, err := os.Stat("data"); !os.IsNotExist(err) {
		t.Fatalf("./data was created: %v", err)
	}
	for _, args := range [][]string{{"admin", "--help"}, {"admin", "help"}, {"admin", "-h"}, {"admin", "entity", "create", "--help"}} {
		if code, out, errOut := runCLI(t, args...); code != 0 || out+errOut == "" {
			t.Errorf("%v: exit %d", args, code)
		}
	}
	if code, _, _ := runCLI(t, "admin"); code != 2 {
		t.Errorf("admin alone: exit %d", code)
	}

	// With --data the folder is the one named, created on first use.
	if code, _, errOut := runCLI(t, "admin", "entity", "list", "--data", "chosen"); code != 0 {
		t.Fatalf("with --data: %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join("chosen", "einvoice.db")); err != nil {
		t.Fatal(err)
	}
}

func TestAdminConnectionPending(t *testing.T) {
	t.Setenv(envSecretKey, "admin-test-secret-key")
	data := t.TempDir()
	admin := func(args ...string) (int, string, string) {
		return runCLI(t, append(append([]string{"admin"}, args...), "--data", data)...)
	}
	admin("entity", "create", "--name", "A", "--nif", "508025338")
	admin("entity", "create", "--name", "B", "--nif", "500000000")
	if code, _, errOut := admin("connection", "create", "--from", "508025338", "--to", "500000000"); code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut := admin("connection", "pending", "--id", "1", "--reason", "falta o contrato", "--json")
	var c map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil || c["state"] != "pending" || c["reason"] != "falta o contrato" {
		t.Fatalf("pending: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := admin("connection", "create", "--from", "508025338", "--to", "500000000"); code != 1 || errOut == "" {
		t.Fatalf("second connection: %d %s", code, errOut)
	}
}
