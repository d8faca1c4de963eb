package peppol

import (
	"regexp"
	"strings"

	"einvoice/ubl/codelists"
	"einvoice/ubl/rules"
	"einvoice/ubl/xmltree"
)

type (
	ctx  = rules.Ctx
	node = xmltree.NodeID
	test = rules.Test
)

var P = rules.P

func fail(format string, args ...any) { rules.Fail(strings.TrimSpace(sprintf(format, args...))) }

func fatal(id string, t test, en, pt string) *rules.Assert {
	return rules.NewAssert(id, rules.Fatal, false, t, en, pt)
}

func warn(id string, t test, en, pt string) *rules.Assert {
	return rules.NewAssert(id, rules.Warning, false, t, en, pt)
}

func rule(context string, asserts ...*rules.Assert) *rules.Rule {
	return rules.NewRule(context, preds, asserts...)
}

// schemeIs is the predicate [@schemeID = 'code'].
func schemeIs(code string) rules.Pred {
	return func(c *ctx, n node) bool { v, ok := c.Attr(n, schemeID); return ok && v == code }
}

var (
	schemeID   = rules.MustName("schemeID")
	currencyID = rules.MustName("currencyID")
	preds      = map[string]rules.Pred{
		"emptyLeaf": func(c *ctx, n node) bool {
			return !c.Tree().HasElementChildren(n) && rules.Norm(c.Tree().StringValue(n)) == ""
		},
		"vatScheme":  func(c *ctx, n node) bool { return c.NormOf(n, pTaxSchemeID) == "VAT" },
		"vatEq":      rules.ChildEquals("cac:TaxScheme/cbc:ID", "VAT"),
		"startsNL":   func(c *ctx, n node) bool { return strings.HasPrefix(rules.Norm(c.Str(n)), "NL") },
		"factorOnly": func(c *ctx, n node) bool { return c.Exists(n, pMultiplier) && !c.Exists(n, pBaseAmount) },
		"baseOnly":   func(c *ctx, n node) bool { return !c.Exists(n, pMultiplier) && c.Exists(n, pBaseAmount) },
		"allowance":  rules.ChildEquals("cbc:ChargeIndicator", "false"),
		"charge":     rules.ChildEquals("cbc:ChargeIndicator", "true"),
	}
	pTaxSchemeID = P("cac:TaxScheme/cbc:ID")
	pMultiplier  = P("cbc:MultiplierFactorNumeric")
	pBaseAmount  = P("cbc:BaseAmount")
)

// schemeContext is the context of an identifier scheme check: endpoint, party and company identifiers
// with that scheme.
func schemeContext(code string) string {
	name := "s" + code
	if preds[name] == nil {
		preds[name] = schemeIs(code)
	}
	return "cbc:EndpointID[" + name + "] | cac:PartyIdentification/cbc:ID[" + name + "] | cbc:CompanyID[" + name + "]"
}

// endpointScheme is the context of a scheme that only electronic addresses use.
func endpointScheme(code string) string {
	schemeContext(code)
	return "cbc:EndpointID[s" + code + "]"
}

// normValue is normalize-space() of the context element.
func normValue(c *ctx, n node) string { return rules.Norm(c.Str(n)) }

func matching(re string, more func(string) bool) test {
	r := regexp.MustCompile(re)
	return func(c *ctx, n node) bool {
		v := normValue(c, n)
		return r.MatchString(v) && (more == nil || more(v))
	}
}

