package ubl

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/beevik/etree"

	"einvoice/ubl/internal/oracle"
	"einvoice/ubl/ubltest"
)

// The rule ids that fire on no corpus document and on no variant the generators make (ubltest.Variants,
// mutant.Exercise) are put to work here by hand: each gets edits of a clean corpus document aimed at it,
// and a few near misses beside. The transcription of the official rules judges every variant, ours must
// agree, and every id aimed at must fire officially on one of its variants, but for the ids the official
// rules can never fire (unreachable, with the reason). Each variant's schema verdict must be xmllint's.

// targeted is one hand-made variant: the rule id it aims at, and its edits in order.
type targeted struct {
	id    string
	edits []edit
}

// edit changes a document through its document element; it fails the test when what it names is not
// in the base document.
type edit func(t *testing.T, root *etree.Element)

// all is every element a path finds, at least one.
func all(t *testing.T, root *etree.Element, path string) []*etree.Element {
	t.Helper()
	es := root.FindElements(path)
	if len(es) == 0 {
		t.Fatalf("the base document has no %s", path)
	}
	return es
}

// set gives every element a path finds the text v.
func set(path, v string) edit {
	return func(t *testing.T, root *etree.Element) {
		for _, e := range all(t, root, path) {
			e.SetText(v)
		}
	}
}

// setAttr gives every element a path finds the attribute name="v".
func setAttr(path, name, v string) edit {
	return func(t *testing.T, root *etree.Element) {
		for _, e := range all(t, root, path) {
			e.CreateAttr(name, v)
		}
	}
}

// drop takes away every element a path finds.
func drop(path string) edit {
	return func(t *testing.T, root *etree.Element) {
		for _, e := range all(t, root, path) {
			e.Parent().RemoveChild(e)
		}
	}
}

// before puts elements (written with the document's cac and cbc prefixes) before the first element a
// path finds; after, after it.
func before(path, fragment string) edit { return insert(path, fragment, 0) }
func after(path, fragment string) edit  { return insert(path, fragment, 1) }

func insert(path, fragment string, offset int) edit {
	return func(t *testing.T, root *etree.Element) {
		at := all(t, root, path)[0]
		f := etree.NewDocument()
		if err := f.ReadFromString("<f>" + fragment + "</f>"); err != nil {
			t.Fatalf("fragment %q: %v", fragment, err)
		}
		for i, e := range f.Root().ChildElements() {
			at.Parent().InsertChildAt(at.Index()+offset+i, e.Copy())
		}
	}
}

const (
	supplierVAT = "./cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID"
	taxRepVAT   = "./cac:TaxRepresentativeParty/cac:PartyTaxScheme/cbc:CompanyID"
	subtotals   = "./cac:TaxTotal/cac:TaxSubtotal"
	attachment  = "./cac:AdditionalDocumentReference/cac:Attachment/cbc:EmbeddedDocumentBinaryObject"
)

// docCharge is a document-level allowance (charge "false") or charge ("true") in a tax category, at a
// rate ("-": no rate), put after the document's own, just before its tax total.
func docCharge(charge, category, percent string) edit {
	p := ""
	if percent != "-" {
		p = "<cbc:Percent>" + percent + "</cbc:Percent>"
	}
	return before("./cac:TaxTotal", `<cac:AllowanceCharge><cbc:ChargeIndicator>`+charge+`</cbc:ChargeIndicator>`+
		`<cbc:AllowanceChargeReason>Ajuste</cbc:AllowanceChargeReason><cbc:Amount currencyID="EUR">1.00</cbc:Amount>`+
		`<cac:TaxCategory><cbc:ID>`+category+`</cbc:ID>`+p+`<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory>`+
		`</cac:AllowanceCharge>`)
}

// standardBecomes puts everything at the standard rate (category S: breakdowns, allowances and charges,
// lines) in another category at another rate.
func standardBecomes(category, percent string) []edit {
	return []edit{
		set("//cac:TaxCategory[cbc:ID='S']/cbc:Percent", percent),
		set("//cac:ClassifiedTaxCategory[cbc:ID='S']/cbc:Percent", percent),
		set("//cbc:ID[text()='S']", category),
	}
}

// breakdownOf is the VAT breakdown of a category.
func breakdownOf(category string) string {
	return subtotals + "/cac:TaxCategory[cbc:ID='" + category + "']/.."
}

