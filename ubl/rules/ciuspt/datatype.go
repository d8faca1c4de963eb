package ciuspt

import (
	"strings"
	"unicode/utf8"

	"einvoice/ubl/codelists"
	"einvoice/ubl/rules"
)

// both is the context "//inv:Invoice/<path> | //cn:CreditNote/<path>", with the credit note's line and
// quantity names in its alternative.
func both(path string) string {
	return "//inv:Invoice/" + path + " | //cn:CreditNote/" + creditNoteNames.Replace(path)
}

var creditNoteNames = strings.NewReplacer("cac:InvoiceLine", "cac:CreditNoteLine", "cbc:InvoicedQuantity", "cbc:CreditedQuantity")

// dt is a datatype rule on both document types.
func dt(path string, asserts ...*rules.Assert) *rules.Rule { return rule(both(path), asserts...) }

// datatypePattern is the UBL-datatype pattern: lengths, formats, currencies and code lists of CIUS-PT.
func datatypePattern() *rules.Pattern {
	const (
		sup  = "cac:AccountingSupplierParty/cac:Party/"
		cus  = "cac:AccountingCustomerParty/cac:Party/"
		rep  = "cac:TaxRepresentativeParty/"
		del  = "cac:Delivery/cac:DeliveryLocation/cac:Address/"
		pm   = "cac:PaymentMeans/"
		lmt  = "cac:LegalMonetaryTotal/"
		tst  = "cac:TaxTotal/cac:TaxSubtotal/"
		line = "cac:InvoiceLine/"
		item = "cac:InvoiceLine/cac:Item/"
	)
	l := func(id, path string, n int) *rules.Rule { return dt(path, length(id, label(path), n)) }
	d := func(id, path string) *rules.Rule { return dt(path, date(id, label(path))) }
	amount := func(id, path string, neg bool, intMax, fracMin, fracMax int) *rules.Rule {
		return dt(path, number(id+".1", label(path), neg, intMax, fracMin, fracMax), currency(id+".2", label(path)))
	}
	percent := func(id, path string) *rules.Rule {
		return dt(path, number(id+".1", label(path), false, 3, 2, 2), percentInRange(id+".2", label(path)))
	}
	list := func(id, path, name string) *rules.Rule { return dt(path, code(id, label(path), name)) }
	withScheme := func(id, path string, n int, schemes string) *rules.Rule {
		return dt(path, length(id+".1", label(path), n), attrCodeIfPresent(id+".2", label(path), "schemeID", schemes))
	}
	vatID := func(prefixID, lengthID, path string) *rules.Rule {
		return dt(path, countryPrefix(prefixID, label(path)), length(lengthID, label(path), 50))
	}
	endpoint := func(id, path string) *rules.Rule {
		return dt(path, length(id+".1", label(path), 50), attrLengthIfPresent(id+".2", label(path), "schemeID", 20))
	}
	return rules.NewPattern("UBL-datatype",
		l("DT-CIUS-PT-001", "cbc:ID", 50),
		d("DT-CIUS-PT-002", "cbc:IssueDate"),
		rule("//inv:Invoice/cbc:InvoiceTypeCode", codeSuffixed("DT-CIUS-PT-003_i", "InvoiceTypeCode", "ciuspt-invoice-types", upperAlnum)),
		rule("//cn:CreditNote/cbc:CreditNoteTypeCode", codeSuffixed("DT-CIUS-PT-003_cn", "CreditNoteTypeCode", "ciuspt-creditnote-types", upperAlnum)),
		list("DT-CIUS-PT-151", "cbc:DocumentCurrencyCode", "currencies"),
		list("DT-CIUS-PT-152", "cbc:TaxCurrencyCode", "currencies"),
		d("DT-CIUS-PT-006", "cbc:TaxPointDate"),
		dt("cac:InvoicePeriod/cbc:DescriptionCode", codeSuffixed("DT-CIUS-PT-007", "DescriptionCode", "vat-date-codes", func(s string) bool { return digits(s, 1, 3) })),
		rule("//inv:Invoice/cbc:DueDate | //cn:CreditNote/cac:PaymentMeans/cbc:PaymentDueDate", date("DT-CIUS-PT-008", "DueDate")),
		l("DT-CIUS-PT-009", "cbc:BuyerReference", 50),
		l("DT-CIUS-PT-010", "cac:ProjectReference/cbc:ID", 50),
		l("DT-CIUS-PT-011", "cac:ContractDocumentReference/cbc:ID", 20),
		l("DT-CIUS-PT-012", "cac:OrderReference/cbc:ID", 20),
		l("DT-CIUS-PT-013", "cac:OrderReference/cbc:SalesOrderID", 20),
		l("DT-CIUS-PT-014", "cac:ReceiptDocumentReference/cbc:ID", 20),
		l("DT-CIUS-PT-015", "cac:DespatchDocumentReference/cbc:ID", 20),
		l("DT-CIUS-PT-016", "cac:OriginatorDocumentReference/cbc:ID", 20),
		withScheme("DT-CIUS-PT-017", "cac:AdditionalDocumentReference/cbc:ID", 50, "reference-qualifiers"),
		dt("cac:AdditionalDocumentReference/cbc:DocumentTypeCode", fatal("DT-CIUS-PT-153", func(c *ctx, x node) bool {
			v := rules.Norm(c.Str(x))
			return !strings.Contains(v, " ") && strings.Contains(" 130 ", " "+v+" ")
		}, "DocumentTypeCode shall be 130 (invoiced object identifier).", "DocumentTypeCode deve ser 130 (identificador do objeto faturado).")),
		l("DT-CIUS-PT-018", "cbc:AccountingCost", 50),
		l("DT-CIUS-PT-019", "cac:PaymentTerms/cbc:Note", 200),
		dt("cbc:Note", noteAsserts()...),
		l("DT-CIUS-PT-021", "cbc:ProfileID", 50),
		dt("cbc:CustomizationID", fatal("DT-CIUS-PT-022", func(c *ctx, x node) bool { return customizationMatches(c.Str(x)) },
			"CustomizationID (BT-24) shall identify CIUS-PT: urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:<version>.",
			"CustomizationID (BT-24) deve identificar o CIUS-PT: urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:<versão>.")),
		l("DT-CIUS-PT-023", "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID", 50),
		d("DT-CIUS-PT-024", "cac:BillingReference/cac:InvoiceDocumentReference/cbc:IssueDate"),
		l("DT-CIUS-PT-025", sup+"cac:PartyLegalEntity/cbc:RegistrationName", 200),
		l("DT-CIUS-PT-026", sup+"cac:PartyName/cbc:Name", 200),
		withScheme("DT-CIUS-PT-027", sup+"cac:PartyIdentification/cbc:ID", 50, "party-id-schemes"),
		withScheme("DT-CIUS-PT-028", sup+"cac:PartyLegalEntity/cbc:CompanyID", 200, "legal-id-schemes"),
		vatID("DT-CIUS-PT-029", "DT-CIUS-PT-030", sup+"cac:PartyTaxScheme/cbc:CompanyID"),
		l("DT-CIUS-PT-031", sup+"cac:PartyLegalEntity/cbc:CompanyLegalForm", 200),
		endpoint("DT-CIUS-PT-032", sup+"cbc:EndpointID"),
		l("DT-CIUS-PT-033", sup+"cac:PostalAddress/cbc:StreetName", 200),
		l("DT-CIUS-PT-034", sup+"cac:PostalAddress/cbc:AdditionalStreetName", 200),
		l("DT-CIUS-PT-035", sup+"cac:PostalAddress/cac:AddressLine/cbc:Line", 200),
		l("DT-CIUS-PT-036", sup+"cac:PostalAddress/cbc:CityName", 200),
		l("DT-CIUS-PT-037", sup+"cac:PostalAddress/cbc:PostalZone", 200),
		l("DT-CIUS-PT-038", sup+"cac:PostalAddress/cbc:CountrySubentity", 200),
		list("DT-CIUS-PT-141", sup+"cac:PostalAddress/cac:Country/cbc:IdentificationCode", "countries"),
		l("DT-CIUS-PT-039", sup+"cac:Contact/cbc:Name", 200),
		l("DT-CIUS-PT-040", sup+"cac:Contact/cbc:Telephone", 200),
		l("DT-CIUS-PT-041", sup+"cac:Contact/cbc:ElectronicMail", 200),
		l("DT-CIUS-PT-042", cus+"cac:PartyLegalEntity/cbc:RegistrationName", 200),
		l("DT-CIUS-PT-043", cus+"cac:PartyName/cbc:Name", 200),
		withScheme("DT-CIUS-PT-044", cus+"cac:PartyIdentification/cbc:ID", 50, "party-id-schemes"),
		withScheme("DT-CIUS-PT-045", cus+"cac:PartyLegalEntity/cbc:CompanyID", 50, "legal-id-schemes"),
		vatID("DT-CIUS-PT-046.1", "DT-CIUS-PT-046.2", cus+"cac:PartyTaxScheme/cbc:CompanyID"),
		endpoint("DT-CIUS-PT-047", cus+"cbc:EndpointID"),
		l("DT-CIUS-PT-048", cus+"cac:PostalAddress/cbc:StreetName", 200),
		l("DT-CIUS-PT-049", cus+"cac:PostalAddress/cbc:AdditionalStreetName", 200),
		l("DT-CIUS-PT-050", cus+"cac:PostalAddress/cac:AddressLine/cbc:Line", 200),
		l("DT-CIUS-PT-051", cus+"cac:PostalAddress/cbc:CityName", 200),
		l("DT-CIUS-PT-052", cus+"cac:PostalAddress/cbc:PostalZone", 200),
		l("DT-CIUS-PT-053", cus+"cac:PostalAddress/cbc:CountrySubentity", 200),
		list("DT-CIUS-PT-142", cus+"cac:PostalAddress/cac:Country/cbc:IdentificationCode", "countries"),
		l("DT-CIUS-PT-054", cus+"cac:Contact/cbc:Name", 200),
		l("DT-CIUS-PT-055", cus+"cac:Contact/cbc:Telephone", 200),
		l("DT-CIUS-PT-056", cus+"cac:Contact/cbc:ElectronicMail", 200),
		l("DT-CIUS-PT-057", "cac:PayeeParty/cac:PartyName/cbc:Name", 200),
		withScheme("DT-CIUS-PT-058", "cac:PayeeParty/cac:PartyIdentification/cbc:ID", 50, "party-id-schemes"),
		withScheme("DT-CIUS-PT-059", "cac:PayeeParty/cac:PartyLegalEntity/cbc:CompanyID", 50, "legal-id-schemes"),
		l("DT-CIUS-PT-060", rep+"cac:PartyName/cbc:Name", 200),
		vatID("DT-CIUS-PT-061.1", "DT-CIUS-PT-061.2", rep+"cac:PartyTaxScheme/cbc:CompanyID"),
		l("DT-CIUS-PT-062", rep+"cac:PostalAddress/cbc:StreetName", 200),
		l("DT-CIUS-PT-063", rep+"cac:PostalAddress/cbc:AdditionalStreetName", 200),
		l("DT-CIUS-PT-064", rep+"cac:PostalAddress/cac:AddressLine/cbc:Line", 200),
		l("DT-CIUS-PT-065", rep+"cac:PostalAddress/cbc:CityName", 200),
		l("DT-CIUS-PT-066", rep+"cac:PostalAddress/cbc:PostalZone", 200),
		l("DT-CIUS-PT-067", rep+"cac:PostalAddress/cbc:CountrySubentity", 200),
		list("DT-CIUS-PT-144", rep+"cac:PostalAddress/cac:Country/cbc:IdentificationCode", "countries"),
		l("DT-CIUS-PT-068", "cac:Delivery/cac:DeliveryParty/cac:PartyName/cbc:Name", 200),
		withScheme("DT-CIUS-PT-069", "cac:Delivery/cac:DeliveryLocation/cbc:ID", 50, "legal-id-schemes"),
		d("DT-CIUS-PT-070", "cac:Delivery/cbc:ActualDeliveryDate"),
		d("DT-CIUS-PT-071", "cac:InvoicePeriod/cbc:StartDate"),
		d("DT-CIUS-PT-072", "cac:InvoicePeriod/cbc:EndDate"),
		l("DT-CIUS-PT-073", del+"cbc:StreetName", 200),
		l("DT-CIUS-PT-074", del+"cbc:AdditionalStreetName", 200),
		l("DT-CIUS-PT-075", del+"cac:AddressLine/cbc:Line", 200),
		l("DT-CIUS-PT-076", del+"cbc:CityName", 200),
		l("DT-CIUS-PT-077", del+"cbc:PostalZone", 200),
		l("DT-CIUS-PT-078", del+"cbc:CountrySubentity", 200),
		list("DT-CIUS-PT-145", del+"cac:Country/cbc:IdentificationCode", "countries"),
		dt(pm+"cbc:PaymentMeansCode", paymentMeansAsserts()...),
		dt(pm+"cbc:PaymentID", fatal("DT-CIUS-PT-080", func(c *ctx, x node) bool {
			s := c.Str(x)
			return reATMReference.MatchString(s) || reDUCReference.MatchString(s)
		}, "PaymentID (BT-83) shall be written #REFERENCE@ATMPAYMENT#<reference># or #REFERENCE@DUCPAYMENT#<reference># (at most 20 characters).",
			"PaymentID (BT-83) deve ser escrito #REFERENCE@ATMPAYMENT#<referência># ou #REFERENCE@DUCPAYMENT#<referência># (no máximo 20 caracteres).")),
		l("DT-CIUS-PT-081", pm+"cac:PayeeFinancialAccount/cbc:ID", 50),
		l("DT-CIUS-PT-082", pm+"cac:PayeeFinancialAccount/cbc:Name", 200),
		l("DT-CIUS-PT-083", pm+"cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID", 50),
		l("DT-CIUS-PT-084.1", pm+"cac:CardAccount/cbc:PrimaryAccountNumberID", 200),
		l("DT-CIUS-PT-084.2", pm+"cac:CardAccount/cbc:NetworkID", 200),
		l("DT-CIUS-PT-085", pm+"cac:CardAccount/cbc:HolderName", 200),
		l("DT-CIUS-PT-086", pm+"cac:PaymentMandate/cbc:ID", 50),
		l("DT-CIUS-PT-087", pm+"cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID", 50),
		amount("DT-CIUS-PT-088", "cac:AllowanceCharge/cbc:Amount", false, 13, 2, 2),
		amount("DT-CIUS-PT-089", "cac:AllowanceCharge/cbc:BaseAmount", false, 13, 2, 2),
		percent("DT-CIUS-PT-090", "cac:AllowanceCharge/cbc:MultiplierFactorNumeric"),
		list("DT-CIUS-PT-091", "cac:AllowanceCharge/cac:TaxCategory/cbc:ID", "ciuspt-vat-categories"),
		percent("DT-CIUS-PT-092", "cac:AllowanceCharge/cac:TaxCategory/cbc:Percent"),
		list("DT-CIUS-PT-156", "cac:AllowanceCharge/cac:TaxCategory/cac:TaxScheme/cbc:ID", "tax-schemes"),
		l("DT-CIUS-PT-093", "cac:AllowanceCharge/cbc:AllowanceChargeReason", 200),
		list("DT-CIUS-PT-149", "cac:AllowanceCharge[allowance]/cbc:AllowanceChargeReasonCode", "allowance-reasons"),
		list("DT-CIUS-PT-150", "cac:AllowanceCharge[charge]/cbc:AllowanceChargeReasonCode", "charge-reasons"),
		amount("DT-CIUS-PT-094", lmt+"cbc:LineExtensionAmount", true, 13, 2, 2),
		amount("DT-CIUS-PT-095", lmt+"cbc:AllowanceTotalAmount", false, 13, 2, 2),
		amount("DT-CIUS-PT-096", lmt+"cbc:ChargeTotalAmount", false, 13, 2, 2),
		amount("DT-CIUS-PT-097", lmt+"cbc:TaxExclusiveAmount", false, 13, 2, 2),
		dt("cac:TaxTotal/cbc:TaxAmount", number("DT-CIUS-PT-098.1", "TaxAmount", true, 13, 2, 2),
			taxCurrency("DT-CIUS-PT-098.2", "TaxAmount", true), taxCurrency("DT-CIUS-PT-098.3", "TaxAmount", false)),
		amount("DT-CIUS-PT-099", lmt+"cbc:TaxInclusiveAmount", false, 13, 2, 2),
		amount("DT-CIUS-PT-100", lmt+"cbc:PrepaidAmount", false, 13, 2, 2),
		amount("DT-CIUS-PT-101", lmt+"cbc:PayableRoundingAmount", true, 13, 2, 2),
		amount("DT-CIUS-PT-102", lmt+"cbc:PayableAmount", false, 13, 2, 2),
		amount("DT-CIUS-PT-103", tst+"cbc:TaxableAmount", true, 13, 2, 3),
		dt(tst+"cbc:TaxAmount", number("DT-CIUS-PT-104.1", "TaxAmount", true, 13, 2, 2),
			taxCurrency("DT-CIUS-PT-104.2", "TaxAmount", true), taxCurrency("DT-CIUS-PT-104.3", "TaxAmount", false)),
		list("DT-CIUS-PT-105", tst+"cac:TaxCategory/cbc:ID", "ciuspt-vat-categories"),
		percent("DT-CIUS-PT-106", tst+"cac:TaxCategory/cbc:Percent"),
		l("DT-CIUS-PT-107", tst+"cac:TaxCategory/cbc:TaxExemptionReason", 200),
		l("DT-CIUS-PT-108", tst+"cac:TaxCategory/cbc:TaxExemptionReasonCode", 5),
		list("DT-CIUS-PT-154", tst+"cac:TaxCategory/cac:TaxScheme/cbc:ID", "tax-schemes"),
		l("DT-CIUS-PT-109", "cac:AdditionalDocumentReference/cbc:DocumentDescription", 200),
		l("DT-CIUS-PT-110", "cac:AdditionalDocumentReference/cac:Attachment/cac:ExternalReference/cbc:URI", 200),
		dt("cac:AdditionalDocumentReference/cac:Attachment/cbc:EmbeddedDocumentBinaryObject", attachmentAsserts()...),
		dt(line+"cbc:ID", length("DT-CIUS-PT-114.1", "ID", 50), fatal("DT-CIUS-PT-114.2", lineIDsUnique,
			"Invoice line identifiers (BT-126) shall be unique.", "Os identificadores das linhas (BT-126) devem ser únicos.")),
		l("DT-CIUS-PT-115", line+"cbc:Note", 500),
		withScheme("DT-CIUS-PT-116", line+"cac:DocumentReference/cbc:ID", 50, "reference-qualifiers"),
		dt(line+"cbc:InvoicedQuantity", number("DT-CIUS-PT-117.1", "InvoicedQuantity", true, 13, 2, 3),
			attrCode("DT-CIUS-PT-143", "InvoicedQuantity", "unitCode", "units")),
		amount("DT-CIUS-PT-118", line+"cbc:LineExtensionAmount", true, 13, 2, 8),
		l("DT-CIUS-PT-119", line+"cac:OrderLineReference/cbc:LineID", 20),
		l("DT-CIUS-PT-120", line+"cbc:AccountingCost", 200),
		d("DT-CIUS-PT-121", line+"cac:InvoicePeriod/cbc:StartDate"),
		d("DT-CIUS-PT-122", line+"cac:InvoicePeriod/cbc:EndDate"),
		amount("DT-CIUS-PT-123", line+"cac:AllowanceCharge/cbc:Amount", false, 13, 2, 2),
		amount("DT-CIUS-PT-124", line+"cac:AllowanceCharge/cbc:BaseAmount", false, 13, 2, 2),
		percent("DT-CIUS-PT-125", line+"cac:AllowanceCharge/cbc:MultiplierFactorNumeric"),
		l("DT-CIUS-PT-126", line+"cac:AllowanceCharge/cbc:AllowanceChargeReason", 200),
		list("DT-CIUS-PT-147", line+"cac:AllowanceCharge[allowance]/cbc:AllowanceChargeReasonCode", "allowance-reasons"),
		list("DT-CIUS-PT-148", line+"cac:AllowanceCharge[charge]/cbc:AllowanceChargeReasonCode", "charge-reasons-line"),
		amount("DT-CIUS-PT-127", line+"cac:Price/cbc:PriceAmount", false, 13, 2, 8),
		amount("DT-CIUS-PT-128", line+"cac:Price/cac:AllowanceCharge/cbc:Amount", false, 13, 2, 8),
		amount("DT-CIUS-PT-129", line+"cac:Price/cac:AllowanceCharge/cbc:BaseAmount", false, 13, 2, 8),
		dt(line+"cac:Price/cbc:BaseQuantity", number("DT-CIUS-PT-130.1", "BaseQuantity", false, 13, 2, 3),
			attrCodeIfPresent("DT-CIUS-PT-130.2", "BaseQuantity", "unitCode", "units")),
		list("DT-CIUS-PT-131", item+"cac:ClassifiedTaxCategory/cbc:ID", "ciuspt-vat-categories"),
		percent("DT-CIUS-PT-132", item+"cac:ClassifiedTaxCategory/cbc:Percent"),
		list("DT-CIUS-PT-155", item+"cac:ClassifiedTaxCategory/cac:TaxScheme/cbc:ID", "tax-schemes"),
		l("DT-CIUS-PT-133", item+"cbc:Name", 200),
		l("DT-CIUS-PT-134", item+"cbc:Description", 200),
		l("DT-CIUS-PT-135", item+"cac:SellersItemIdentification/cbc:ID", 50),
		l("DT-CIUS-PT-136", item+"cac:BuyersItemIdentification/cbc:ID", 50),
		dt(item+"cac:StandardItemIdentification/cbc:ID", length("DT-CIUS-PT-137.1", "ID", 50),
			attrCode("DT-CIUS-PT-137.2", "StandardItemIdentification ID", "schemeID", "legal-id-schemes")),
		dt(item+"cac:CommodityClassification/cbc:ItemClassificationCode", length("DT-CIUS-PT-138.1", "ItemClassificationCode", 50),
			attrCode("DT-CIUS-PT-138.2", "ItemClassificationCode", "listID", "item-classification-schemes"),
			attrLengthIfPresent("DT-CIUS-PT-138.3", "ItemClassificationCode", "listVersionID", 20)),
		list("DT-CIUS-PT-146", item+"cac:OriginCountry/cbc:IdentificationCode", "countries"),
		dt(item+"cac:AdditionalItemProperty/cbc:Name", itemPropertyAsserts()...),
		l("DT-CIUS-PT-140", item+"cac:AdditionalItemProperty/cbc:Value", 200),
	)
}

