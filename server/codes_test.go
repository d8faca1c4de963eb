package server

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestCodesAreUniqueAndComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Codes() {
		if seen[c.ID] {
			t.Errorf("code %s twice", c.ID)
		}
		seen[c.ID] = true
		if pt, en := c.Msg("pt"), c.Msg("en"); pt == "" || en == "" || pt == en || pt == "code."+c.ID || c.Status < 200 || c.Status > 599 {
			t.Errorf("code %s: status %d, texts %q / %q", c.ID, c.Status, pt, en)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("registering a code twice must panic")
			}
		}()
		register("e069", 401, "x", "y")
	}()
}

// Every code-like string literal in the project's Go code (outside tests) is a registered code, so a
// handler cannot answer with a code the registry (and docs/api.md's table) does not know.
func TestEveryCodeUsedIsRegistered(t *testing.T) {
	literal := regexp.MustCompile(`"([es]\d{3})"`)
	root := ".."
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range literal.FindAllStringSubmatch(string(src), -1) {
			if registry[m[1]] == nil {
				t.Errorf("%s uses unregistered code %s", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
