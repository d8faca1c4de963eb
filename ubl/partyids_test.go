package ubl

import (
	"reflect"
	"testing"
)

// A party's tax ID is looked for in every identifier that may hold one; GLNs and other schemes are not.
func TestPartyTaxIDs(t *testing.T) {
	p := Party{
		EndpointID:  &Identifier{Value: "PT500000000", Scheme: "9946"},
		LegalID:     &Identifier{Value: "7300010000001", Scheme: "0088"},
		Identifiers: []Identifier{{Value: "503504564"}, {Value: "5790000435975", Scheme: "0088"}},
	}
	if got := p.TaxIDs(); !reflect.DeepEqual(got, []string{"PT500000000", "503504564"}) {
		t.Fatalf("TaxIDs %v", got)
	}
	p.VATID, p.EndpointID.Scheme = "PT508025338", "0088"
	if got := p.TaxIDs(); !reflect.DeepEqual(got, []string{"PT508025338", "503504564"}) || p.TaxID() != "PT508025338" {
		t.Fatalf("TaxIDs %v", got)
	}
}
