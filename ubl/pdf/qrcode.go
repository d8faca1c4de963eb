package pdf

import (
	"cmp"
	"strings"

	"einvoice/ubl"

	"github.com/shopspring/decimal"
)

// ATQRCode builds the text of the AT QR code (Portaria n.º 195/2020) from a document, when the
// integrator did not send one: issuer and customer tax IDs, the customer's country, the document type,
// status, date and number, the ATCUD, the fiscal space with the taxable amounts and VAT per rate, the
// total VAT, the total with taxes and the withholding. The software hash (Q) and certificate number (R)
// belong to the certified invoicing software that made the document; unknown here, they are 0.
func ATQRCode(d *ubl.Document) string {
	issuer, customer := d.Seller, d.Buyer
	if d.Kind == ubl.KindOrder {
		issuer, customer = d.Buyer, d.Seller
	}
	issuerCountry, issuerNIF := splitVAT(issuer)
	customerCountry, customerNIF := splitVAT(customer)
	if customerNIF == "" {
		customerNIF, customerCountry = "999999990", "PT"
	}
	date := strings.ReplaceAll(d.IssueDate, "-", "")
	fields := []string{
		"A:" + issuerNIF, "B:" + customerNIF, "C:" + cmp.Or(customerCountry, "PT"), "D:" + docType(d), "E:N", "F:" + date,
		"G:" + d.Number, "H:" + cmp.Or(d.ATCUD(), "0"),
	}
	var exempt, reducedBase, reducedVAT, interBase, interVAT, normalBase, normalVAT decimal.Decimal
	hasVAT := false
	for _, b := range d.VATBreakdown {
		hasVAT = true
		switch rateClass(b.Category) {
		case "exempt":
			exempt = exempt.Add(b.Taxable)
		case "reduced":
			reducedBase, reducedVAT = reducedBase.Add(b.Taxable), reducedVAT.Add(b.Tax)
		case "intermediate":
			interBase, interVAT = interBase.Add(b.Taxable), interVAT.Add(b.Tax)
		default:
			normalBase, normalVAT = normalBase.Add(b.Taxable), normalVAT.Add(b.Tax)
		}
	}
	if !hasVAT {
		fields = append(fields, "I1:0")
	} else {
		fields = append(fields, "I1:"+fiscalSpace(issuerCountry, d))
		add := func(key string, v decimal.Decimal) {
			if !v.IsZero() {
				fields = append(fields, key+":"+v.StringFixed(2))
			}
		}
		add("I2", exempt)
		add("I3", reducedBase)
		add("I4", reducedVAT)
		add("I5", interBase)
		add("I6", interVAT)
		add("I7", normalBase)
		add("I8", normalVAT)
	}
	vat, total := decimal.Zero, decimal.Zero
	if d.TaxTotal != nil {
		vat = *d.TaxTotal
	}
	if d.Totals.TaxInclusive != nil {
		total = *d.Totals.TaxInclusive
	}
	fields = append(fields, "N:"+vat.StringFixed(2), "O:"+total.StringFixed(2))
	withheld := decimal.Zero
	for _, w := range d.Withholdings {
		withheld = withheld.Add(w.Amount)
	}
	if !withheld.IsZero() {
		fields = append(fields, "P:"+withheld.StringFixed(2))
	}
	fields = append(fields, "Q:0", "R:0")
	return strings.Join(fields, "*")
}

func splitVAT(p ubl.Party) (country, nif string) {
	id := strings.ToUpper(strings.ReplaceAll(cmp.Or(p.VATID, p.TaxRegistration), " ", ""))
	if len(id) > 2 && id[0] >= 'A' && id[0] <= 'Z' && id[1] >= 'A' && id[1] <= 'Z' {
		return id[:2], id[2:]
	}
	return p.Address.Country, id
}

func docType(d *ubl.Document) string {
	switch t := strings.ToUpper(d.TypeCode); t {
	case "FT", "FS", "FR", "ND", "NC":
		return t
	case "381":
		return "NC"
	case "383":
		return "ND"
	}
	if d.Kind == ubl.KindCreditNote {
		return "NC"
	}
	return "FT"
}

// rateClass sorts a VAT category into the AT QR code's groups by its code, or its rate when the code
// does not tell (mainland, Madeira and Azores rates).
func rateClass(c ubl.TaxCategory) string {
	switch strings.ToUpper(c.ID) {
	case "ISE", "E", "Z", "O", "AE", "K", "G", "OUT", "NS":
		return "exempt"
	case "RED":
		return "reduced"
	case "INT":
		return "intermediate"
	case "NOR", "S":
		return "normal"
	}
	if c.Percent == nil || c.Percent.IsZero() {
		return "exempt"
	}
	switch p := c.Percent.InexactFloat64(); {
	case p <= 6:
		return "reduced"
	case p <= 13:
		return "intermediate"
	}
	return "normal"
}

// fiscalSpace is PT, or PT-AC / PT-MA when the rates are the islands'.
func fiscalSpace(country string, d *ubl.Document) string {
	if country != "" && country != "PT" {
		return country
	}
	for _, b := range d.VATBreakdown {
		if b.Category.Percent == nil {
			continue
		}
		switch b.Category.Percent.String() {
		case "16", "9", "4":
			return "PT-AC"
		case "22", "12", "5":
			return "PT-MA"
		}
	}
	return "PT"
}