// commonPatterns are patterns #1 and #2: empty elements, schema location, dates and identifier schemes.
func commonPatterns() []*rules.Pattern {
	allDigits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	return []*rules.Pattern{
		rules.NewPattern("#1",
			rule("//*[emptyLeaf]", fatal("PEPPOL-COMMON-R001", func(*ctx, node) bool { return false },
				"Document MUST NOT contain empty elements.", "O documento não pode conter elementos vazios."))),
		rules.NewPattern("#2",
			rule("/*", warn("PEPPOL-COMMON-R003", noSchemaLocation,
				"Document SHOULD NOT contain schema location.", "O documento não deve indicar a localização do esquema.")),
			rule("cbc:IssueDate | cbc:DueDate | cbc:TaxPointDate | cbc:StartDate | cbc:EndDate | cbc:ActualDeliveryDate",
				fatal("PEPPOL-COMMON-R030", func(c *ctx, n node) bool { s := c.Str(n); return castableDate(s) && rules.Len(s) == 10 },
					"A date MUST be formatted YYYY-MM-DD.", "Uma data tem de estar no formato AAAA-MM-DD.")),
			rule(schemeContext("0088"), fatal("PEPPOL-COMMON-R040", matching(`^[0-9]+$`, gln),
				"GLN must have a valid format according to GS1 rules.", "O GLN tem de ter um formato válido segundo as regras GS1.")),
			rule(schemeContext("0192"), fatal("PEPPOL-COMMON-R041", matching(`^[0-9]{9}$`, mod11),
				"Norwegian organization number MUST be stated in the correct format.", "O número de organização norueguês tem de estar no formato correto.")),
			rule(schemeContext("0184"), fatal("PEPPOL-COMMON-R042", func(c *ctx, n node) bool {
				s := c.Str(n)
				return rules.Len(s) == 10 && substr(s, 1, 2) == "DK" && allDigits(substr(s, 3, 8)) ||
					rules.Len(s) == 8 && allDigits(substr(s, 1, 8))
			}, "Danish organization number (CVR) MUST be stated in the correct format.", "O número de organização dinamarquês (CVR) tem de estar no formato correto.")),
			rule(schemeContext("0096"), fatal("PEPPOL-COMMON-R052", func(c *ctx, n node) bool {
				s := c.Str(n)
				return rules.Len(s) == 10 && allDigits(substr(s, 1, 10))
			}, "Danish organization number (P) MUST be stated in the correct format.", "O número de organização dinamarquês (P) tem de estar no formato correto.")),
			rule(schemeContext("0198"), fatal("PEPPOL-COMMON-R053", func(c *ctx, n node) bool {
				s := c.Str(n)
				return rules.Len(s) == 10 && substr(s, 1, 2) == "DK" && allDigits(substr(s, 3, 8))
			}, "Danish organization number (SE) MUST be stated in the correct format.", "O número de organização dinamarquês (SE) tem de estar no formato correto.")),
			rule(schemeContext("0208"), fatal("PEPPOL-COMMON-R043", matching(`^[0-9]{10}$`, mod97),
				"Belgian enterprise number MUST be stated in the correct format.", "O número de empresa belga tem de estar no formato correto.")),
			rule(schemeContext("0201"), warn("PEPPOL-COMMON-R044", func(c *ctx, n node) bool { return codiceIPA(normValue(c, n)) },
				"IPA Code (Codice Univoco Unità Organizzativa) must be stated in the correct format.", "O código IPA tem de estar no formato correto.")),
			rule(schemeContext("0210"), warn("PEPPOL-COMMON-R045", func(c *ctx, n node) bool { return codiceFiscale(normValue(c, n)) },
				"Tax Code (Codice Fiscale) must be stated in the correct format.", "O código fiscal italiano tem de estar no formato correto.")),
			rule(endpointScheme("9907"), warn("PEPPOL-COMMON-R046", func(c *ctx, n node) bool { return codiceFiscale(normValue(c, n)) },
				"Tax Code (Codice Fiscale) must be stated in the correct format.", "O código fiscal italiano tem de estar no formato correto.")),
			rule(schemeContext("0211"), warn("PEPPOL-COMMON-R047", func(c *ctx, n node) bool { return partitaIVA(normValue(c, n)) },
				"Italian VAT Code (Partita Iva) must be stated in the correct format.", "O NIF italiano (Partita IVA) tem de estar no formato correto.")),
			rule(schemeContext("0007"), fatal("PEPPOL-COMMON-R049", func(c *ctx, n node) bool {
				v := normValue(c, n)
				_, isNumber := parseNumber(v)
				return rules.Len(v) == 10 && isNumber && seOrgnr(v)
			}, "Swedish organization number MUST be stated in the correct format.", "O número de organização sueco tem de estar no formato correto.")),
			rule(schemeContext("0151"), fatal("PEPPOL-COMMON-R050", matching(`^[0-9]{11}$`, abn),
				"Australian Business Number (ABN) MUST be stated in the correct format.", "O ABN australiano tem de estar no formato correto.")),
			rule(schemeContext("0106"), warn("PEPPOL-COMMON-R054", matching(`^[0-9]{8}$`, nil),
				"Dutch KvK number SHOULD have 8 digits.", "O número KvK neerlandês deve ter 8 dígitos.")),
			rule(schemeContext("0190"), warn("PEPPOL-COMMON-R055", matching(`^[0-9]{20}$`, nil),
				"Dutch OIN SHOULD have 20 digits.", "O OIN neerlandês deve ter 20 dígitos.")),
			rule(schemeContext("9944"), warn("PEPPOL-COMMON-R056-1", matching(`^NL[0-9]{9}B[0-9]{2}$`, nil),
				"Dutch VAT number SHOULD be written NL, 9 digits, B and 2 digits.", "O NIF neerlandês deve ser NL, 9 dígitos, B e 2 dígitos.")),
			rule("cac:PartyTaxScheme[vatScheme]/cbc:CompanyID[startsNL]", warn("PEPPOL-COMMON-R056-2", matching(`^NL[0-9]{9}B[0-9]{2}$`, nil),
				"Dutch VAT number SHOULD be written NL, 9 digits, B and 2 digits.", "O NIF neerlandês deve ser NL, 9 dígitos, B e 2 dígitos.")),
			rule(schemeContext("0217"), warn("PEPPOL-COMMON-R057", matching(`^[0-9]{12}$`, nil),
				"Belgian KBO number SHOULD have 12 digits.", "O número KBO belga deve ter 12 dígitos.")),
		),
	}
}

