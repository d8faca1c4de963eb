package ciuspt

import (
	"einvoice/ubl/rules"
	"einvoice/ubl/xmltree"
)

// conditionPattern is the UBL-condition pattern: conditional rules and eSPap's arithmetic checks, each
// with a tolerance of 1.00.
func conditionPattern() *rules.Pattern {
	return rules.NewPattern("UBL-condition",
		rule("cac:LegalMonetaryTotal/cbc:PayableAmount",
			fatal("BR-CO-25", func(c *ctx, n node) bool {
				s := c.Str(n)
				return rules.UntypedCmp(s, ">", 0, true) && (c.Exists(n, pAnyDueDate) || c.Exists(n, pAnyPaymentDueDate) || c.Exists(n, pAnyTermsNote)) ||
					rules.UntypedCmp(s, "<=", 0, true)
			},
				"When the amount due (BT-115) is positive, a due date (BT-9) or payment terms (BT-20) shall be present.",
				"Com valor a pagar (BT-115) positivo, é obrigatória a data de vencimento (BT-9) ou as condições de pagamento (BT-20).")),
		rule("//inv:Invoice | //cn:CreditNote",
			fatal("BR-AA-01", breakdownMatchesUse("aa"),
				"Reduced-rate lines, allowances or charges need a reduced-rate VAT breakdown, and the other way round.",
				"Linhas, descontos ou encargos à taxa reduzida exigem um quadro de IVA à taxa reduzida, e vice-versa."),
			fatal("BR-S-01", breakdownMatchesUse("s"),
				"Standard-rate lines, allowances or charges need a standard-rate VAT breakdown, and the other way round.",
				"Linhas, descontos ou encargos à taxa normal exigem um quadro de IVA à taxa normal, e vice-versa."),
			fatal("BR-E-01", breakdownMatchesUse("e"),
				"Exempt lines, allowances or charges need an exempt VAT breakdown, and the other way round.",
				"Linhas, descontos ou encargos isentos exigem um quadro de IVA isento, e vice-versa."),
			fatal("DT-CIUS-PT-165", totalWithVATAdds,
				"The total with VAT (BT-112) shall equal the total without VAT (BT-109) plus the VAT total (BT-110), within 1.00.",
				"O total com IVA (BT-112) deve ser igual ao total sem IVA (BT-109) mais o IVA (BT-110), com tolerância de 1,00."),
			fatal("DT-CIUS-PT-176", exemptionCodesInBreakdown(pAnyInvoiceLine),
				"Each exemption reason code of an exempt line shall appear in exactly one exempt VAT breakdown.",
				"Cada código de motivo de isenção de uma linha isenta deve constar de exatamente um quadro de IVA isento."),
			fatal("DT-CIUS-PT-176", exemptionCodesInBreakdown(pAnyCreditLine),
				"Each exemption reason code of an exempt line shall appear in exactly one exempt VAT breakdown.",
				"Cada código de motivo de isenção de uma linha isenta deve constar de exatamente um quadro de IVA isento.")),
		rule("cac:InvoiceLine | cac:CreditNoteLine",
			fatal("BR-28", func(c *ctx, n node) bool {
				return c.IntCmp(n, pPriceBaseAmount, ">=", 0) || !c.Exists(n, pPriceBaseAmount)
			},
				"The item gross price (BT-148) shall not be negative.", "O preço bruto do artigo (BT-148) não pode ser negativo."),
			fatal("BR-27", func(c *ctx, n node) bool { return c.IntCmp(n, pPriceAmount, ">=", 0) },
				"The item net price (BT-146) shall not be negative.", "O preço líquido do artigo (BT-146) não pode ser negativo."),
			fatal("BR-CO-04", exist("cac:Item/cac:ClassifiedTaxCategory/cbc:ID"),
				"Each invoice line (BG-25) shall be categorised with an invoiced item VAT category code (BT-151).",
				"Cada linha (BG-25) deve ter o código da categoria de IVA do artigo (BT-151)."),
			fatal("DT-CIUS-PT-157", lineNetAmount,
				"The line net amount (BT-131) shall equal quantity × price ÷ base quantity plus charges minus allowances, within 1.00.",
				"O valor líquido da linha (BT-131) deve ser quantidade × preço ÷ quantidade base mais encargos menos descontos, com tolerância de 1,00."),
			fatal("DT-CIUS-PT-177", func(c *ctx, n node) bool {
				return c.IntCmp(n, pBaseQuantity, ">", 0) || !c.Exists(n, pBaseQuantity)
			},
				"The item price base quantity (BT-149) shall be greater than zero.", "A quantidade base do preço (BT-149) deve ser maior que zero.")),
		rule("cac:PayeeParty",
			fatal("BR-17", payeeDiffersFromSeller,
				"The payee (BG-10) shall be named and differ from the seller.", "O beneficiário (BG-10) deve ter nome e ser diferente do vendedor."),
			warn("UBL-SR-19", payeeOnceAndNotSeller("cac:PartyName/cbc:Name"),
				"The payee name shall occur at most once and differ from the seller name.", "O nome do beneficiário deve ocorrer no máximo uma vez e ser diferente do nome do vendedor."),
			warn("UBL-SR-20", payeeOnceAndNotSeller("cac:PartyIdentification/cbc:ID"),
				"The payee identifier shall occur at most once and the payee differ from the seller.", "O identificador do beneficiário deve ocorrer no máximo uma vez e o beneficiário ser diferente do vendedor."),
			warn("UBL-SR-21", payeeOnceAndNotSeller("cac:PartyLegalEntity/cbc:CompanyID"),
				"The payee legal registration identifier shall occur at most once and the payee differ from the seller.", "O identificador de registo do beneficiário deve ocorrer no máximo uma vez e o beneficiário ser diferente do vendedor.")),
		rule("//inv:Invoice/cac:TaxTotal | //cn:CreditNote/cac:TaxTotal",
			fatal("DT-CIUS-PT-164", func(c *ctx, n node) bool {
				sum := c.SumEach(n, pSubtotals, pTaxAmount).Round2()
				total, ok := c.DecOf(n, pTaxAmount)
				return ok && sum.Within(total, tolerance) || !c.Exists(n, pSubtotals)
			},
				"The VAT total (BT-110) shall equal the sum of the breakdown VAT amounts (BT-117), within 1.00.",
				"O IVA total (BT-110) deve ser igual à soma do IVA dos quadros (BT-117), com tolerância de 1,00."),
			fatal("DT-CIUS-PT-175", exemptTaxableMatchesLines,
				"The exempt taxable amount (BT-116) shall equal the exempt lines plus charges minus allowances, within 1.00.",
				"A base tributável isenta (BT-116) deve ser igual às linhas isentas mais encargos menos descontos, com tolerância de 1,00.")),
		rule("cac:LegalMonetaryTotal",
			fatal("DT-CIUS-PT-160", func(c *ctx, n node) bool {
				return sumMatches(c, n, pAnyInvoiceLine) || sumMatches(c, n, pAnyCreditLine)
			},
				"The sum of line net amounts (BT-106) shall equal the line net amounts (BT-131) added up, within 1.00.",
				"A soma dos valores líquidos das linhas (BT-106) deve ser igual à soma das linhas (BT-131), com tolerância de 1,00."),
			fatal("DT-CIUS-PT-161", documentTotalMatches("false", pAllowanceTotal),
				"The sum of allowances (BT-107) shall equal the document-level allowances (BT-92) added up, within 1.00.",
				"A soma dos descontos (BT-107) deve ser igual aos descontos do documento (BT-92) somados, com tolerância de 1,00."),
			fatal("DT-CIUS-PT-162", documentTotalMatches("true", pChargeTotal),
				"The sum of charges (BT-108) shall equal the document-level charges (BT-99) added up, within 1.00.",
				"A soma dos encargos (BT-108) deve ser igual aos encargos do documento (BT-99) somados, com tolerância de 1,00."),
			fatal("DT-CIUS-PT-163", totalWithoutVATAdds,
				"The total without VAT (BT-109) shall equal the line sum plus charges minus allowances, within 1.00.",
				"O total sem IVA (BT-109) deve ser igual à soma das linhas mais encargos menos descontos, com tolerância de 1,00."),
			fatal("DT-CIUS-PT-166", amountDueAdds,
				"The amount due (BT-115) shall equal the total with VAT (BT-112) minus the paid amount (BT-113) plus rounding (BT-114), within 1.00.",
				"O valor a pagar (BT-115) deve ser o total com IVA (BT-112) menos o valor pago (BT-113) mais o arredondamento (BT-114), com tolerância de 1,00.")),
		rule("//inv:Invoice/cac:AllowanceCharge[charge] | //cn:CreditNote/cac:AllowanceCharge[charge]",
			fatal("DT-CIUS-PT-159", percentageMatches,
				"A document-level charge (BT-99) shall equal its base (BT-100) times its percentage (BT-101), within 1.00.",
				"O encargo do documento (BT-99) deve ser a base (BT-100) vezes a percentagem (BT-101), com tolerância de 1,00.")),
		rule("//inv:Invoice/cac:AllowanceCharge[allowance] | //cn:CreditNote/cac:AllowanceCharge[allowance]",
			fatal("DT-CIUS-PT-158", percentageMatches,
				"A document-level allowance (BT-92) shall equal its base (BT-93) times its percentage (BT-94), within 1.00.",
				"O desconto do documento (BT-92) deve ser a base (BT-93) vezes a percentagem (BT-94), com tolerância de 1,00.")),
		rule("cac:TaxTotal/cac:TaxSubtotal",
			fatal("DT-CIUS-PT-167", subtotalTaxMatches,
				"The breakdown VAT amount (BT-117) shall equal the taxable amount (BT-116) times the rate (BT-119), within 1.00.",
				"O IVA do quadro (BT-117) deve ser a base tributável (BT-116) vezes a taxa (BT-119), com tolerância de 1,00.")),
		rule("cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory[aa]",
			fatal("DT-CIUS-PT-171", taxableMatchesRate("aa"),
				"The reduced-rate taxable amount (BT-116) shall equal its lines plus charges minus allowances at that rate, within 1.00.",
				"A base tributável à taxa reduzida (BT-116) deve ser igual às linhas mais encargos menos descontos a essa taxa, com tolerância de 1,00."),
			fatal("DT-CIUS-PT-172", categoryTaxMatches,
				"The reduced-rate VAT amount (BT-117) shall equal the taxable amount (BT-116) times the rate (BT-119), within 1.00.",
				"O IVA à taxa reduzida (BT-117) deve ser a base tributável (BT-116) vezes a taxa (BT-119), com tolerância de 1,00."),
			fatal("BR-CIUS-PT-12", percentAbove0,
				"A reduced-rate VAT breakdown shall have a rate (BT-119) greater than zero.", "Um quadro de IVA à taxa reduzida deve ter taxa (BT-119) maior que zero.")),
		rule("cac:AllowanceCharge[allowance]/cac:TaxCategory[aa]",
			fatal("BR-AA-06", percentAbove0,
				"A reduced-rate allowance shall have a VAT rate (BT-96) greater than zero.", "Um desconto à taxa reduzida deve ter taxa de IVA (BT-96) maior que zero.")),
		rule("cac:AllowanceCharge[charge]/cac:TaxCategory[aa]",
			fatal("BR-AA-07", percentAbove0,
				"A reduced-rate charge shall have a VAT rate (BT-103) greater than zero.", "Um encargo à taxa reduzida deve ter taxa de IVA (BT-103) maior que zero.")),
		rule("cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory[s]",
			fatal("DT-CIUS-PT-173", taxableMatchesRate("s"),
				"The standard-rate taxable amount (BT-116) shall equal its lines plus charges minus allowances at that rate, within 1.00.",
				"A base tributável à taxa normal (BT-116) deve ser igual às linhas mais encargos menos descontos a essa taxa, com tolerância de 1,00."),
			fatal("DT-CIUS-PT-174", categoryTaxMatches,
				"The standard-rate VAT amount (BT-117) shall equal the taxable amount (BT-116) times the rate (BT-119), within 1.00.",
				"O IVA à taxa normal (BT-117) deve ser a base tributável (BT-116) vezes a taxa (BT-119), com tolerância de 1,00."),
			fatal("BR-CIUS-PT-14", percentAbove0,
				"A standard-rate VAT breakdown shall have a rate (BT-119) greater than zero.", "Um quadro de IVA à taxa normal deve ter taxa (BT-119) maior que zero.")),
		rule("cac:AllowanceCharge[allowance]/cac:TaxCategory[s]",
			fatal("BR-S-06", percentAbove0,
				"A standard-rate allowance shall have a VAT rate (BT-96) greater than zero.", "Um desconto à taxa normal deve ter taxa de IVA (BT-96) maior que zero.")),
		rule("cac:AllowanceCharge[charge]/cac:TaxCategory[s]",
			fatal("BR-S-07", percentAbove0,
				"A standard-rate charge shall have a VAT rate (BT-103) greater than zero.", "Um encargo à taxa normal deve ter taxa de IVA (BT-103) maior que zero.")),
		rule("cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory[e]",
			fatal("BR-E-09", func(c *ctx, n node) bool { return c.IntCmp(n, pParentTaxAmount, "=", 0) },
				"An exempt VAT breakdown shall have a VAT amount (BT-117) of zero.", "Um quadro de IVA isento deve ter IVA (BT-117) igual a zero."),
			fatal("BR-CIUS-PT-16", percentIs0,
				"An exempt VAT breakdown shall have a rate (BT-119) of zero.", "Um quadro de IVA isento deve ter taxa (BT-119) igual a zero.")),
		rule("cac:AllowanceCharge[allowance]/cac:TaxCategory[e]",
			fatal("BR-E-06", percentIs0,
				"An exempt allowance shall have a VAT rate (BT-96) of zero.", "Um desconto isento deve ter taxa de IVA (BT-96) igual a zero.")),
		rule("cac:AllowanceCharge[charge]/cac:TaxCategory[e]",
			fatal("BR-E-07", percentIs0,
				"An exempt charge shall have a VAT rate (BT-103) of zero.", "Um encargo isento deve ter taxa de IVA (BT-103) igual a zero.")),
		rule("cac:InvoiceLine/cac:AllowanceCharge[charge] | cac:CreditNoteLine/cac:AllowanceCharge[charge]",
			fatal("DT-CIUS-PT-169", percentageMatches,
				"A line charge (BT-141) shall equal its base (BT-142) times its percentage (BT-143), within 1.00.",
				"O encargo da linha (BT-141) deve ser a base (BT-142) vezes a percentagem (BT-143), com tolerância de 1,00.")),
		rule("cac:InvoiceLine/cac:AllowanceCharge[allowance] | cac:CreditNoteLine/cac:AllowanceCharge[allowance]",
			fatal("DT-CIUS-PT-168", percentageMatches,
				"A line allowance (BT-136) shall equal its base (BT-137) times its percentage (BT-138), within 1.00.",
				"O desconto da linha (BT-136) deve ser a base (BT-137) vezes a percentagem (BT-138), com tolerância de 1,00.")),
		rule("cac:InvoiceLine/cac:Price | cac:CreditNoteLine/cac:Price",
			fatal("DT-CIUS-PT-170", priceDiscountMatches,
				"The item net price (BT-146) shall equal the gross price (BT-148) minus the price discount (BT-147), within 1.00.",
				"O preço líquido (BT-146) deve ser o preço bruto (BT-148) menos o desconto (BT-147), com tolerância de 1,00.")),
		rule("cac:InvoiceLine/cac:Item/cac:ClassifiedTaxCategory[aa] | cac:CreditNoteLine/cac:Item/cac:ClassifiedTaxCategory[aa]",
			fatal("BR-AA-05", percentAbove0,
				"A reduced-rate line shall have an item VAT rate (BT-152) greater than zero.", "Uma linha à taxa reduzida deve ter taxa de IVA (BT-152) maior que zero.")),
		rule("cac:InvoiceLine/cac:Item/cac:ClassifiedTaxCategory[s] | cac:CreditNoteLine/cac:Item/cac:ClassifiedTaxCategory[s]",
			fatal("BR-S-05", percentAbove0,
				"A standard-rate line shall have an item VAT rate (BT-152) greater than zero.", "Uma linha à taxa normal deve ter taxa de IVA (BT-152) maior que zero.")),
		rule("cac:InvoiceLine/cac:Item/cac:ClassifiedTaxCategory[e] | cac:CreditNoteLine/cac:Item/cac:ClassifiedTaxCategory[e]",
			fatal("BR-E-05", percentIs0,
				"An exempt line shall have an item VAT rate (BT-152) of zero.", "Uma linha isenta deve ter taxa de IVA (BT-152) igual a zero.")),
	)
}

