package ciuspt

import "einvoice/ubl/rules"

// documentAsserts are the UBL-model asserts on the document element.
func documentAsserts() []*rules.Assert {
	return []*rules.Assert{
		fatal("BR-01", exist("cbc:CustomizationID"),
			"An invoice shall have a specification identifier (BT-24).", "A fatura deve ter o identificador da especificação (BT-24)."),
		fatal("BR-02", exist("cbc:ID"),
			"An invoice shall have an invoice number (BT-1).", "A fatura deve ter o número (BT-1)."),
		fatal("BR-03", exist("cbc:IssueDate"),
			"An invoice shall have an issue date (BT-2).", "A fatura deve ter a data de emissão (BT-2)."),
		fatal("BR-04", any_("cbc:InvoiceTypeCode", "cbc:CreditNoteTypeCode"),
			"An invoice shall have a type code (BT-3).", "A fatura deve ter o código do tipo de documento (BT-3)."),
		fatal("BR-05", exist("cbc:DocumentCurrencyCode"),
			"An invoice shall have a currency code (BT-5).", "A fatura deve ter o código da moeda (BT-5)."),
		fatal("BR-06", exist("cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName"),
			"An invoice shall contain the seller name (BT-27).", "A fatura deve conter o nome do vendedor (BT-27)."),
		fatal("BR-CIUS-PT-01", exist("cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID"),
			"An invoice shall contain the seller VAT identifier (BT-31).", "A fatura deve conter o NIF do vendedor (BT-31)."),
		fatal("BR-CIUS-PT-02", eq("cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cac:TaxScheme/cbc:ID", "VAT"),
			"The seller tax scheme shall be VAT.", "O regime fiscal do vendedor deve ser VAT."),
		fatal("BR-07", exist("cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName"),
			"An invoice shall contain the buyer name (BT-44).", "A fatura deve conter o nome do adquirente (BT-44)."),
		fatal("BR-CIUS-PT-03", exist("cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID"),
			"An invoice shall contain the buyer VAT identifier (BT-48).", "A fatura deve conter o NIF do adquirente (BT-48)."),
		fatal("BR-CIUS-PT-04", eq("cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme/cac:TaxScheme/cbc:ID", "VAT"),
			"The buyer tax scheme shall be VAT.", "O regime fiscal do adquirente deve ser VAT."),
		fatal("BR-08", exist("cac:AccountingSupplierParty/cac:Party/cac:PostalAddress"),
			"An invoice shall contain the seller postal address (BG-5).", "A fatura deve conter a morada do vendedor (BG-5)."),
		fatal("BR-10", exist("cac:AccountingCustomerParty/cac:Party/cac:PostalAddress"),
			"An invoice shall contain the buyer postal address (BG-8).", "A fatura deve conter a morada do adquirente (BG-8)."),
		fatal("BR-16", any_("cac:InvoiceLine", "cac:CreditNoteLine"),
			"An invoice shall have at least one invoice line (BG-25).", "A fatura deve ter pelo menos uma linha (BG-25)."),
		fatal("BR-CIUS-PT-10", exist("cac:LegalMonetaryTotal"),
			"An invoice shall contain the document totals (BG-22).", "A fatura deve conter os totais do documento (BG-22)."),
		fatal("BR-CIUS-PT-11", exist("cac:TaxTotal/cbc:TaxAmount"),
			"An invoice shall contain the total VAT amount (BT-110).", "A fatura deve conter o valor total do IVA (BT-110)."),
		fatalR("BR-CIUS-PT-25", and(exist("//cn:CreditNote"), not(exist("cac:BillingReference"))),
			"A credit note shall contain the preceding invoice reference (BG-3).", "A nota de crédito deve conter a referência à fatura anterior (BG-3)."),
		fatal("BR-CO-03", func(c *ctx, n node) bool {
			return !(c.Exists(n, pTaxPointDate) && c.Exists(n, pPeriodDescriptionCode))
		},
			"The VAT point date (BT-7) and the VAT point date code (BT-8) are mutually exclusive.",
			"A data do facto gerador do IVA (BT-7) e o seu código (BT-8) são mutuamente exclusivos."),
		fatal("BR-CO-18", exist("cac:TaxTotal/cac:TaxSubtotal"),
			"An invoice shall have at least one VAT breakdown (BG-23).", "A fatura deve ter pelo menos um quadro de IVA (BG-23)."),
		fatal("BR-AA-02", sellerVATWhenUsed(linesUse("aa")),
			"Lines at a reduced rate need the seller VAT identifier (BT-31) or the tax representative's (BT-63).",
			"Linhas à taxa reduzida exigem o NIF do vendedor (BT-31) ou do representante fiscal (BT-63)."),
		fatal("BR-AA-03", sellerVATWhenUsed(allowancesUse("false", "aa")),
			"Allowances at a reduced rate need the seller VAT identifier (BT-31) or the tax representative's (BT-63).",
			"Descontos à taxa reduzida exigem o NIF do vendedor (BT-31) ou do representante fiscal (BT-63)."),
		fatal("BR-AA-04", sellerVATWhenUsed(allowancesUse("true", "aa")),
			"Charges at a reduced rate need the seller VAT identifier (BT-31) or the tax representative's (BT-63).",
			"Encargos à taxa reduzida exigem o NIF do vendedor (BT-31) ou do representante fiscal (BT-63)."),
		fatal("BR-S-02", sellerVATWhenUsed(linesUse("s")),
			"Lines at the standard rate need the seller VAT identifier (BT-31) or the tax representative's (BT-63).",
			"Linhas à taxa normal exigem o NIF do vendedor (BT-31) ou do representante fiscal (BT-63)."),
		fatal("BR-S-03", sellerVATWhenUsed(allowancesUse("false", "s")),
			"Allowances at the standard rate need the seller VAT identifier (BT-31) or the tax representative's (BT-63).",
			"Descontos à taxa normal exigem o NIF do vendedor (BT-31) ou do representante fiscal (BT-63)."),
		fatal("BR-S-04", sellerVATWhenUsed(allowancesUse("true", "s")),
			"Charges at the standard rate need the seller VAT identifier (BT-31) or the tax representative's (BT-63).",
			"Encargos à taxa normal exigem o NIF do vendedor (BT-31) ou do representante fiscal (BT-63)."),
		fatal("BR-E-02", sellerVATWhenUsed(linesUse("e")),
			"Exempt lines need the seller VAT identifier (BT-31) or the tax representative's (BT-63).",
			"Linhas isentas exigem o NIF do vendedor (BT-31) ou do representante fiscal (BT-63)."),
		fatal("BR-E-03", sellerVATWhenUsed(allowancesUse("false", "e")),
			"Exempt allowances need the seller VAT identifier (BT-31) or the tax representative's (BT-63).",
			"Descontos isentos exigem o NIF do vendedor (BT-31) ou do representante fiscal (BT-63)."),
		fatal("BR-E-04", sellerVATWhenUsed(allowancesUse("true", "e")),
			"Exempt charges need the seller VAT identifier (BT-31) or the tax representative's (BT-63).",
			"Encargos isentos exigem o NIF do vendedor (BT-31) ou do representante fiscal (BT-63)."),
		fatalR("BR-CIUS-PT-65", func(c *ctx, n node) bool {
			return (c.Eq(n, pInvoiceTypeCode, "383") || c.Eq(n, pInvoiceTypeCode, "ND")) && !c.Exists(n, pBillingReference)
		},
			"A debit note shall contain the preceding invoice reference (BG-3).", "A nota de débito deve conter a referência à fatura anterior (BG-3)."),
		fatal("BR-CIUS-PT-66", exist("cac:Delivery/cac:DeliveryLocation/cac:Address"),
			"An invoice shall contain the deliver-to address (BG-15).", "A fatura deve conter a morada de entrega (BG-15)."),
	}
}