// transactionPattern is pattern #4: the Order rules.
func transactionPattern() *rules.Pattern {
	profiles := []string{"urn:fdc:peppol.eu:poacc:bis:order_only:3", "urn:fdc:peppol.eu:poacc:bis:ordering:3", "urn:fdc:peppol.eu:poacc:bis:advanced_ordering:3"}
	prefixes := codelists.Get("peppol-vat-prefixes")
	return rules.NewPattern("#4",
		rule("cbc:ProfileID", fatal("PEPPOL-T01-R031", func(c *ctx, n node) bool {
			v := normValue(c, n)
			for _, p := range profiles {
				if p == v {
					return true
				}
			}
			return false
		}, "An order transaction SHALL use a PEPPOL ordering profile identifier.", "A encomenda tem de usar um identificador de perfil PEPPOL de encomenda.")),
		rule("cbc:CustomizationID", fatal("PEPPOL-T01-R034", func(c *ctx, n node) bool {
			return strings.HasPrefix(normValue(c, n), "urn:fdc:peppol.eu:poacc:trns:order:3")
		}, "Specification identifier SHALL start with urn:fdc:peppol.eu:poacc:trns:order:3.", "O identificador da especificação tem de começar por urn:fdc:peppol.eu:poacc:trns:order:3.")),
		rule("cbc:Amount | cbc:TaxAmount | cbc:LineExtensionAmount | cbc:PriceAmount | cbc:BaseAmount | cac:AnticipatedMonetaryTotal/cbc:*",
			fatal("PEPPOL-T01-R003", func(c *ctx, n node) bool {
				v, ok := c.Attr(n, currencyID)
				return !ok || c.Eq(n, pDocumentCurrency, v)
			}, "All currencyID attributes SHALL have the same value as the document currency code.", "Todos os atributos currencyID têm de ter o valor da moeda do documento."),
			fatal("PEPPOL-T01-R028", func(c *ctx, n node) bool {
				return underPrice(c, n) || rules.Len(after(c.Str(n), ".")) <= 2
			}, "Elements of data type amount SHALL have at most 2 decimals.", "Os valores monetários têm no máximo 2 casas decimais.")),
		rule("ord:Order", warn("PEPPOL-T01-R002", exist("cac:ValidityPeriod/cbc:EndDate"),
			"An order SHOULD have a validity end date.", "A encomenda deve ter uma data de fim de validade.")),
		rule("cac:OriginatorCustomerParty", fatal("PEPPOL-T01-R014", rules.ExistsAny("cac:Party/cac:PartyName/cbc:Name", "cac:Party/cac:PartyIdentification/cbc:ID"),
			"The originator party SHALL have a name or an identifier.", "A entidade originadora tem de ter nome ou identificador.")),
		rule("cac:PartyTaxScheme[vatEq]", fatal("PEPPOL-T01-R026", func(c *ctx, n node) bool {
			return strings.Contains(prefixes.Text(), substr(c.StrOf(n, pCompanyID), 1, 2))
		}, "A VAT identifier SHALL start with a country code.", "O NIF tem de começar pelo código do país.")),
		rule("cac:AnticipatedMonetaryTotal", totalsAsserts()...),
		rule("cac:AllowanceCharge[factorOnly] | /ord:Order/cac:OrderLine/cac:LineItem/cac:AllowanceCharge[factorOnly]",
			fatal("PEPPOL-T01-R020", func(*ctx, node) bool { return false },
				"A percentage of an allowance or charge needs its base amount.", "A percentagem de um desconto ou encargo exige o valor base.")),
		rule("/ord:Order/cac:AllowanceCharge[baseOnly] | /ord:Order/cac:OrderLine/cac:LineItem/cac:AllowanceCharge[baseOnly]",
			fatal("PEPPOL-T01-R021", func(*ctx, node) bool { return false },
				"A base amount of an allowance or charge needs its percentage.", "O valor base de um desconto ou encargo exige a percentagem.")),
		rule("/ord:Order/cac:AllowanceCharge | /ord:Order/cac:OrderLine/cac:LineItem/cac:AllowanceCharge",
			fatal("PEPPOL-T01-R022", allowanceAmountMatches,
				"Allowance or charge amount SHALL equal base amount times percentage divided by 100.", "O valor do desconto ou encargo tem de ser o valor base vezes a percentagem a dividir por 100."),
			fatal("PEPPOL-T01-R023", rules.ExistsAny("cbc:AllowanceChargeReason", "cbc:AllowanceChargeReasonCode"),
				"Each allowance or charge SHALL have a reason or a reason code.", "Cada desconto ou encargo tem de ter motivo ou código do motivo."),
			fatal("PEPPOL-T01-R032", func(c *ctx, n node) bool { return c.Number(n, pAmount) >= 0 },
				"Allowance or charge amounts SHALL NOT be negative.", "Os valores de descontos e encargos não podem ser negativos.")),
		rule("cac:TaxCategory | cac:ClassifiedTaxCategory",
			fatal("PEPPOL-T01-R029", func(c *ctx, n node) bool { return c.Exists(n, pPercent) || c.NormOf(n, pID) == "O" },
				"A tax category SHALL have a rate unless it is outside the scope of VAT (O).", "Uma categoria de IVA tem de ter taxa, salvo fora do âmbito do IVA (O)."),
			fatal("PEPPOL-T01-R030", func(c *ctx, n node) bool { return c.NormOf(n, pID) != "S" || c.IntCmp(n, pPercent, ">", 0) },
				"A standard-rated tax category SHALL have a rate greater than zero.", "A categoria de IVA à taxa normal tem de ter taxa maior que zero.")),
		rule("cac:OrderLine/cac:LineItem", lineAsserts()...),
		rule("cac:Price/cac:AllowanceCharge", fatal("PEPPOL-T01-R019", func(c *ctx, n node) bool {
			if !c.Exists(n, pBaseAmount) {
				return true
			}
			price, ok := c.DecOf(n, pParentPriceAmount)
			if !ok {
				return false
			}
			base, _ := c.DecOf(n, pBaseAmount)
			amount, ok := c.DecOf(n, pAmount)
			return ok && price.Equal(base.Sub(amount))
		}, "Item net price SHALL equal the gross price minus the price discount.", "O preço líquido tem de ser o preço bruto menos o desconto.")),
		rule("cac:Price",
			fatal("PEPPOL-T01-R005", func(c *ctx, n node) bool { return c.Number(n, pPriceAmount) >= 0 },
				"Item net price SHALL NOT be negative.", "O preço líquido não pode ser negativo."),
			fatal("PEPPOL-T01-R027", func(c *ctx, n node) bool {
				return c.IntCmp(n, pPriceBase, ">=", 0) || !c.Exists(n, pPriceBase)
			}, "Item gross price SHALL NOT be negative.", "O preço bruto não pode ser negativo."),
			fatal("PEPPOL-T01-R033", func(c *ctx, n node) bool {
				return c.Number(n, pPriceDiscount) >= 0 || !c.Exists(n, pPriceDiscount)
			}, "Item price discount SHALL NOT be negative.", "O desconto no preço não pode ser negativo.")),
		rule("cac:QuotationLineReference/cbc:LineID", fatal("PEPPOL-T01-R035", exist("/*/cac:QuotationDocumentReference/cbc:ID"),
			"A quotation line reference needs a quotation document reference.", "A referência à linha da proposta exige a referência à proposta.")),
		rule("cac:AllowanceCharge[allowance]/cbc:AllowanceChargeReasonCode", fatal("PEPPOL-T01-CL001", reasonIn("peppol-uncl5189"),
			"Reason code MUST be according to subset of UNCL 5189.", "O código do motivo tem de pertencer à lista UNCL 5189.")),
		rule("cac:AllowanceCharge[charge]/cbc:AllowanceChargeReasonCode", fatal("PEPPOL-T01-CL002", reasonIn("peppol-uncl7161"),
			"Reason code MUST be according to UNCL 7161.", "O código do motivo tem de pertencer à lista UNCL 7161.")),
	)
}

var (
	pDocumentCurrency  = P("/ord:Order/cbc:DocumentCurrencyCode")
	pCompanyID         = P("cbc:CompanyID")
	pAmount            = P("cbc:Amount")
	pPercent           = P("cbc:Percent")
	pID                = P("cbc:ID")
	pParentPriceAmount = P("../cbc:PriceAmount")
	pPriceAmount       = P("cbc:PriceAmount")
	pPriceBase         = P("cac:AllowanceCharge/cbc:BaseAmount")
	pPriceDiscount     = P("cac:AllowanceCharge/cbc:Amount")
)

func exist(paths ...string) test { return rules.ExistsWith(preds, paths...) }

func after(s, sep string) string {
	if _, a, ok := strings.Cut(s, sep); ok {
		return a
	}
	return ""
}

// underPrice is ancestor::node()/local-name() = 'Price'.
func underPrice(c *ctx, n node) bool {
	t := c.Tree()
	for a := t.Parent(n); a != xmltree.None; a = t.Parent(a) {
		if t.QName(t.Name(a)).Local == "Price" {
			return true
		}
	}
	return false
}

func reasonIn(list string) test {
	l := codelists.Get(list)
	return func(c *ctx, n node) bool { return l.Has(c.TextValue(n)) }
}
