package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAdminUsers(t *testing.T) {
	t.Setenv(envSecretKey, "admin-test-secret-key")
	data := t.TempDir()
	admin := func(args ...string) (int, string, string) {
		return runCLI(t, append(append([]string{"admin"}, args...), "--data", data)...)
	}
	pw := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pw, []byte("a good long password\n"), 0o600)
	if code, _, errOut := admin("entity", "create", "--name", "Empresa A", "--nif", "508025338"); code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut := admin("user", "create", "--username", "Ana", "--entity", "PT508025338", "--role", "operator", "--password-file", pw, "--json")
	var u struct {
		Username string `json:"username"`
		Entities []struct {
			NIF, Role string
		} `json:"entities"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &u) != nil || u.Username != "ana" || len(u.Entities) != 1 || u.Entities[0].Role != "operator" {
		t.Fatalf("create: %d %s %s", code, out, errOut)
	}
	if strings.Contains(out, "argon2") || strings.Contains(out, "password") {
		t.Fatalf("the hash or password is printed: %s", out)
	}
	for _, bad := range [][]string{
		{"user", "create", "--username", "ana", "--entity", "508025338", "--role", "viewer", "--password-file", pw},  // taken
		{"user", "create", "--username", "rui", "--entity", "508025338", "--role", "owner", "--password-file", pw},   // role
		{"user", "create", "--username", "rui", "--entity", "500000000", "--role", "viewer", "--password-file", pw},  // no such entity
		{"user", "create", "--username", "rui", "--entity", "508025338", "--role", "support", "--password-file", pw}, // support with an entity
		{"user", "disable", "--username", "nobody"},
	} {
		if code, _, _ := admin(bad...); code == 0 {
			t.Fatalf("%v accepted", bad)
		}
	}
	short := filepath.Join(t.TempDir(), "short")
	os.WriteFile(short, []byte("short\n"), 0o600)
	if code, _, _ := admin("user", "create", "--username", "rui", "--role", "support", "--password-file", short); code == 0 {
		t.Fatal("a short password accepted")
	}
	if code, _, errOut := admin("user", "create", "--username", "sup", "--role", "support", "--password-file", pw); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := admin("user", "disable", "--username", "ana"); code != 0 {
		t.Fatal(errOut)
	}
	code, out, _ = admin("user", "list")
	if code != 0 || !strings.Contains(out, "ana") || !strings.Contains(out, "disabled") || !strings.Contains(out, "support (every entity)") {
		t.Fatalf("list: %s", out)
	}
	if code, _, errOut := admin("user", "reset-password", "--username", "ana", "--password-file", pw); code != 0 {
		t.Fatal(errOut)
	}
	if code, out, _ := admin("help"); code != 0 || !strings.Contains(out, "user reset-password") {
		t.Fatal("help lacks the user commands")
	}
}