var (
	pTaxPointDate          = P("cbc:TaxPointDate")
	pPeriodDescriptionCode = P("cac:InvoicePeriod/cbc:DescriptionCode")
	pInvoiceTypeCode       = P("cbc:InvoiceTypeCode")
	pBillingReference      = P("cac:BillingReference")
	pAnyClassified         = P("//cac:ClassifiedTaxCategory")
	pAllAllowanceCharges   = P("//cac:AllowanceCharge")
	pSellerVAT             = P("//cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID")
	pRepresentativeSchemes = P("//cac:TaxRepresentativeParty/cac:PartyTaxScheme")
	pCompanyID             = P("cbc:CompanyID")
	pTaxCategory           = P("cac:TaxCategory")
)

// eq is the general comparison "path = 'value'".
func eq(path, value string) test {
	p := P(path)
	return func(c *ctx, n node) bool { return c.Eq(n, p, value) }
}

// sellerVATWhenUsed is the BR-AA/S/E-02..04 shape: when a VAT category of the kind is used, the
// seller or its tax representative has a VAT identifier.
func sellerVATWhenUsed(used test) test {
	return func(c *ctx, n node) bool {
		if !used(c, n) {
			return true
		}
		return c.Exists(n, pSellerVAT) || c.Any(n, pRepresentativeSchemes, func(s node) bool {
			return preds["vat"](c, s) && c.Exists(s, pCompanyID)
		})
	}
}

// linesUse: some //cac:ClassifiedTaxCategory is of the kind.
func linesUse(kind string) test {
	match := preds[kind]
	return func(c *ctx, n node) bool {
		return c.Any(n, pAnyClassified, func(x node) bool { return match(c, x) })
	}
}

// allowancesUse: some //cac:AllowanceCharge with the charge indicator has a tax category of the kind.
func allowancesUse(indicator, kind string) test {
	match := preds[kind]
	return func(c *ctx, n node) bool {
		return c.Any(n, pAllAllowanceCharges, func(ac node) bool {
			return c.Eq(ac, pChargeIndicator, indicator) && c.Any(ac, pTaxCategory, func(x node) bool { return match(c, x) })
		})
	}
}