var (
	pAnyDueDate           = P("//cbc:DueDate")
	pAnyPaymentDueDate    = P("//cac:PaymentMeans/cbc:PaymentDueDate")
	pAnyTermsNote         = P("//cac:PaymentTerms/cbc:Note")
	pPriceBaseAmount      = P("cac:Price/cac:AllowanceCharge/cbc:BaseAmount")
	pPriceAmount          = P("cac:Price/cbc:PriceAmount")
	pPrice                = P("cac:Price")
	pPriceAmountOf        = P("cbc:PriceAmount")
	pBaseQuantityOf       = P("cbc:BaseQuantity")
	pBaseQuantity         = P("cac:Price/cbc:BaseQuantity")
	pSubtotals            = P("cac:TaxSubtotal")
	pTaxAmount            = P("cbc:TaxAmount")
	pParentTaxAmount      = P("../cbc:TaxAmount")
	pParentTaxableAmount  = P("../cbc:TaxableAmount")
	pPercent              = P("cbc:Percent")
	pLineExtensionAmount  = P("cbc:LineExtensionAmount")
	pAllowanceTotal       = P("cbc:AllowanceTotalAmount")
	pChargeTotal          = P("cbc:ChargeTotalAmount")
	pTaxExclusive         = P("cbc:TaxExclusiveAmount")
	pTaxInclusive         = P("cbc:TaxInclusiveAmount")
	pPrepaid              = P("cbc:PrepaidAmount")
	pRounding             = P("cbc:PayableRoundingAmount")
	pPayable              = P("cbc:PayableAmount")
	pSiblingACs           = P("../cac:AllowanceCharge")
	pACs                  = P("cac:AllowanceCharge")
	pAmount               = P("cbc:Amount")
	pBaseAmount           = P("cbc:BaseAmount")
	pMultiplier           = P("cbc:MultiplierFactorNumeric")
	pCategoryPercent      = P("cac:TaxCategory/cbc:Percent")
	pTaxableAmount        = P("cbc:TaxableAmount")
	pLMT                  = P("cac:LegalMonetaryTotal")
	pTaxTotals            = P("cac:TaxTotal")
	pDocumentCurrency     = P("cbc:DocumentCurrencyCode")
	pRootLines            = P("../../../cac:InvoiceLine")
	pRootCreditLines      = P("../../../cac:CreditNoteLine")
	pRootACs              = P("../../../cac:AllowanceCharge")
	pAnyInvoiceLine       = P("//cac:InvoiceLine")
	pAnyCreditLine        = P("//cac:CreditNoteLine")
	pLineCategoryID       = P("cac:Item/cac:ClassifiedTaxCategory/cbc:ID")
	pLineCategoryPercent  = P("cac:Item/cac:ClassifiedTaxCategory/cbc:Percent")
	pCategoryID           = P("cac:TaxCategory/cbc:ID")
	pAnySubtotals         = P("//cac:TaxTotal/cac:TaxSubtotal")
	pAdditionalProperties = P("cac:Item/cac:AdditionalItemProperty")
	pName                 = P("cbc:Name")
	pValue                = P("cbc:Value")
	pExemptionReasonCode  = P("cac:TaxCategory/cbc:TaxExemptionReasonCode")
	pBreakdownCategories  = P("cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory")
	pAnyACCategories      = P("//cac:AllowanceCharge/cac:TaxCategory")
	currencyID            = rules.MustName("currencyID")
)