func with(edits []edit, more ...edit) []edit { return append(slices.Clip(edits), more...) }

// property is a line's item property named name.
func property(name string) string {
	return `<cac:AdditionalItemProperty><cbc:Name>` + name + `</cbc:Name><cbc:Value>x</cbc:Value></cac:AdditionalItemProperty>`
}

// noteStarting edits the document's notes whose text starts with prefix.
func noteStarting(prefix string, change func(e *etree.Element)) edit {
	return func(t *testing.T, root *etree.Element) {
		var notes []*etree.Element
		for _, e := range all(t, root, "./cbc:Note") {
			if strings.HasPrefix(e.Text(), prefix) {
				notes = append(notes, e)
			}
		}
		if len(notes) == 0 {
			t.Fatalf("the base document has no note starting %s", prefix)
		}
		for _, e := range notes {
			change(e)
		}
	}
}

// ciusTargets are the variants for a CIUS-PT document element (Invoice or CreditNote) and its lines.
func ciusTargets(root, line string) []targeted {
	firstLine := "./cac:" + line + "[1]"
	noVATNumbers := []edit{drop(supplierVAT), drop(taxRepVAT)}
	var out []targeted
	add := func(id string, edits ...edit) { out = append(out, targeted{id, edits}) }
	if root == "Invoice" {
		add("UBL-SR-04", before("./cac:ProjectReference",
			`<cac:AdditionalDocumentReference><cbc:ID>FT 2</cbc:ID><cbc:DocumentTypeCode>130</cbc:DocumentTypeCode></cac:AdditionalDocumentReference>`))
		twoSchemes := func(child string) edit {
			s := `<cac:PartyTaxScheme><cbc:CompanyID>1</cbc:CompanyID>` + child + `<cac:TaxScheme><cbc:ID>IRC</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>`
			return before("./cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity", s+s)
		}
		add("UBL-SR-13", twoSchemes(`<cbc:ID>A</cbc:ID>`))
		add("UBL-SR-13", twoSchemes(""))
		for _, code := range []string{"ND", "383", " ND", "380"} {
			add("BR-CIUS-PT-65", set("./cbc:InvoiceTypeCode", code), drop("./cac:BillingReference"))
		}
		add("BR-CIUS-PT-65", set("./cbc:InvoiceTypeCode", "ND"))
	}
	for _, category := range []string{"AA", "RED", "INT", " AA "} {
		add("BR-AA-03", with(noVATNumbers, docCharge("false", category, "13.00"))...)
		add("BR-AA-04", with(noVATNumbers, docCharge("true", category, "13.00"))...)
	}
	// The tax representative's number is enough.
	add("BR-AA-03", drop(supplierVAT), docCharge("false", "AA", "13.00"))
	for _, percent := range []string{"0", "-1", "-", "", "0.001"} {
		add("BR-AA-06", docCharge("false", "AA", percent))
		add("BR-AA-07", docCharge("true", "RED", percent))
	}
	lineCharge := func(charge string) string {
		return `<cac:AllowanceCharge><cbc:ChargeIndicator>` + charge + `</cbc:ChargeIndicator>` +
			`<cbc:AllowanceChargeReason>Ajuste</cbc:AllowanceChargeReason><cbc:Amount currencyID="EUR">1.00</cbc:Amount></cac:AllowanceCharge>`
	}
	add("BR-CO-07", before(firstLine+"/cac:Item", lineCharge("false")))
	add("BR-CO-08", before(firstLine+"/cac:Item", lineCharge("true")))
	// A price holds one allowance at most (two stop the official rules): the base's is turned, or one added.
	priceCharge := func(charge string) edit {
		return func(t *testing.T, root *etree.Element) {
			price := all(t, root, firstLine+"/cac:Price")[0]
			if ac := price.FindElement("./cac:AllowanceCharge/cbc:ChargeIndicator"); ac != nil {
				ac.SetText(charge)
				return
			}
			after(firstLine+"/cac:Price/cbc:BaseQuantity", `<cac:AllowanceCharge><cbc:ChargeIndicator>`+charge+`</cbc:ChargeIndicator>`+
				`<cbc:Amount currencyID="EUR">1.00</cbc:Amount><cbc:BaseAmount currencyID="EUR">1235.56</cbc:BaseAmount></cac:AllowanceCharge>`)(t, root)
		}
	}
	add("BR-CIUS-PT-58", priceCharge("true"))
	add("BR-CIUS-PT-58", priceCharge("false"))
	for _, category := range []string{"AA", "RED", "INT"} {
		aa, breakdown := standardBecomes(category, "23.00"), breakdownOf(category)
		add("DT-CIUS-PT-171", aa...)
		add("DT-CIUS-PT-171", with(aa, set(breakdown+"/cbc:TaxableAmount", "2000.00"))...)
		add("DT-CIUS-PT-172", with(aa, set(breakdown+"/cbc:TaxAmount", "1000.00"))...)
		add("BR-CIUS-PT-12", standardBecomes(category, "0")...)
		add("BR-AA-10", with(aa, before(breakdown+"/cac:TaxCategory/cac:TaxScheme", `<cbc:TaxExemptionReason>Isento</cbc:TaxExemptionReason>`))...)
	}
	add("BR-AA-10", with(standardBecomes("AA", "23.00"), before(breakdownOf("AA")+"/cac:TaxCategory/cac:TaxScheme", `<cbc:TaxExemptionReasonCode>M01</cbc:TaxExemptionReasonCode>`))...)
	// round(13.5) is 14 and round(23.4) is 23: the lines at the written rate are not summed.
	add("DT-CIUS-PT-171", standardBecomes("AA", "13.5")...)
	add("DT-CIUS-PT-171", standardBecomes("AA", "23.4")...)
	add("DT-CIUS-PT-171", with(standardBecomes("AA", "23.4"), set("//cac:ClassifiedTaxCategory[cbc:ID='AA']/cbc:Percent", "23"))...)
	for _, tag := range []struct{ id, prefix string }{
		{"DT-CIUS-PT-020_2.3", "#SOURCECURRENCYCODE#"},
		{"DT-CIUS-PT-020_3.3", "#CALCULATIONRATE#"},
		{"DT-CIUS-PT-020_6.3", "#NUMBER@ATCERTIFIEDPROGRAM#"},
		{"DT-CIUS-PT-020_7.3", "#HASHCODE@ATCERTIFIEDPROGRAM#"},
	} {
		add(tag.id, noteStarting(tag.prefix, func(e *etree.Element) { e.Parent().RemoveChild(e) }))
		// Counted as written, read normalised.
		add(tag.id, noteStarting(tag.prefix, func(e *etree.Element) { e.SetText(" " + e.Text()) }))
		add(tag.id, noteStarting(tag.prefix, func(e *etree.Element) { e.SetText(strings.Replace(e.Text(), "#", "#\n", 2)) }))
	}
	for _, amount := range []struct{ id, path string }{
		{"DT-CIUS-PT-098.3", "./cac:TaxTotal/cbc:TaxAmount"},
		{"DT-CIUS-PT-104.3", subtotals + "/cbc:TaxAmount"},
	} {
		add(amount.id, drop("./cbc:TaxCurrencyCode"), setAttr(amount.path, "currencyID", "USD"))
		add(amount.id, drop("./cbc:TaxCurrencyCode"), setAttr(amount.path, "currencyID", " EUR "))
		add(amount.id, setAttr(amount.path, "currencyID", "USD"))
	}
	// 15,000 KB decoded, the most an attachment may hold: 20,480,000 characters of base64.
	add("DT-CIUS-PT-111.2", set(attachment, strings.Repeat("QUJD", 20_480_000/4)))
	add("DT-CIUS-PT-111.2", set(attachment, strings.Repeat("QUJD", 20_480_000/4-1)))
	add("DT-CIUS-PT-114.2", set("./cac:"+line+"[2]/cbc:ID", "1"))
	add("DT-CIUS-PT-114.2", set("./cac:"+line+"[2]/cbc:ID", " 1"))
	for _, tag := range []struct{ id, name string }{
		{"DT-CIUS-PT-139_2", "#TAXEXEMPTIONREASONCODE@CLASSIFIEDTAXCATEGORY#"},
		{"DT-CIUS-PT-139_3", "#TAXEXEMPTIONREASON@CLASSIFIEDTAXCATEGORY#"},
		{"DT-CIUS-PT-139_5", "#LINEID@COMMITMENTLINEREFERENCE#"},
	} {
		props := firstLine + "/cac:Item/cac:AdditionalItemProperty"
		add(tag.id, before(props, strings.Repeat(property(tag.name), 3))) // more than the two lines
		add(tag.id, before(props, property(tag.name)))
		add(tag.id, before(props, property(tag.name)+property(tag.name)+property(" "+tag.name)))
	}
	return out
}

