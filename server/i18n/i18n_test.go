package i18n

import "testing"

func TestEveryEntryHasBothLanguages(t *testing.T) {
	for _, k := range Keys() {
		e, _ := Lookup(k)
		if e.PT == "" || e.EN == "" {
			t.Errorf("%s: %+v", k, e)
		}
	}
	if T(EN, "list.page", 2, 5) != "Page 2 of 5" || T(PT, "list.page", 2, 5) != "Página 2 de 5" || T("xx", "nav.issued") != "Emitidos" {
		t.Fatal("lookup or formatting")
	}
	if T(PT, "no.such.key") != "no.such.key" {
		t.Fatal("a missing key must show as itself")
	}
}

func TestNegotiate(t *testing.T) {
	for header, want := range map[string]string{
		"":                          PT,
		"en":                        EN,
		"en-US,en;q=0.9":            EN,
		"pt-PT,pt;q=0.9,en;q=0.8":   PT,
		"fr-FR,en;q=0.5,pt;q=0.4":   EN,
		"de, pt-BR;q=0.2, en;q=0.1": PT,
		"fr":                        PT,
	} {
		if got := Negotiate(header); got != want {
			t.Errorf("%q: %s, want %s", header, got, want)
		}
	}
}