func percentAbove0(c *ctx, n node) bool { return c.IntCmp(n, pPercent, ">", 0) }
func percentIs0(c *ctx, n node) bool    { return c.IntCmp(n, pPercent, "=", 0) }

// breakdownMatchesUse (BR-AA/S/E-01): a category used on lines or allowances/charges has a breakdown
// in the document's VAT total, and a breakdown has a use.
func breakdownMatchesUse(kind string) test {
	match := preds[kind]
	count := func(c *ctx, n node, p *rules.Path) int {
		k := 0
		for _, x := range c.Nodes(n, p) {
			if match(c, x) {
				k++
			}
		}
		return k
	}
	return func(c *ctx, n node) bool {
		used := count(c, n, pAnyACCategories) + count(c, n, pAnyClassified)
		breakdowns := count(c, n, pBreakdownCategories)
		return used > 0 && breakdowns > 0 || used == 0 && breakdowns == 0
	}
}

// totalWithVATAdds (DT-CIUS-PT-165): for every document currency code, total without VAT plus the VAT
// total in that currency, rounded to cents, is the total with VAT within the tolerance. Without a total
// without VAT the sum is empty and the VAT amounts are not read.
func totalWithVATAdds(c *ctx, n node) bool {
	for _, cur := range c.Nodes(n, pDocumentCurrency) {
		excl, ok := c.DecOfEach(n, pLMT, pTaxExclusive)
		if !ok {
			return false
		}
		vat, ok := vatInCurrency(c, n, c.Str(cur))
		if !ok {
			return false
		}
		incl, ok := c.DecOfEach(n, pLMT, pTaxInclusive)
		if !ok || !excl.Add(vat).Round2().Within(incl, tolerance) {
			return false
		}
	}
	return true
}

