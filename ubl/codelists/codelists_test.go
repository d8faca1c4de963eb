package codelists

import (
	"strings"
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

// Padded answers from the set for single values; values with spaces still get the artefact's substring
// semantics, under which two neighbouring codes match together.
func TestPaddedKeepsTheArtefactSemantics(t *testing.T) {
	cur := Get("currencies")
	for _, v := range []string{"", " ", "EUR", "eur", "EURO", "UR", cur.Codes[0] + " " + cur.Codes[1], "EUR USD", cur.Codes[len(cur.Codes)-1]} {
		if got, want := cur.Padded(v), contains(cur.Text(), " "+v+" "); got != want {
			t.Errorf("Padded(%q) = %v, want %v", v, got, want)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// Has agrees with a set of the codes on every list, for every code and strings one change away from one
// (shorter, longer, another letter, case, a NUL), short and long alike.
func TestHasAgreesWithTheCodes(t *testing.T) {
	entries, err := files.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		l := Get(strings.TrimSuffix(e.Name(), ".txt"))
		set := map[string]bool{}
		for _, c := range l.Codes {
			set[c] = true
		}
		tried := map[string]bool{"": true, "\x00": true, "123456789": true}
		for _, c := range l.Codes {
			tried[c] = true
			for i := 0; i <= len(c); i++ {
				tried[c[:i]] = true
				tried[c[:i]+"X"+c[i:]] = true
				tried[c[:i]+"\x00"+c[i:]] = true
				if i < len(c) {
					tried[c[:i]+"Z"+c[i+1:]] = true
				}
			}
			tried[strings.ToLower(c)] = true
		}
		for v := range tried {
			if got := l.Has(v); got != set[v] {
				t.Fatalf("%s: Has(%q) = %v, want %v", e.Name(), v, got, set[v])
			}
		}
	}
}
