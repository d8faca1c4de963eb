package as2

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// OpenSSL, an independent CMS implementation, verifies what we sign and decrypts what we encrypt; and
// we verify and decrypt what it makes (3DES included, the incumbent's cipher).
func TestOpenSSLInterop(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatal("openssl is needed for this test:", err)
	}
	id := identity(t, "A")
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	certPEM := write("cert.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: id.Certificate.Raw}))
	keyPEM := write("key.pem", pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(id.Key)}))
	content := part{header: [][2]string{{"Content-Type", "application/xml"}, {"Content-Transfer-Encoding", "binary"}},
		body: []byte(invoiceXML)}.bytes()
	contentFile := write("content.bin", content)
	openssl := func(args ...string) []byte {
		t.Helper()
		out, err := exec.Command("openssl", args...).Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("openssl %v: %v: %s", args, err, stderr)
		}
		return out
	}

	for _, digest := range SignAlgorithms {
		sig, err := signDetached(content, id, digest)
		if err != nil {
			t.Fatal(err)
		}
		sigFile := write("sig-"+digest+".der", sig)
		openssl("cms", "-verify", "-binary", "-inform", "DER", "-in", sigFile, "-content", contentFile, "-noverify", "-out", os.DevNull)
	}
	for _, cipher := range []string{AES128, AES256, DES3} {
		env, err := envelope(content, id.Certificate, cipher)
		if err != nil {
			t.Fatal(err)
		}
		envFile := write("env-"+cipher+".der", env)
		if got := openssl("cms", "-decrypt", "-binary", "-inform", "DER", "-in", envFile, "-recip", certPEM, "-inkey", keyPEM); !bytes.Equal(got, content) {
			t.Fatalf("%s: openssl decrypted %q", cipher, got)
		}
	}

	for _, c := range []struct{ digest, md string }{{SHA256, "sha256"}, {SHA1, "sha1"}} {
		sig := openssl("cms", "-sign", "-binary", "-md", c.md, "-outform", "DER", "-in", contentFile, "-signer", certPEM, "-inkey", keyPEM)
		digest, err := verifyDetached(content, sig, id.Certificate)
		if err != nil || digest != c.digest {
			t.Fatalf("openssl's %s signature: %s %v", c.digest, digest, err)
		}
		if _, err := verifyDetached(append(bytes.Clone(content), ' '), sig, id.Certificate); err == nil {
			t.Fatal("a signature over other content verified")
		}
	}
	for _, flag := range []string{"-aes128", "-aes256", "-des3"} {
		env := openssl("cms", "-encrypt", "-binary", flag, "-outform", "DER", "-in", contentFile, certPEM)
		if got, err := decrypt(env, id); err != nil || !bytes.Equal(got, content) {
			t.Fatalf("openssl %s: %q %v", flag, got, err)
		}
	}
}
