package ubl

import "testing"

// auto picks the rule set by the document element's local name in any namespace, and otherwise by the
// CustomizationID the document declares.
func TestAutoProfile(t *testing.T) {
	const cbc = `xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"`
	cases := []struct {
		doc  string
		want Profile
	}{
		{`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>`, CIUSPT},
		{`<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>`, CIUSPT},
		{`<x:Invoice xmlns:x="urn:other"/>`, CIUSPT},
		{`<Order/>`, PeppolOrder},
		{`<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:OrderResponse-2"/>`, PeppolOrder},
		{`<Fatura ` + cbc + `><cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:2.1.2</cbc:CustomizationID></Fatura>`, CIUSPT},
		{`<Doc ` + cbc + `><cbc:UBLVersionID>2.1</cbc:UBLVersionID><cbc:CustomizationID> urn:fdc:peppol.eu:poacc:trns:order:3 </cbc:CustomizationID></Doc>`, PeppolOrder},
		{`<Doc xmlns:c="urn:other"><c:CustomizationID>urn:cen.eu:en16931:2017</c:CustomizationID></Doc>`, ""},
		{`<Doc ` + cbc + `><cbc:CustomizationID>urn:other</cbc:CustomizationID></Doc>`, ""},
		{`<ApplicationResponse/>`, ""},
	}
	for _, c := range cases {
		if r := Validate([]byte(c.doc), Auto, "en"); r.Profile != c.want {
			t.Errorf("%s: profile %q, want %q", c.doc, r.Profile, c.want)
		}
	}
}