// vatInCurrency is cac:TaxTotal/xs:decimal(cbc:TaxAmount[@currencyID=code]) as an operand: each VAT
// total's amount in the currency cast on its own, and one value at most in all.
func vatInCurrency(c *ctx, n node, code string) (rules.Dec, bool) {
	var v rules.Dec
	found := false
	for _, tt := range c.Nodes(n, pTaxTotals) {
		amount := xmltree.None
		for _, a := range c.Nodes(tt, pTaxAmount) {
			if cur, ok := c.Attr(a, currencyID); ok && cur == code {
				if amount != xmltree.None {
					rules.Fail("a sequence of more than one item is not allowed as the argument of xs:decimal()")
				}
				amount = a
			}
		}
		if amount == xmltree.None {
			continue
		}
		if found {
			rules.Fail("a sequence of more than one item is not allowed as the second operand of '+'")
		}
		v, found = c.Dec(amount), true
	}
	return v, found
}

// oneDec casts the single node of a sequence (false for none; more than one is a dynamic error).
func oneDec(c *ctx, ns []node) (rules.Dec, bool) {
	switch len(ns) {
	case 0:
		return rules.Dec{}, false
	case 1:
		return c.Dec(ns[0]), true
	}
	rules.Fail("a sequence of more than one item is not allowed")
	return rules.Dec{}, false
}

