package ubl

// A party's tax ID may sit in any of the identifiers UBL gives a party: an application looking for the
// party by its tax ID reads all of them.

// SchemeVATPT is the electronic address scheme of a Portuguese VAT number (ISO 6523 ICD 9946).
const SchemeVATPT = "9946"

// TaxIDs are the identifiers of the party that may be its tax ID, as written (with or without a
// country prefix), most telling first: its VAT identifier and other tax registration
// (PartyTaxScheme/CompanyID), its legal registration (PartyLegalEntity/CompanyID), its electronic
// address when its scheme is the Portuguese VAT number (cbc:EndpointID schemeID 9946), and its party
// identifications (PartyIdentification/ID). A legal registration or party identification counts when
// it has no scheme or that scheme; other schemes (a GLN, a DUNS number) are not tax IDs.
func (p Party) TaxIDs() []string {
	var out []string
	add := func(id string) {
		if id != "" {
			out = append(out, id)
		}
	}
	taxScheme := func(id *Identifier) {
		if id != nil && (id.Scheme == "" || id.Scheme == SchemeVATPT) {
			add(id.Value)
		}
	}
	add(p.VATID)
	add(p.TaxRegistration)
	taxScheme(p.LegalID)
	if p.EndpointID != nil && p.EndpointID.Scheme == SchemeVATPT {
		add(p.EndpointID.Value)
	}
	for i := range p.Identifiers {
		taxScheme(&p.Identifiers[i])
	}
	return out
}

// TaxID is the party's most telling tax ID (see TaxIDs), "" when it has none.
func (p Party) TaxID() string {
	if ids := p.TaxIDs(); len(ids) > 0 {
		return ids[0]
	}
	return ""
}