var (
	reATMReference = rules.Re(`^(#(REFERENCE@ATMPAYMENT)#(.{1,20})#)$`)
	reDUCReference = rules.Re(`^(#(REFERENCE@DUCPAYMENT)#(.{1,20})#)$`)
	reATMEntity    = rules.Re(`^(#(ENTITY@ATMPAYMENT)#(.{1,20})#)$`)
	reATMDesc      = rules.Re(`^(#(DESCRIPTION@ATMPAYMENT)#(.{1,125})#)$`)
	nameAttr       = rules.MustName("name")
	mimeCodeAttr   = rules.MustName("mimeCode")
	filenameAttr   = rules.MustName("filename")
	pAllLineIDs    = P("//inv:Invoice/cac:InvoiceLine/cbc:ID | //cn:CreditNote/cac:CreditNoteLine/cbc:ID")
)

// paymentMeansAsserts are the checks of PaymentMeansCode (BT-81), which CIUS-PT also uses to carry the
// ATM payment entity as #ENTITY@ATMPAYMENT#…#, and of its name attribute (BT-82).
func paymentMeansAsserts() []*rules.Assert {
	means := codelists.Get("payment-means")
	return []*rules.Assert{
		fatalR("DT-CIUS-PT-079.1", func(c *ctx, x node) bool {
			return strings.HasPrefix(rules.Norm(c.Str(x)), "#ENTITY@ATMPAYMENT#") && !reATMEntity.MatchString(c.Str(x))
		}, "An ATM payment entity shall be written #ENTITY@ATMPAYMENT#<entity># (at most 20 characters).",
			"A entidade de pagamento multibanco deve ser escrita #ENTITY@ATMPAYMENT#<entidade># (no máximo 20 caracteres)."),
		fatalR("DT-CIUS-PT-079.2", func(c *ctx, x node) bool {
			v := rules.Norm(c.Str(x))
			return !strings.HasPrefix(v, "#ENTITY@ATMPAYMENT#") && (strings.Contains(v, " ") || !means.Padded(v))
		}, "PaymentMeansCode (BT-81) shall be a code of "+means.Name+".", "PaymentMeansCode (BT-81) deve ser um código da lista "+means.Name+"."),
		fatalR("DT-CIUS-PT-079.3", func(c *ctx, x node) bool {
			v, ok := c.Attr(x, nameAttr)
			return ok && !fitsLength(v, 150, false)
		}, "The payment means text (BT-82) shall have 1 to 150 characters.", "O texto do meio de pagamento (BT-82) deve ter entre 1 e 150 caracteres."),
		fatalR("DT-CIUS-PT-079.4", func(c *ctx, x node) bool {
			v, ok := c.Attr(x, nameAttr)
			return ok && strings.HasPrefix(rules.Norm(v), "#DESCRIPTION@ATMPAYMENT#") && !reATMDesc.MatchString(v)
		}, "An ATM payment description shall be written #DESCRIPTION@ATMPAYMENT#<text># (at most 125 characters).",
			"A descrição do pagamento multibanco deve ser escrita #DESCRIPTION@ATMPAYMENT#<texto># (no máximo 125 caracteres)."),
	}
}

