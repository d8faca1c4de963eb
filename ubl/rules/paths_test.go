package rules_test

import (
	"os"
	"path/filepath"
	"testing"

	"einvoice/ubl/rules"
	"einvoice/ubl/rules/ciuspt"
	"einvoice/ubl/rules/peppol"
	"einvoice/ubl/ubltest"
	"einvoice/ubl/xmltree"
)

// The rules a set remembers for a path of names must be the rules walking the document finds, on every
// element of every corpus document, whether the path was new or already remembered.
func TestPathCacheAgreesWithWalking(t *testing.T) {
	profiles, err := ubltest.Profiles()
	if err != nil {
		t.Skip(err)
	}
	sets := map[string]*rules.Set{"cius-pt": ciuspt.Set, "peppol-order": peppol.Set}
	for _, prof := range profiles {
		set := sets[prof.Name]
		remembered := 0
		for round := 0; round < 2; round++ {
			for _, e := range prof.Expected {
				data, err := os.ReadFile(filepath.Join(prof.Cases, e.File))
				if err != nil {
					t.Fatal(err)
				}
				tree, err := xmltree.Parse(data, xmltree.DefaultLimits)
				if err != nil {
					continue
				}
				n, err := rules.CheckPathCache(set, tree)
				if err != nil {
					t.Fatalf("%s %s: %v", prof.Name, e.File, err)
				}
				remembered += n
			}
		}
		if remembered == 0 {
			t.Fatalf("%s: no element found its rules in the cache", prof.Name)
		}
	}
}