// exemptionCodesInBreakdown (DT-CIUS-PT-176): every exemption reason code given on an exempt line
// (attribute #TAXEXEMPTIONREASONCODE@CLASSIFIEDTAXCATEGORY#) is the code of exactly one exempt breakdown.
func exemptionCodesInBreakdown(lines *rules.Path) test {
	return func(c *ctx, n node) bool {
		for _, line := range c.Nodes(n, lines) {
			if !c.Eq(line, pLineCategoryID, "E") && !c.Eq(line, pLineCategoryID, "ISE") {
				continue
			}
			for _, prop := range c.Nodes(line, pAdditionalProperties) {
				if !c.Eq(prop, pName, "#TAXEXEMPTIONREASONCODE@CLASSIFIEDTAXCATEGORY#") {
					continue
				}
				for _, v := range c.Nodes(prop, pValue) {
					code := c.Str(v)
					matching := 0
					for _, st := range c.Nodes(n, pAnySubtotals) {
						if (c.Eq(st, pCategoryID, "E") || c.Eq(st, pCategoryID, "ISE")) && c.Eq(st, pExemptionReasonCode, code) {
							matching++
						}
					}
					if matching != 1 {
						return false
					}
				}
			}
		}
		return true
	}
}

// acSum is round(sum(AllowanceCharge[indicator]/xs:decimal(cbc:Amount)) * 100) div 100 over the
// allowances or charges p selects.
func acSum(c *ctx, n node, p *rules.Path, indicator string, keep func(node) bool) rules.Dec {
	return c.SumEachWhere(n, p, func(ac node) bool {
		return c.Eq(ac, pChargeIndicator, indicator) && (keep == nil || keep(ac))
	}, pAmount)
}

