package ubl

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"einvoice/internal/mutant"
	"einvoice/internal/oracle"
)

func TestZZAll(t *testing.T) {
	per := envInt(t, "ZZPER", 10)
	seed := envInt(t, "ZZSEED", 0)
	for _, profile := range []Profile{CIUSPT, PeppolOrder} {
		p, xsl := transcription(t, profile)
		docs := map[string][]byte{}
		for i, e := range p.Expected {
			data, _ := os.ReadFile(filepath.Join(p.Cases, e.File))
			for k, v := range mutant.Variants(data, per, uint64(seed*100_000+i+7777)) {
				docs[fmt.Sprintf("%04d-%03d.xml", i, k)] = v
			}
		}
		official := oracle.Run(t, xsl, docs)
		bad := 0
		for _, name := range slices.Sorted(maps.Keys(docs)) {
			if d := disagreement(official[name], Validate(docs[name], profile, "en")); d != "" {
				bad++
				t.Errorf("%s %s (variant of %s): %s", profile, name, p.Expected[atoi(name[:4])].File, d)
				os.WriteFile(filepath.Join("/tmp/keep", string(profile)+"-"+name), docs[name], 0o644)
			}
		}
		t.Logf("%s: %d variants, %d disagree", profile, len(docs), bad)
	}
}