// attachmentAsserts: size below 15,000 KB (base64 is 3/4 of its length in bytes), a known MIME type
// and a file name.
func attachmentAsserts() []*rules.Assert {
	mimes := codelists.Get("mime-codes")
	return []*rules.Assert{
		fatal("DT-CIUS-PT-111.2", func(c *ctx, x node) bool {
			s := c.Str(x)
			if len(s) < 20_480_000 { // fewer bytes than that are fewer characters: no need to count them
				return true
			}
			return rules.Int(int64(rules.Len(s))).Mul(rules.D("0.75")).Div(rules.Int(1024)).Less(rules.Int(15000))
		}, "An attachment (BT-125) shall be smaller than 15,000 KB.", "Um anexo (BT-125) deve ter menos de 15 000 KB."),
		fatal("DT-CIUS-PT-112", func(c *ctx, x node) bool { v, _ := c.Attr(x, mimeCodeAttr); return inList(v, mimes) },
			"The attachment MIME code (BT-125-1) shall be one of "+mimes.Name+".", "O código MIME do anexo (BT-125-1) deve ser um da lista "+mimes.Name+"."),
		fatal("DT-CIUS-PT-113", func(c *ctx, x node) bool { v, _ := c.Attr(x, filenameAttr); return fitsLength(v, 50, false) },
			"The attachment file name (BT-125-2) shall have 1 to 50 characters.", "O nome do ficheiro anexo (BT-125-2) deve ter entre 1 e 50 caracteres."),
	}
}

// lineIDsUnique: no two invoice (or credit note) lines share an identifier.
func lineIDsUnique(c *ctx, x node) bool {
	return Doc(c, "lineIDsUnique", func() bool {
		seen := map[string]bool{}
		for _, id := range c.Nodes(x, pAllLineIDs) {
			v := c.Str(id)
			if seen[v] {
				return false
			}
			seen[v] = true
		}
		return true
	})
}

// Doc is rules.Doc, for brevity.
func Doc[T any](c *ctx, key any, f func() T) T { return rules.Doc(c, key, f) }

// customizationMatches is the official matches(., '^urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:(.{1,10})$')
// written out, as it is tested on every document: each "." of the pattern is any character but a line
// end, and so are the 1 to 10 characters after it.
func customizationMatches(s string) bool {
	const pattern = "urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:"
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '.' {
			r, size := utf8.DecodeRuneInString(s)
			if size == 0 || r == '\n' || r == '\r' {
				return false
			}
			s = s[size:]
			continue
		}
		if s == "" || s[0] != pattern[i] {
			return false
		}
		s = s[1:]
	}
	n := 0
	for _, r := range s {
		if r == '\n' || r == '\r' {
			return false
		}
		n++
	}
	return n >= 1 && n <= 10
}