// lineNetAmount (DT-CIUS-PT-157): quantity × net price (÷ base quantity when one greater than zero is
// given), rounded to cents, plus the line charges and minus the line allowances (each sum rounded to
// cents) equals the line net amount within the tolerance. The official test spells out one branch for
// each combination of allowances and charges present; as empty sums are zero they all come to this.
// What it casts, and so what can stop it, follows Saxon's order: left operands first, and nothing to
// the right of an empty one.
func lineNetAmount(c *ctx, n node) bool {
	someBase := func(positive bool) bool { // cac:Price/xs:decimal(cbc:BaseQuantity) = 0 (or > 0)
		return c.Any(n, pPrice, func(price node) bool {
			v, ok := c.DecOf(price, pBaseQuantityOf)
			return ok && (positive && v.Sign() > 0 || !positive && v.IsZero())
		})
	}
	hasBase := c.Exists(n, pBaseQuantity)
	if (!hasBase || someBase(false)) && lineNetMatches(c, n, false) {
		return true
	}
	return hasBase && someBase(true) && lineNetMatches(c, n, true)
}

// lineNetMatches is one half of DT-CIUS-PT-157: the net amount computed without (or with) the base
// quantity is the line net amount within the tolerance.
func lineNetMatches(c *ctx, n node, withBase bool) bool {
	quantities := c.Nodes(n, pInvoicedQuantity)
	if cq := c.Nodes(n, pCreditedQuantity); len(cq) > 0 { // the two form one sequence
		quantities = append(quantities, cq...)
	}
	qty, ok := oneDec(c, quantities)
	if !ok {
		return false
	}
	price, ok := c.DecOfEach(n, pPrice, pPriceAmountOf)
	if !ok {
		return false
	}
	gross := qty.Mul(price)
	if withBase {
		base, ok := c.DecOfEach(n, pPrice, pBaseQuantityOf)
		if !ok {
			return false
		}
		if base.IsZero() {
			rules.Fail("division by zero")
		}
		gross = gross.Div(base)
	}
	value := gross.Round2()
	if c.Any(n, pACs, func(ac node) bool { return c.Eq(ac, pChargeIndicator, "true") }) {
		value = value.Add(acSum(c, n, pACs, "true", nil).Round2())
	}
	if c.Any(n, pACs, func(ac node) bool { return c.Eq(ac, pChargeIndicator, "false") }) {
		value = value.Sub(acSum(c, n, pACs, "false", nil).Round2())
	}
	lea, ok := c.DecOf(n, pLineExtensionAmount)
	return ok && value.Within(lea, tolerance)
}

// payeeDiffersFromSeller (BR-17): a payee has a name, and shares neither name, identifier nor legal
// registration identifier with the seller.
func payeeDiffersFromSeller(c *ctx, n node) bool {
	if !c.Exists(n, pPayeeName) {
		return false
	}
	for _, pair := range [][2]*rules.Path{{pPayeeName, pSellerName}, {pPayeeID, pSellerID}, {pPayeeCompanyID, pSellerCompanyID}} {
		if anyPairEqual(c, n, pair[0], pair[1]) {
			return false
		}
	}
	return true
}

var (
	pPayeeName       = P("cac:PartyName/cbc:Name")
	pPayeeID         = P("cac:PartyIdentification/cbc:ID")
	pPayeeCompanyID  = P("cac:PartyLegalEntity/cbc:CompanyID")
	pSellerName      = P("../cac:AccountingSupplierParty/cac:Party/cac:PartyName/cbc:Name")
	pSellerID        = P("../cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID")
	pSellerCompanyID = P("../cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID")
	pSellerLegalName = P("../cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName")
)

// anyPairEqual is the general comparison a = b on two node sequences (string values).
func anyPairEqual(c *ctx, n node, a, b *rules.Path) bool {
	return c.Any(n, a, func(x node) bool { return c.Any(n, b, func(y node) bool { return c.Str(x) == c.Str(y) }) })
}

// anyPairDiffer is the general comparison a != b.
func anyPairDiffer(c *ctx, n node, a, b *rules.Path) bool {
	return c.Any(n, a, func(x node) bool { return c.Any(n, b, func(y node) bool { return c.Str(x) != c.Str(y) }) })
}

// payeeOnceAndNotSeller (UBL-SR-19..21): the element occurs at most once, and the payee name differs
// from the seller's legal name.
func payeeOnceAndNotSeller(path string) test {
	p := P(path)
	return func(c *ctx, n node) bool {
		return c.Count(n, p) <= 1 && anyPairDiffer(c, n, pPayeeName, pSellerLegalName)
	}
}

// exemptTaxableMatchesLines (DT-CIUS-PT-175): the exempt taxable amounts of all breakdowns equal the
// exempt lines plus exempt charges minus exempt allowances (rounded to cents), within the tolerance.
func exemptTaxableMatchesLines(c *ctx, n node) bool {
	exemptCat := func(x node) bool { v := c.NormOf(x, pCategoryID); return v == "E" || v == "ISE" }
	exemptLine := func(x node) bool { v := c.NormOf(x, pLineCategoryID); return v == "E" || v == "ISE" }
	check := func(lines *rules.Path) bool {
		if !c.Exists(n, lines) {
			return false
		}
		taxable := c.SumEachWhere(n, pAnySubtotals, exemptCat, pTaxableAmount)
		computed := c.SumEachWhere(n, lines, exemptLine, pLineExtensionAmount)
		computed = computed.Add(acSum(c, n, pAllAllowanceCharges, "true", exemptCat))
		computed = computed.Sub(acSum(c, n, pAllAllowanceCharges, "false", exemptCat)).Round2()
		return taxable.Sub(tolerance).LessEq(computed) && computed.LessEq(taxable.Add(tolerance))
	}
	return check(pAnyInvoiceLine) || check(pAnyCreditLine)
}

