package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"einvoice/signing"
)

func TestAdminAS2(t *testing.T) {
	t.Setenv(envSecretKey, "admin-test-secret-key")
	data := t.TempDir()
	admin := func(args ...string) (int, string, string) {
		return runCLI(t, append(append([]string{"admin"}, args...), "--data", data, "--json")...)
	}
	var first, again map[string]string
	if code, out, errOut := admin("as2", "identity", "show"); code != 0 || json.Unmarshal([]byte(out), &first) != nil || first["sha256_fingerprint"] == "" {
		t.Fatalf("show: %d %s %s", code, out, errOut)
	}
	if _, out, _ := admin("as2", "identity", "show"); json.Unmarshal([]byte(out), &again) != nil || again["sha256_fingerprint"] != first["sha256_fingerprint"] {
		t.Fatalf("a second show made another identity: %s", out)
	}

	now := time.Now()
	seal, err := signing.SelfSignedSeal("Broker", "508025338", now.Add(-time.Hour), now.AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("AS2_PW", "s3gredo")
	var imported map[string]string
	code, out, errOut := admin("as2", "identity", "import", "--file", writeP12(t, seal, "s3gredo"), "--password-env", "AS2_PW", "--as2-id", "BROKER-PT")
	if code != 0 || json.Unmarshal([]byte(out), &imported) != nil || imported["as2_id"] != "BROKER-PT" || imported["sha256_fingerprint"] == first["sha256_fingerprint"] {
		t.Fatalf("import: %d %s %s", code, out, errOut)
	}
	t.Setenv("AS2_PW", "wrong")
	if code, _, _ := admin("as2", "identity", "import", "--file", writeP12(t, seal, "s3gredo"), "--password-env", "AS2_PW"); code != 1 {
		t.Fatalf("a wrong password: exit %d", code)
	}

	cert := filepath.Join(t.TempDir(), "partner.pem")
	os.WriteFile(cert, []byte(first["certificate"]), 0o600)
	create := []string{"as2", "partner", "create", "--name", "feap", "--as2-id", "FEAP", "--url", "https://feap.example/as2", "--cert", cert, "--sign", "sha1", "--cipher", "3des"}
	if code, out, errOut := admin(create...); code != 0 {
		t.Fatalf("create: %d %s %s", code, out, errOut)
	}
	if code, _, _ := admin(create...); code != 1 {
		t.Fatalf("a second create: exit %d", code)
	}
	if code, _, _ := admin("as2", "partner", "create", "--name", "x", "--as2-id", "X", "--url", "https://x.example", "--cert", cert, "--sign", "md5"); code != 2 {
		t.Fatalf("an unknown digest: exit %d", code)
	}
	if code, out, errOut := admin("as2", "partner", "update", "--name", "feap", "--compress", "on", "--mdn", "sync"); code != 0 {
		t.Fatalf("update: %d %s %s", code, out, errOut)
	}
	var partners []map[string]any
	if _, out, _ := admin("as2", "partner", "list"); json.Unmarshal([]byte(out), &partners) != nil || len(partners) != 1 ||
		partners[0]["compress"] != true || partners[0]["mdn"] != "sync" || partners[0]["cipher"] != "3des" || partners[0]["sign"] != "sha1" {
		t.Fatalf("list: %s", out)
	}
	if code, _, _ := admin("as2", "partner", "delete", "--name", "feap"); code != 0 {
		t.Fatal("delete failed")
	}
	if code, _, _ := admin("as2", "partner", "delete", "--name", "feap"); code != 1 {
		t.Fatalf("a second delete: exit %d", code)
	}
}
