package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"einvoice/internal/corpus"
)

func TestValidateCommand(t *testing.T) {
	dir, err := corpus.Dir()
	if err != nil {
		t.Skip(err)
	}
	clean := filepath.Join(dir, "cases", "cius-pt", "ilink-samples", "retencao.xml")
	wrong := filepath.Join(dir, "cases", "cius-pt", "negative")

	code, out, _ := runCLI(t, "validate", "--json", clean)
	var line map[string]any
	if err := json.Unmarshal([]byte(out), &line); err != nil || code != 0 {
		t.Fatalf("clean file: exit %d, %v\n%s", code, err, out)
	}
	if line["file"] != clean || line["root"] != "Invoice" || line["xsd_valid"] != true || len(line["fatal"].(map[string]any)) != 0 {
		t.Fatalf("clean line: %v", line)
	}

	code, out, _ = runCLI(t, "validate", "--json", "--lang", "en", wrong)
	if code != 1 || !strings.Contains(out, `"BR-CIUS-PT-18":1`) || !strings.Contains(out, `"file":"`+filepath.Join(wrong, "invoice-cius-pt-wrong.xml")+`"`) {
		t.Fatalf("folder with a wrong invoice: exit %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "validate", "--profile", "nope", clean); code != 2 {
		t.Fatalf("bad profile: exit %d", code)
	}
	if code, _, _ := runCLI(t, "validate", filepath.Join(t.TempDir(), "missing.xml")); code != 2 {
		t.Fatalf("missing file: exit %d", code)
	}
	broken := filepath.Join(t.TempDir(), "broken.xml")
	os.WriteFile(broken, []byte("<Invoice><unclosed>"), 0o600)
	code, out, _ = runCLI(t, "validate", "--json", broken)
	if code != 1 || !strings.Contains(out, `"root":null`) || !strings.Contains(out, `"error":`) {
		t.Fatalf("not well-formed: exit %d\n%s", code, out)
	}
}
