package openapi

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The committed client is what the generator makes of the document today: the test runs the
// go:generate line of openapi.go into a temporary file and compares. After changing the document,
// run `go generate ./server/openapi`.
func TestClientIsGeneratedFromTheDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	src, err := os.ReadFile("openapi.go")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^//go:generate (.+)$`).FindSubmatch(src)
	if line == nil {
		t.Fatal("openapi.go has no go:generate line")
	}
	args := strings.Fields(string(line[1]))
	config, err := os.ReadFile("client/oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "client.gen.go")
	tmpConfig := filepath.Join(dir, "oapi-codegen.yaml")
	if err := os.WriteFile(tmpConfig, bytes.Replace(config, []byte("output: client/client.gen.go"), []byte("output: "+out), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, a := range args {
		if a == "client/oapi-codegen.yaml" {
			args[i] = tmpConfig
		}
	}
	cmd := exec.Command(args[0], args[1:]...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line[1], err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("client/client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("client/client.gen.go is not what the generator makes of openapi.yaml; run go generate ./server/openapi")
	}
}
