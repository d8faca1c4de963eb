package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The documented example is the defaults, key for key, and decodes strictly.
func TestExampleConfigIsTheDefaults(t *testing.T) {
	cfg, err := loadConfig(writeFile(t, "c.toml", ExampleConfig))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg, defaultConfig()) {
		t.Fatalf("example %+v\ndefaults %+v", cfg, defaultConfig())
	}
}

func TestConfigIsStrict(t *testing.T) {
	_, err := loadConfig(writeFile(t, "c.toml", "[server]\nlisten = \":1\"\nlisten_addr = \"x\"\n"))
	if err == nil || !strings.Contains(err.Error(), "server.listen_addr") {
		t.Fatalf("unknown key not named: %v", err)
	}
	_, err = loadConfig(writeFile(t, "c.toml", "[environment]\nmode = \"staging\"\n"))
	if err == nil || !strings.Contains(err.Error(), "environment.mode") {
		t.Fatalf("bad mode accepted: %v", err)
	}
	_, err = loadConfig(writeFile(t, "c.toml", "[security]\naccess_token_ttl = \"soon\"\n"))
	if err == nil {
		t.Fatal("bad duration accepted")
	}
}

func TestSecretKeyFromEnvironment(t *testing.T) {
	t.Setenv(envSecretKey, "from-the-environment-123")
	cfg, err := loadConfig(writeFile(t, "c.toml", "[security]\nsecret_key = \"from-the-file-0123456\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Security.SecretKey != "from-the-environment-123" {
		t.Fatalf("secret key %q", cfg.Security.SecretKey)
	}
	t.Setenv(envSecretKey, "short")
	if _, err := loadConfig(""); err == nil {
		t.Fatal("a short secret key was accepted")
	}
}