var orderTargets = func() []targeted {
	var out []targeted
	add := func(id string, edits ...edit) { out = append(out, targeted{id, edits}) }
	for _, number := range []string{"NL12345", "NL123456789B01", " NL123456789B01 ", "NL123456789b01"} {
		add("PEPPOL-COMMON-R056-2", set("./cac:BuyerCustomerParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID", number))
	}
	for _, line := range []string{"", "<cbc:Line>Piso 2</cbc:Line>"} {
		add("PEPPOL-T01-B18001", after("./cac:Delivery/cac:DeliveryParty/cac:PartyName",
			`<cac:PostalAddress><cac:AddressLine>`+line+`</cac:AddressLine><cac:Country><cbc:IdentificationCode>NO</cbc:IdentificationCode></cac:Country></cac:PostalAddress>`))
	}
	for _, code := range []string{`<cbc:NameCode>X1</cbc:NameCode>`, `<cbc:NameCode listID="ZZZ">X1</cbc:NameCode>`} {
		add("PEPPOL-T01-B32301", after("./cac:OrderLine/cac:LineItem/cac:Item/cac:AdditionalItemProperty/cbc:Name", code))
	}
	return out
}()

// unreachable are the ids aimed at that the official rules never fire, and why.
var unreachable = map[string]string{
	"BR-CO-07": "its test is true()",
	"BR-CO-08": "its test is true()",
}