// sumMatches: the rounded sum of the net amounts of the lines p selects is the context's line extension
// total within the tolerance.
func sumMatches(c *ctx, n node, lines *rules.Path) bool {
	sum := c.SumEach(n, lines, pLineExtensionAmount).Round2()
	total, ok := c.DecOf(n, pLineExtensionAmount)
	return ok && sum.Within(total, tolerance)
}

// documentTotalMatches (DT-CIUS-PT-161, -162): the document-level allowances (or charges) add up to their
// total; with none, a total given must be zero.
func documentTotalMatches(indicator string, total *rules.Path) test {
	return func(c *ctx, n node) bool {
		some := c.Any(n, pSiblingACs, func(ac node) bool { return c.Eq(ac, pChargeIndicator, indicator) })
		if some {
			sum := acSum(c, n, pSiblingACs, indicator, nil).Round2()
			if t, ok := c.DecOf(n, total); ok && sum.Within(t, tolerance) {
				return true
			}
		} else if t, ok := c.DecOf(n, total); ok && t.IsZero() {
			return true
		}
		return !c.Exists(n, total)
	}
}

// totalWithoutVATAdds (DT-CIUS-PT-163): lines plus document charges minus document allowances (rounded
// to cents when either total is given) is the total without VAT, within the tolerance. As the official
// test is bracketed, only the branch with both totals requires lines; the others add up an empty sum.
func totalWithoutVATAdds(c *ctx, n node) bool {
	check := func(lines *rules.Path) bool {
		hasCharge, hasAllowance := c.Exists(n, pChargeTotal), c.Exists(n, pAllowanceTotal)
		if hasCharge && hasAllowance && !c.Exists(n, lines) {
			return false
		}
		sum := c.SumEach(n, lines, pLineExtensionAmount)
		if hasCharge {
			v, _ := c.DecOf(n, pChargeTotal)
			sum = sum.Add(v)
		}
		if hasAllowance {
			v, _ := c.DecOf(n, pAllowanceTotal)
			sum = sum.Sub(v)
		}
		if hasCharge || hasAllowance {
			sum = sum.Round2()
		}
		excl, ok := c.DecOf(n, pTaxExclusive)
		return ok && sum.Within(excl, tolerance)
	}
	return check(pSiblingLines) || check(pSiblingCreditLines)
}

var (
	pSiblingLines       = P("../cac:InvoiceLine")
	pSiblingCreditLines = P("../cac:CreditNoteLine")
)

// amountDueAdds (DT-CIUS-PT-166). A paid amount or rounding amount counts only when not zero (the test
// uses the decimals as booleans). The official test has a branch for each combination, and what each
// branch casts is what can stop the evaluation: its comparisons, as Saxon evaluates them, cast their
// left side first and do not look at the right side when the left is empty.
func amountDueAdds(c *ctx, n node) bool {
	nonZero := func(p *rules.Path) bool { v, ok := c.DecOf(n, p); return ok && !v.IsZero() }
	payableLess := func(p *rules.Path) func() (rules.Dec, bool) { // round(payable - p), empty with payable
		return func() (rules.Dec, bool) {
			payable, ok := c.DecOf(n, pPayable)
			if !ok {
				return rules.Dec{}, false
			}
			v, ok := c.DecOf(n, p)
			return payable.Sub(v).Round2(), ok
		}
	}
	inclLessPrepaid := func() (rules.Dec, bool) {
		incl, ok := c.DecOf(n, pTaxInclusive)
		if !ok {
			return rules.Dec{}, false
		}
		prepaid, ok := c.DecOf(n, pPrepaid)
		return incl.Sub(prepaid).Round2(), ok
	}
	of := func(p *rules.Path) func() (rules.Dec, bool) {
		return func() (rules.Dec, bool) { return c.DecOf(n, p) }
	}
	within := func(left, right func() (rules.Dec, bool)) bool {
		l, ok := left()
		if !ok {
			return false
		}
		r, ok := right()
		return ok && l.Within(r, tolerance)
	}
	paid := nonZero(pPrepaid)
	rounded := nonZero(pRounding)
	switch {
	case paid && !rounded:
		return within(inclLessPrepaid, of(pPayable))
	case !paid && !rounded:
		return within(of(pTaxInclusive), of(pPayable))
	case paid && rounded:
		return within(payableLess(pRounding), inclLessPrepaid)
	default:
		return within(payableLess(pRounding), of(pTaxInclusive))
	}
}

