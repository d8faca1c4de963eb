package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"einvoice/ubl/ubltest"
)

func TestValidateCommand(t *testing.T) {
	dir, err := ubltest.Dir()
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
	// A folder ends with its totals, even when it holds one file; one file named alone does not.
	code, out, _ = runCLI(t, "validate", filepath.Dir(broken))
	if code != 1 || !strings.Contains(out, "1 file: 0 accepted, 1 rejected, in ") {
		t.Fatalf("a folder of one file: exit %d\n%s", code, out)
	}
	if _, out, _ = runCLI(t, "validate", broken); strings.Contains(out, " accepted, ") {
		t.Fatalf("one file with totals:\n%s", out)
	}
}

// Files are validated on every core but reported in the order given; an unreadable file stops the
// command (exit 2) after the files before it are reported.
func TestValidateCommandKeepsOrder(t *testing.T) {
	dir, err := ubltest.Dir()
	if err != nil {
		t.Skip(err)
	}
	clean, err := os.ReadFile(filepath.Join(dir, "cases", "cius-pt", "ilink-samples", "retencao.xml"))
	if err != nil {
		t.Fatal(err)
	}
	folder := t.TempDir()
	var want []string
	for i := range 40 {
		name := filepath.Join(folder, fmt.Sprintf("%02d.xml", i))
		data := clean
		if i%3 == 1 {
			data = []byte("<Invoice><unclosed>") // refused at once: finishes before its neighbours
		}
		if err := os.WriteFile(name, data, 0o600); err != nil {
			t.Fatal(err)
		}
		want = append(want, name)
	}
	code, out, errOut := runCLI(t, "validate", "--json", folder)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != len(want) {
		t.Fatalf("exit %d, %d lines", code, len(lines))
	}
	if !strings.HasPrefix(errOut, "40 files: 27 accepted, 13 rejected, in ") {
		t.Fatalf("totals on stderr: %q", errOut)
	}
	code, out, _ = runCLI(t, "validate", folder)
	if last := out[strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")+1:]; code != 1 || !strings.HasPrefix(last, "40 files: 27 accepted, 13 rejected, in ") {
		t.Fatalf("text report: exit %d, last line %q", code, last)
	}
	for i, l := range lines {
		var line struct {
			File string  `json:"file"`
			Root *string `json:"root"`
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatal(err)
		}
		if line.File != want[i] || (line.Root == nil) != (i%3 == 1) {
			t.Fatalf("line %d: %s, want the report of %s", i, l, want[i])
		}
	}

	if err := os.Symlink(filepath.Join(folder, "nowhere"), filepath.Join(folder, "20a.xml")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "validate", "--json", folder)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 2 || len(lines) != 21 || !strings.Contains(errOut, "20a.xml") {
		t.Fatalf("unreadable file: exit %d, %d lines, stderr %q", code, len(lines), errOut)
	}
}
