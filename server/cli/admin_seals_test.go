package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"einvoice/signing"
)

// writeP12 writes a seal as a password-protected PKCS#12 file.
func writeP12(t *testing.T, seal *signing.Seal, password string) string {
	t.Helper()
	data, err := pkcs12.Modern.Encode(seal.Signer, seal.Certificate, seal.Chain, password)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "seal.p12")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAdminSeals(t *testing.T) {
	t.Setenv(envSecretKey, "admin-test-secret-key")
	data := t.TempDir()
	admin := func(args ...string) (int, string, string) {
		return runCLI(t, append(append([]string{"admin"}, args...), "--data", data)...)
	}
	if code, _, errOut := admin("entity", "create", "--name", "Empresa A", "--nif", "508025338"); code != 0 {
		t.Fatal(errOut)
	}
	now := time.Now()
	good, err := signing.SelfSignedSeal("Empresa A", "508025338", now.Add(-time.Hour), now.AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	p12 := writeP12(t, good, "s3gredo")
	pwFile := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pwFile, []byte("s3gredo\n"), 0o600)

	code, out, errOut := admin("seal", "import", "--nif", "508025338", "--file", p12, "--password-file", pwFile, "--json")
	var seals []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &seals) != nil || len(seals) != 1 || seals[0]["status"] != "valid" ||
		!strings.Contains(seals[0]["subject"].(string), "Empresa A") || seals[0]["tax_id"] != "PT508025338" {
		t.Fatalf("import: %d %s %s", code, out, errOut)
	}
	if code, out, _ := admin("entity", "show", "--nif", "508025338", "--json"); code != 0 || !strings.Contains(out, `"service_signing": true`) {
		t.Fatalf("entity after import: %s", out)
	}

	// A seal close to its end is listed with a warning; importing replaces the previous one.
	t.Setenv("SEAL_PW", "outra")
	soon, _ := signing.SelfSignedSeal("Empresa A", "508025338", now.Add(-time.Hour), now.AddDate(0, 0, 10))
	if code, _, errOut := admin("seal", "import", "--nif", "508025338", "--file", writeP12(t, soon, "outra"), "--password-env", "SEAL_PW"); code != 0 {
		t.Fatalf("replace: %s", errOut)
	}
	code, out, _ = admin("seal", "list", "--json")
	if json.Unmarshal([]byte(out), &seals) != nil || code != 0 || len(seals) != 1 || seals[0]["status"] != "expiring" || seals[0]["note"] == "" {
		t.Fatalf("list: %d %s", code, out)
	}

	// The key is never stored in clear: no file of the data folder holds its DER.
	key, _, _ := soon.Export()
	files, _ := filepath.Glob(filepath.Join(data, "*.db*"))
	if len(files) == 0 {
		t.Fatal("no database in the data folder")
	}
	for _, f := range files {
		if db, _ := os.ReadFile(f); strings.Contains(string(db), string(key[len(key)-64:])) {
			t.Fatalf("the seal's key is in %s in clear", f)
		}
	}

	expired, _ := signing.SelfSignedSeal("Empresa A", "508025338", now.AddDate(-2, 0, 0), now.AddDate(-1, 0, 0))
	other, _ := signing.SelfSignedSeal("Empresa B", "500000000", now.Add(-time.Hour), now.AddDate(1, 0, 0))
	t.Setenv("X", "x")
	failures := []struct {
		args []string
		code int
	}{
		{[]string{"seal", "import", "--nif", "508025338", "--file", p12, "--password-env", "SEAL_PW"}, 1}, // wrong password
		{[]string{"seal", "import", "--nif", "508025338", "--file", p12, "--password-env", "UNSET_VARIABLE_FOR_TEST"}, 1},
		{[]string{"seal", "import", "--nif", "508025338", "--file", p12}, 1}, // empty standard input: wrong password
		{[]string{"seal", "import", "--nif", "508025338", "--file", writeP12(t, expired, "x"), "--password-env", "X"}, 1},
		{[]string{"seal", "import", "--nif", "508025338", "--file", writeP12(t, other, "x"), "--password-env", "X"}, 1},
		{[]string{"seal", "import", "--nif", "508025338"}, 2},
		{[]string{"seal", "import", "--nif", "508025338", "--file", p12, "--password-file", pwFile, "--password-env", "SEAL_PW"}, 2},
		{[]string{"seal", "delete", "--nif", "500000000"}, 1},
	}
	for _, f := range failures {
		code, _, errOut := admin(f.args...)
		if code != f.code || strings.TrimSpace(errOut) == "" {
			t.Errorf("%v: exit %d (want %d), stderr %q", f.args, code, f.code, errOut)
		}
	}

	if code, _, errOut := admin("seal", "delete", "--nif", "508025338"); code != 0 {
		t.Fatal(errOut)
	}
	if code, out, _ := admin("seal", "list", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("list after delete: %s", out)
	}
	if code, out, _ := admin("entity", "show", "--nif", "508025338", "--json"); code != 0 || !strings.Contains(out, `"service_signing": false`) {
		t.Fatalf("entity after delete: %s", out)
	}
}

// TestAdminSealFromOpenSSL imports a PKCS#12 file made by openssl, the way a seal usually arrives.
func TestAdminSealFromOpenSSL(t *testing.T) {
	openssl, err := exec.LookPath("openssl")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("openssl is not installed (.ci/run installs it)")
		}
		t.Skip("openssl is not installed")
	}
	t.Setenv(envSecretKey, "admin-test-secret-key")
	dir := t.TempDir()
	key, cert, p12 := filepath.Join(dir, "key.pem"), filepath.Join(dir, "cert.pem"), filepath.Join(dir, "seal.p12")
	for _, args := range [][]string{
		{"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "30",
			"-subj", "/C=PT/O=Empresa A/organizationIdentifier=VATPT-508025338/CN=Selo Empresa A"},
		{"pkcs12", "-export", "-inkey", key, "-in", cert, "-out", p12, "-passout", "pass:abc"},
	} {
		if out, err := exec.Command(openssl, args...).CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v\n%s", args[0], err, out)
		}
	}
	data := filepath.Join(dir, "data")
	runCLI(t, "admin", "entity", "create", "--name", "Empresa A", "--nif", "508025338", "--data", data)
	t.Setenv("P12_PASSWORD", "abc")
	code, out, errOut := runCLI(t, "admin", "seal", "import", "--nif", "508025338", "--file", p12, "--password-env", "P12_PASSWORD", "--data", data, "--json")
	var seals []map[string]any
	if json.Unmarshal([]byte(out), &seals) != nil || code != 0 || len(seals) != 1 || !strings.Contains(seals[0]["subject"].(string), "CN=Selo Empresa A") ||
		seals[0]["status"] != "expiring" {
		t.Fatalf("import: %d %s %s", code, out, errOut)
	}
}
