package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"einvoice/signing"
	"einvoice/ubl/ubltest"
)

// corpusInvoice copies a CIUS-PT sample of the conformance corpus into dir.
func corpusInvoice(t *testing.T, dir string) string {
	t.Helper()
	root, err := ubltest.Dir()
	if err != nil {
		t.Skip(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "cases/cius-pt/ilink-samples/retencao.xml"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "FT 1.xml")
	os.WriteFile(path, data, 0o600)
	return path
}

// verifyJSON runs `einvoice verify --json` on one file.
func verifyJSON(t *testing.T, file string) (int, verification) {
	t.Helper()
	code, out, _ := runCLI(t, "verify", "--json", file)
	var v verification
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, out)
	}
	return code, v
}

func TestRenderSignVerifyCommands(t *testing.T) {
	dir := t.TempDir()
	xml := corpusInvoice(t, dir)
	pdf := filepath.Join(dir, "visual.pdf")
	if code, out, errOut := runCLI(t, "render", xml, "-o", pdf, "--lang", "en"); code != 0 || strings.TrimSpace(out) != pdf {
		t.Fatalf("render: %d %s %s", code, out, errOut)
	}
	if data, _ := os.ReadFile(pdf); !bytes.HasPrefix(data, []byte("%PDF-")) {
		t.Fatal("render wrote no PDF")
	}

	now := time.Now()
	seal, err := signing.SelfSignedSeal("Empresa A", "508025338", now.Add(-time.Hour), now.AddDate(0, 1, 0))
	if err != nil {
		t.Fatal(err)
	}
	p12 := writeP12(t, seal, "pw")
	t.Setenv("P12_PW", "pw")
	for _, in := range []string{xml, pdf} {
		code, out, errOut := runCLI(t, "sign", "--p12", p12, "--password-env", "P12_PW", in)
		signed := strings.TrimSpace(out)
		if code != 0 || !strings.HasSuffix(signed, "-signed"+filepath.Ext(in)) {
			t.Fatalf("sign %s: %d %s %s", in, code, out, errOut)
		}
		if code, v := verifyJSON(t, signed); code != 0 || !v.Valid || len(v.Signatures) != 1 {
			t.Fatalf("verify %s: %d %+v", signed, code, v)
		}
		data, _ := os.ReadFile(signed)
		tampered := filepath.Join(dir, "tampered"+filepath.Ext(in))
		os.WriteFile(tampered, bytes.Replace(data, []byte("2"), []byte("3"), 1), 0o600)
		if code, v := verifyJSON(t, tampered); code != 1 || v.Valid {
			t.Fatalf("verify tampered %s: %d %+v", in, code, v)
		}
	}
	if code, _, _ := runCLI(t, "verify", xml); code != 1 {
		t.Fatalf("unsigned file: exit %d", code)
	}

	// Signing with the seal an entity has in the installation.
	t.Setenv(envSecretKey, "tools-test-secret-key")
	data := filepath.Join(dir, "data")
	runCLI(t, "admin", "entity", "create", "--name", "Empresa A", "--nif", "508025338", "--data", data)
	if code, _, errOut := runCLI(t, "admin", "seal", "import", "--nif", "508025338", "--file", p12, "--password-env", "P12_PW", "--data", data); code != 0 {
		t.Fatal(errOut)
	}
	out := filepath.Join(dir, "by-entity.xml")
	if code, _, errOut := runCLI(t, "sign", "--nif", "508025338", "--data", data, "-o", out, xml); code != 0 {
		t.Fatalf("sign --nif: %s", errOut)
	}
	if code, v := verifyJSON(t, out); code != 0 || !v.Valid || !strings.Contains(v.Signatures[0].Signer, "O=Empresa A") {
		t.Fatalf("verify: %d %+v", code, v)
	}

	for _, args := range [][]string{
		{"render"}, {"render", "--lang", "fr", xml}, {"sign", xml}, {"sign", "--nif", "508025338", "--p12", p12, xml}, {"verify"},
	} {
		if code, _, errOut := runCLI(t, args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, _ := runCLI(t, "sign", "--nif", "500000000", "--data", data, xml); code != 1 {
		t.Errorf("sign for an entity without a seal: exit %d", code)
	}
}
