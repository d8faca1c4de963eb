package ubl

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"einvoice/ubl/ubltest"
)

// The tables generated from the official artefacts are what their generators make of them today.
func TestGeneratedTablesAreUpToDate(t *testing.T) {
	dir, err := ubltest.Dir()
	if err != nil {
		t.Skip(err)
	}
	rulesDir := filepath.Join(dir, "rules")
	cases := []struct {
		gen, file string
		args      []string
	}{
		{"./rules/ciuspt/gen", "rules/ciuspt/ubl-cr.txt", []string{"-rules", filepath.Join(rulesDir, "cius-pt-2.1.2.csv")}},
		{"./rules/peppol/gen", "rules/peppol/t01-structure.txt", []string{"-rules", filepath.Join(rulesDir, "peppol-order-t01.csv")}},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "out.txt")
		cmd := exec.Command("go", append([]string{"run", c.gen}, append(c.args, "-out", out)...)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", c.gen, err, b)
		}
		fresh, _ := os.ReadFile(out)
		committed, _ := os.ReadFile(c.file)
		if !bytes.Equal(fresh, committed) {
			t.Errorf("%s is stale: run go generate ./ubl/...", c.file)
		}
	}
	lists := t.TempDir()
	if b, err := exec.Command("go", "run", "./codelists/gen", "-rules", rulesDir, "-out", lists).CombinedOutput(); err != nil {
		t.Fatalf("codelists: %v\n%s", err, b)
	}
	files, _ := filepath.Glob(filepath.Join(lists, "*.txt"))
	if len(files) == 0 {
		t.Fatal("the code list generator wrote nothing")
	}
	for _, f := range files {
		fresh, _ := os.ReadFile(f)
		committed, err := os.ReadFile(filepath.Join("codelists", filepath.Base(f)))
		if err != nil || !bytes.Equal(fresh, committed) {
			t.Errorf("codelists/%s is stale: run go generate ./ubl/codelists", filepath.Base(f))
		}
	}
}
