package codelists

import (
	"testing"
)

func TestListsLoadAndKeepTheirForm(t *testing.T) {
	types := Get("ciuspt-invoice-types")
	if !types.Suffixed("380") || !types.Suffixed("80") || types.Suffixed("999") {
		t.Fatal("comma form must test by substring, as the artefact does")
	}
	cur := Get("currencies")
	if !cur.Padded("EUR") || cur.Padded("EU") || !cur.Has("USD") || cur.Source == "" {
		t.Fatalf("currencies: %+v", cur.Name)
	}
	for _, name := range []string{"units", "countries", "mime-codes", "payment-means", "tax-schemes"} {
		if l := Get(name); len(l.Codes) == 0 {
			t.Errorf("%s is empty", name)
		}
	}
}
