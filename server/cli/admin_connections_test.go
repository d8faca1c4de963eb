package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAdminExternalConnectionsAndUpstreams(t *testing.T) {
	t.Setenv(envSecretKey, "admin-test-secret-key")
	data := t.TempDir()
	admin := func(args ...string) (int, string, string) {
		return runCLI(t, append(append([]string{"admin"}, args...), "--data", data)...)
	}
	admin("entity", "create", "--name", "A", "--nif", "508025338")
	if code, _, errOut := admin("connection", "create", "--from", "508025338", "--to", "501234560"); code == 0 || !strings.Contains(errOut, "--partner") {
		t.Fatalf("external without a partner: %d %s", code, errOut)
	}
	code, out, errOut := admin("connection", "create", "--from", "508025338", "--to", "501234560", "--partner", "broker", "--name", "Externa", "--json")
	var c map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil || c["partner"] != "broker" || c["to"].(map[string]any)["nif"] != "501234560" ||
		c["to"].(map[string]any)["id"] != float64(0) {
		t.Fatalf("external connection: %d %s %s", code, out, errOut)
	}
	code, out, errOut = admin("connection", "approve", "--id", "1", "--admin-observation", "ok", "--upstream", "hosted", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil || c["state"] != "approved" || c["admin_observation"] != "ok" || c["upstream"] != "hosted" {
		t.Fatalf("approve: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := admin("connection", "decline", "--id", "1"); code != 2 {
		t.Fatalf("decline without a reason: %d %s", code, errOut)
	}

	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("very-secret-value\n"), 0o600)
	t.Setenv("UPSTREAM_KEY", "public-key-there")
	code, out, errOut = admin("upstream", "create", "--name", "hosted", "--url", "https://broker.example/api/v1/pt", "--client-id", "cid",
		"--secret-file", secret, "--public-key-env", "UPSTREAM_KEY")
	if code != 0 || strings.Contains(out, "very-secret-value") {
		t.Fatalf("upstream create: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := admin("upstream", "create", "--name", "bad", "--url", "ftp://x", "--client-id", "cid", "--secret-file", secret, "--public-key-env", "UPSTREAM_KEY"); code == 0 {
		t.Fatalf("a bad URL: %s", errOut)
	}
	code, out, _ = admin("upstream", "list", "--json")
	if code != 0 || !strings.Contains(out, "https://broker.example/api/v1/pt") || strings.Contains(out, "very-secret-value") || strings.Contains(out, "public-key-there") {
		t.Fatalf("upstream list: %d %s", code, out)
	}
	if code, _, errOut := admin("upstream", "delete", "--name", "hosted"); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, _ := admin("upstream", "delete", "--name", "hosted"); code != 1 {
		t.Fatalf("deleting twice: %d", code)
	}
	if code, out, errOut := admin("edi", "list", "--state", "queued", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("edi list: %d %s %s", code, out, errOut)
	}
}