func TestRulesAgreeWithTheTranscriptionOnTargetedEdits(t *testing.T) {
	ubltest.Long(t)
	for _, c := range []struct {
		profile Profile
		root    string
		targets []targeted
	}{
		{CIUSPT, "Invoice", ciusTargets("Invoice", "InvoiceLine")},
		{CIUSPT, "CreditNote", ciusTargets("CreditNote", "CreditNoteLine")},
		{PeppolOrder, "Order", orderTargets},
	} {
		t.Run(c.root, func(t *testing.T) {
			p, xsl := transcription(t, c.profile)
			bases := cleanDocuments(t, p, c.root, 1)
			if len(bases) == 0 {
				t.Fatalf("no clean %s in the corpus", c.root)
			}
			base := bases[0]
			docs := map[string][]byte{}
			for i, v := range c.targets {
				d := etree.NewDocument()
				if err := d.ReadFromBytes(base); err != nil {
					t.Fatal(err)
				}
				for _, e := range v.edits {
					e(t, d.Root())
				}
				b, err := d.WriteToBytes()
				if err != nil {
					t.Fatal(err)
				}
				docs[fmt.Sprintf("%02d-%s.xml", i, v.id)] = b
			}
			official := oracle.Run(t, xsl, docs)
			schemas, err := ubltest.SchemaDir()
			if err != nil {
				t.Fatal(err)
			}
			valid := schemaVerdicts(t, filepath.Join(schemas, "maindoc", "UBL-"+c.root+"-2.1.xsd"), docs)
			fired := map[string]bool{}
			for _, name := range slices.Sorted(maps.Keys(docs)) {
				o := official[name]
				for id := range o.Fatal {
					fired[id] = true
				}
				for id := range o.Warning {
					fired[id] = true
				}
				r := Validate(docs[name], c.profile, "en")
				if d := disagreement(o, r); d != "" {
					t.Errorf("%s: %s", name, d)
				}
				if r.XSDValid != valid[name] {
					t.Errorf("%s: schema-valid %v, by xmllint %v", name, r.XSDValid, valid[name])
				}
			}
			t.Logf("%d variants, %d schema-valid", len(docs), len(valid))
			checked := map[string]bool{}
			for _, v := range c.targets {
				if checked[v.id] {
					continue
				}
				checked[v.id] = true
				why, never := unreachable[v.id]
				switch {
				case never && fired[v.id]:
					t.Errorf("%s fires, but is listed as unreachable (%s)", v.id, why)
				case !never && !fired[v.id]:
					t.Errorf("no variant fires %s", v.id)
				}
			}
		})
	}
}