// percentageMatches (DT-CIUS-PT-158, -159, -168, -169): with a base amount and a percentage, the amount
// is base × percentage ÷ 100 within the tolerance; with neither, nothing is checked.
func percentageMatches(c *ctx, n node) bool {
	_, hasFactor := c.DecOf(n, pMultiplier)
	if !hasFactor {
		if _, hasBase := c.DecOf(n, pBaseAmount); !hasBase {
			return true
		}
	}
	base, okBase := c.DecOf(n, pBaseAmount)
	factor, okFactor := c.DecOf(n, pMultiplier)
	if !okBase || !okFactor {
		return false
	}
	amount, ok := c.DecOf(n, pAmount)
	return ok && base.Mul(factor.Div(rules.Int(100))).Within(amount, tolerance)
}

// subtotalTaxMatches (DT-CIUS-PT-167).
func subtotalTaxMatches(c *ctx, n node) bool {
	percent, hasPercent := c.DecOf(n, pCategoryPercent)
	tax, hasTax := c.DecOf(n, pTaxAmount)
	if hasPercent && hasTax && percent.Round().IsZero() && tax.Round().IsZero() {
		return true
	}
	if hasPercent && !percent.Round().IsZero() {
		taxable, ok := c.DecOf(n, pTaxableAmount)
		if ok && hasTax && taxable.Mul(percent.Div(rules.Int(100))).Round2().Within(tax, tolerance) {
			return true
		}
	}
	return !hasPercent && hasTax && tax.Round().IsZero()
}

// categoryTaxMatches (DT-CIUS-PT-172, -174): the breakdown's VAT is its taxable amount times its rate.
func categoryTaxMatches(c *ctx, n node) bool {
	taxable, ok1 := c.DecOf(n, pParentTaxableAmount)
	percent, ok2 := c.DecOf(n, pPercent)
	tax, ok3 := c.DecOf(n, pParentTaxAmount)
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	return taxable.Mul(percent.Div(rules.Int(100))).Round2().Within(tax, tolerance)
}

// taxableMatchesRate (DT-CIUS-PT-171, -173): for the breakdown's rounded rate, the lines of the kind at
// that rate plus charges minus allowances of the kind at that rate (rounded to cents) are its taxable
// amount within the tolerance. Rates are compared as doubles, as the official test does.
func taxableMatchesRate(kind string) test {
	match := preds[kind]
	return func(c *ctx, n node) bool {
		percents := c.Nodes(n, pPercent)
		if len(percents) == 0 {
			return true
		}
		if len(percents) > 1 {
			rules.Fail("a sequence of more than one item is not allowed as the argument of round()")
		}
		rate := rules.RoundDouble(c.Double(percents[0]))
		atRate := func(x node, path *rules.Path) bool {
			return c.Any(x, path, func(p node) bool { return rules.UntypedCmp(c.Str(p), "=", rate, false) })
		}
		check := func(any, lines *rules.Path) bool {
			if !c.Exists(n, any) {
				return false
			}
			sum := c.SumEachWhere(n, lines, func(l node) bool {
				return (match == nil || kindMatches(kind, c.NormOf(l, pLineCategoryID))) && atRate(l, pLineCategoryPercent)
			}, pLineExtensionAmount)
			keep := func(ac node) bool {
				return kindMatches(kind, c.NormOf(ac, pCategoryID)) && atRate(ac, pCategoryPercent)
			}
			sum = sum.Add(acSum(c, n, pRootACs, "true", keep)).Sub(acSum(c, n, pRootACs, "false", keep)).Round2()
			taxable, ok := c.DecOf(n, pParentTaxableAmount)
			return ok && taxable.Sub(tolerance).LessEq(sum) && sum.LessEq(taxable.Add(tolerance))
		}
		return check(pAnyInvoiceLine, pRootLines) || check(pAnyCreditLine, pRootCreditLines)
	}
}

// kindMatches tells whether a normalised VAT category code is of the kind.
func kindMatches(kind, code string) bool {
	switch kind {
	case "aa":
		return code == "AA" || code == "RED" || code == "INT"
	case "s":
		return code == "S" || code == "NOR"
	case "e":
		return code == "E" || code == "ISE"
	}
	return false
}

// priceDiscountMatches (DT-CIUS-PT-170): with a price discount, the gross price minus the discount is
// the net price within the tolerance. exists() looks no further than the first value it finds, so only
// the casts up to it can stop the evaluation; an operand that is empty leaves the rest unevaluated.
func priceDiscountMatches(c *ctx, n node) bool {
	existsEach := func(child *rules.Path) bool { // exists(cac:AllowanceCharge/xs:decimal(child))
		return c.Any(n, pACs, func(ac node) bool { _, ok := c.DecOf(ac, child); return ok })
	}
	if !existsEach(pBaseAmount) && !existsEach(pAmount) {
		return true
	}
	base, ok := c.DecOfEach(n, pACs, pBaseAmount)
	if !ok {
		return false
	}
	amount, ok := c.DecOfEach(n, pACs, pAmount)
	if !ok {
		return false
	}
	price, ok := c.DecOf(n, pOwnPriceAmount)
	return ok && base.Sub(amount).Within(price, tolerance)
}

var pOwnPriceAmount = P("cbc:PriceAmount")
