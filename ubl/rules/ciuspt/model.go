package ciuspt

import (
	"strings"

	"einvoice/ubl/rules"
)

// modelPattern is the UBL-model pattern: the EN16931 and CIUS-PT presence and consistency rules.
func modelPattern() *rules.Pattern {
	return rules.NewPattern("UBL-model",
		rule("cac:AdditionalDocumentReference",
			fatal("BR-52", exist("cbc:ID"),
				"Each additional supporting document (BG-24) shall have a supporting document reference (BT-122).",
				"Cada documento de suporte adicional (BG-24) deve ter a referência do documento (BT-122)."),
			fatalR("BR-CIUS-PT-30", func(c *ctx, n node) bool {
				return c.Exists(n, pAttachment) && !c.Exists(n, pAttachmentObject) && !c.Exists(n, pAttachmentURI)
			},
				"An attachment (BG-24) needs the external document location (BT-124) or the attached document (BT-125), or both.",
				"Um anexo (BG-24) exige a localização externa do documento (BT-124) ou o documento anexado (BT-125), ou ambos.")),
		rule("cac:AccountingCustomerParty",
			fatalR("BR-CIUS-PT-38", filled("cac:Party/cac:PartyIdentification", "cbc:ID"),
				"The buyer identifier (BT-46) shall be filled.", "O identificador do adquirente (BT-46) deve estar preenchido."),
			fatalR("BR-CIUS-PT-39", filled("cac:Party/cac:PartyName", "cbc:Name"),
				"The buyer trading name (BT-45) shall be filled.", "O nome comercial do adquirente (BT-45) deve estar preenchido."),
			fatalR("BR-CIUS-PT-40", contactEmpty("cac:Party/cac:Contact"),
				"A buyer contact needs a contact point (BT-56), telephone (BT-57) or e-mail (BT-58).",
				"O contacto do adquirente exige ponto de contacto (BT-56), telefone (BT-57) ou e-mail (BT-58).")),
		rule("cac:AccountingCustomerParty/cac:Party/cbc:EndpointID",
			fatal("BR-63", hasAttr("schemeID"),
				"The buyer electronic address (BT-49) shall have a scheme identifier.",
				"O endereço eletrónico do adquirente (BT-49) deve ter o identificador do esquema.")),
		rule("cac:AccountingCustomerParty/cac:Party/cac:PostalAddress",
			fatal("BR-11", exist("cac:Country/cbc:IdentificationCode"),
				"The buyer postal address shall contain a country code (BT-55).",
				"A morada do adquirente deve conter o código do país (BT-55)."),
			fatalR("BR-CIUS-PT-41", filled("cac:AddressLine", "cbc:Line"),
				"The buyer address line 3 (BT-163) shall be filled.", "A linha 3 da morada do adquirente (BT-163) deve estar preenchida.")),
		rule("cac:ContractDocumentReference",
			fatal("BR-CIUS-PT-29", exist("cbc:ID"),
				"The contract reference (BT-12) shall be filled.", "A referência do contrato (BT-12) deve estar preenchida.")),
		rule("cac:Delivery",
			fatalR("BR-CIUS-PT-46", or(filled("cac:DeliveryParty", "cac:PartyName"), filled("cac:DeliveryParty/cac:PartyName", "cbc:Name")),
				"The deliver-to party name (BT-70) shall be filled.", "O nome da entidade de entrega (BT-70) deve estar preenchido."),
			fatal("BR-CIUS-PT-64", any_("cbc:ActualDeliveryDate", "cac:DeliveryParty", "cac:DeliveryLocation/cbc:ID", "cac:DeliveryLocation/cac:Address"),
				"Delivery information needs the actual delivery date (BT-72), the deliver-to location (BT-71), address (BG-15) or party name (BT-70).",
				"A informação de entrega exige a data efetiva (BT-72), o local (BT-71), a morada (BG-15) ou o nome da entidade (BT-70).")),
		rule("cac:Delivery/cac:DeliveryLocation/cac:Address",
			fatal("BR-CIUS-PT-21", exist("cbc:StreetName"),
				"Each deliver-to address (BG-15) shall contain address line 1 (BT-75).", "Cada morada de entrega (BG-15) deve conter a linha 1 (BT-75)."),
			fatal("BR-CIUS-PT-22", exist("cbc:CityName"),
				"Each deliver-to address (BG-15) shall contain a city (BT-77).", "Cada morada de entrega (BG-15) deve conter a localidade (BT-77)."),
			fatal("BR-CIUS-PT-23", exist("cbc:PostalZone"),
				"Each deliver-to address (BG-15) shall contain a post code (BT-78).", "Cada morada de entrega (BG-15) deve conter o código postal (BT-78)."),
			fatal("BR-57", exist("cac:Country/cbc:IdentificationCode"),
				"Each deliver-to address (BG-15) shall contain a country code (BT-80).", "Cada morada de entrega (BG-15) deve conter o código do país (BT-80)."),
			fatalR("BR-CIUS-PT-45", filled("cac:AddressLine", "cbc:Line"),
				"The deliver-to address line 3 (BT-165) shall be filled.", "A linha 3 da morada de entrega (BT-165) deve estar preenchida.")),
		rule("cac:DespatchDocumentReference",
			fatal("BR-CIUS-PT-26", exist("cbc:ID"),
				"The despatch advice reference (BT-16) shall be filled.", "A referência da guia de remessa (BT-16) deve estar preenchida.")),
		rule("//inv:Invoice/cac:AllowanceCharge[allowance] | //cn:CreditNote/cac:AllowanceCharge[allowance]",
			fatal("BR-31", exist("cbc:Amount"),
				"Each document-level allowance (BG-20) shall have an amount (BT-92).", "Cada desconto ao nível do documento (BG-20) deve ter o valor (BT-92)."),
			fatal("BR-32", exist("cac:TaxCategory/cbc:ID"),
				"Each document-level allowance (BG-20) shall have a VAT category code (BT-95).", "Cada desconto ao nível do documento (BG-20) deve ter o código da categoria de IVA (BT-95)."),
			fatal("BR-33", any_("cbc:AllowanceChargeReason", "cbc:AllowanceChargeReasonCode"),
				"Each document-level allowance (BG-20) shall have a reason (BT-97) or a reason code (BT-98).", "Cada desconto ao nível do documento (BG-20) deve ter o motivo (BT-97) ou o código do motivo (BT-98)."),
			fatal("BR-CO-21", any_("cbc:AllowanceChargeReason", "cbc:AllowanceChargeReasonCode"),
				"Each document-level allowance (BG-20) shall contain a reason (BT-97) or a reason code (BT-98), or both.", "Cada desconto ao nível do documento (BG-20) deve conter o motivo (BT-97) ou o código do motivo (BT-98), ou ambos."),
			fatal("BR-CIUS-PT-19", exist("cac:TaxCategory/cac:TaxScheme/cbc:ID"),
				"Each document-level allowance (BG-20) shall have a tax scheme.", "Cada desconto ao nível do documento (BG-20) deve ter o regime fiscal.")),
		rule("//inv:Invoice/cac:AllowanceCharge[charge] | //cn:CreditNote/cac:AllowanceCharge[charge]",
			fatal("BR-36", exist("cbc:Amount"),
				"Each document-level charge (BG-21) shall have an amount (BT-99).", "Cada encargo ao nível do documento (BG-21) deve ter o valor (BT-99)."),
			fatal("BR-37", exist("cac:TaxCategory/cbc:ID"),
				"Each document-level charge (BG-21) shall have a VAT category code (BT-102).", "Cada encargo ao nível do documento (BG-21) deve ter o código da categoria de IVA (BT-102)."),
			fatal("BR-38", any_("cbc:AllowanceChargeReason", "cbc:AllowanceChargeReasonCode"),
				"Each document-level charge (BG-21) shall have a reason (BT-104) or a reason code (BT-105).", "Cada encargo ao nível do documento (BG-21) deve ter o motivo (BT-104) ou o código do motivo (BT-105)."),
			fatal("BR-CO-22", any_("cbc:AllowanceChargeReason", "cbc:AllowanceChargeReasonCode"),
				"Each document-level charge (BG-21) shall contain a reason (BT-104) or a reason code (BT-105), or both.", "Cada encargo ao nível do documento (BG-21) deve conter o motivo (BT-104) ou o código do motivo (BT-105), ou ambos."),
			fatal("BR-CIUS-PT-20", exist("cac:TaxCategory/cac:TaxScheme/cbc:ID"),
				"Each document-level charge (BG-21) shall have a tax scheme.", "Cada encargo ao nível do documento (BG-21) deve ter o regime fiscal.")),
		rule("cac:LegalMonetaryTotal",
			fatal("BR-12", exist("cbc:LineExtensionAmount"),
				"An invoice shall have the sum of invoice line net amounts (BT-106).", "A fatura deve ter a soma dos valores líquidos das linhas (BT-106)."),
			fatal("BR-13", exist("cbc:TaxExclusiveAmount"),
				"An invoice shall have the total amount without VAT (BT-109).", "A fatura deve ter o total sem IVA (BT-109)."),
			fatal("BR-14", exist("cbc:TaxInclusiveAmount"),
				"An invoice shall have the total amount with VAT (BT-112).", "A fatura deve ter o total com IVA (BT-112)."),
			fatal("BR-15", exist("cbc:PayableAmount"),
				"An invoice shall have the amount due for payment (BT-115).", "A fatura deve ter o valor a pagar (BT-115)."),
			fatalR("BR-CIUS-PT-62", docLevelWithoutTotal("false", "cbc:AllowanceTotalAmount"),
				"With document-level allowances (BG-20), the sum of allowances (BT-107) shall be filled.",
				"Com descontos ao nível do documento (BG-20), a soma dos descontos (BT-107) deve estar preenchida."),
			fatalR("BR-CIUS-PT-63", docLevelWithoutTotal("true", "cbc:ChargeTotalAmount"),
				"With document-level charges (BG-21), the sum of charges (BT-108) shall be filled.",
				"Com encargos ao nível do documento (BG-21), a soma dos encargos (BT-108) deve estar preenchida.")),
		rule("//inv:Invoice | //cn:CreditNote", documentAsserts()...),
		rule("cac:InvoiceLine | cac:CreditNoteLine",
			fatal("BR-21", exist("cbc:ID"),
				"Each invoice line (BG-25) shall have an identifier (BT-126).", "Cada linha (BG-25) deve ter o identificador (BT-126)."),
			fatal("BR-22", any_("cbc:InvoicedQuantity", "cbc:CreditedQuantity"),
				"Each invoice line (BG-25) shall have an invoiced quantity (BT-129).", "Cada linha (BG-25) deve ter a quantidade (BT-129)."),
			fatalR("BR-23", func(c *ctx, n node) bool {
				return quantityWithoutUnit(c, n, pInvoicedQuantity) || quantityWithoutUnit(c, n, pCreditedQuantity)
			},
				"An invoice line (BG-25) shall have an invoiced quantity unit of measure code (BT-130).",
				"A linha (BG-25) deve ter o código da unidade de medida da quantidade (BT-130)."),
			fatal("BR-24", exist("cbc:LineExtensionAmount"),
				"Each invoice line (BG-25) shall have a net amount (BT-131).", "Cada linha (BG-25) deve ter o valor líquido (BT-131)."),
			fatal("BR-25", exist("cac:Item/cbc:Name"),
				"Each invoice line (BG-25) shall contain the item name (BT-153).", "Cada linha (BG-25) deve conter o nome do artigo (BT-153)."),
			fatal("BR-26", exist("cac:Price/cbc:PriceAmount"),
				"Each invoice line (BG-25) shall contain the item net price (BT-146).", "Cada linha (BG-25) deve conter o preço unitário líquido (BT-146)."),
			fatal("BR-CIUS-PT-09", exist("cac:Item/cac:ClassifiedTaxCategory/cac:TaxScheme/cbc:ID"),
				"Each invoice line (BG-25) shall have an item tax scheme.", "Cada linha (BG-25) deve ter o regime fiscal do artigo."),
			fatalR("BR-CIUS-PT-51", filled("cac:OrderLineReference", "cbc:LineID"),
				"The referenced purchase order line (BT-132) shall be filled.", "A linha da encomenda referenciada (BT-132) deve estar preenchida."),
			fatalR("BR-CIUS-PT-52", filled("cac:DocumentReference", "cbc:ID"),
				"The invoice line object identifier (BT-128) shall be filled.", "O identificador do objeto da linha (BT-128) deve estar preenchido.")),
		rule("//cac:InvoiceLine/cac:AllowanceCharge[allowance] | //cac:CreditNoteLine/cac:AllowanceCharge[allowance]",
			fatal("BR-41", exist("cbc:Amount"),
				"Each line allowance (BG-27) shall have an amount (BT-136).", "Cada desconto de linha (BG-27) deve ter o valor (BT-136)."),
			fatal("BR-42", any_("cbc:AllowanceChargeReason", "cbc:AllowanceChargeReasonCode"),
				"Each line allowance (BG-27) shall have a reason (BT-139) or a reason code (BT-140).", "Cada desconto de linha (BG-27) deve ter o motivo (BT-139) ou o código do motivo (BT-140)."),
			fatal("BR-CO-07", always, "Line allowance (BG-27) rule BR-CO-07.", "Regra BR-CO-07 do desconto de linha (BG-27)."),
			fatal("BR-CO-23", any_("cbc:AllowanceChargeReason", "cbc:AllowanceChargeReasonCode"),
				"Each line allowance (BG-27) shall contain a reason (BT-139) or a reason code (BT-140), or both.", "Cada desconto de linha (BG-27) deve conter o motivo (BT-139) ou o código do motivo (BT-140), ou ambos.")),
		rule("//cac:InvoiceLine/cac:AllowanceCharge[charge] | //cac:CreditNoteLine/cac:AllowanceCharge[charge]",
			fatal("BR-43", exist("cbc:Amount"),
				"Each line charge (BG-28) shall have an amount (BT-141).", "Cada encargo de linha (BG-28) deve ter o valor (BT-141)."),
			fatal("BR-44", any_("cbc:AllowanceChargeReason", "cbc:AllowanceChargeReasonCode"),
				"Each line charge (BG-28) shall have a reason (BT-144) or a reason code (BT-145).", "Cada encargo de linha (BG-28) deve ter o motivo (BT-144) ou o código do motivo (BT-145)."),
			fatal("BR-CO-08", always, "Line charge (BG-28) rule BR-CO-08.", "Regra BR-CO-08 do encargo de linha (BG-28)."),
			fatal("BR-CO-24", any_("cbc:AllowanceChargeReason", "cbc:AllowanceChargeReasonCode"),
				"Each line charge (BG-28) shall contain a reason (BT-144) or a reason code (BT-145), or both.", "Cada encargo de linha (BG-28) deve conter o motivo (BT-144) ou o código do motivo (BT-145), ou ambos.")),
		rule("cac:InvoiceLine/cac:Item | cac:CreditNoteLine/cac:Item",
			fatalR("BR-CIUS-PT-53", filled("cac:BuyersItemIdentification", "cbc:ID"),
				"The item buyer's identifier (BT-156) shall be filled.", "O identificador do artigo atribuído pelo adquirente (BT-156) deve estar preenchido."),
			fatalR("BR-CIUS-PT-54", filled("cac:SellersItemIdentification", "cbc:ID"),
				"The item seller's identifier (BT-155) shall be filled.", "O identificador do artigo atribuído pelo vendedor (BT-155) deve estar preenchido."),
			fatalR("BR-CIUS-PT-55", filled("cac:StandardItemIdentification", "cbc:ID"),
				"The item standard identifier (BT-157) shall be filled.", "O identificador normalizado do artigo (BT-157) deve estar preenchido."),
			fatalR("BR-CIUS-PT-56", filled("cac:OriginCountry", "cbc:IdentificationCode"),
				"The item country of origin (BT-159) shall be filled.", "O país de origem do artigo (BT-159) deve estar preenchido."),
			fatalR("BR-CIUS-PT-57", filled("cac:CommodityClassification", "cbc:ItemClassificationCode"),
				"The item classification identifier (BT-158) shall be filled.", "O identificador da classificação do artigo (BT-158) deve estar preenchido."),
			fatalR("BR-CIUS-PT-18", func(c *ctx, n node) bool {
				return (c.Eq(n, pClassifiedID, "E") || c.Eq(n, pClassifiedID, "ISE")) && !c.Exists(n, pAdditionalItemProperty)
			},
				"An exempt line (E/ISE) shall state its exemption reason in item attributes (BG-32).",
				"Uma linha isenta (E/ISE) deve indicar o motivo de isenção nos atributos do artigo (BG-32).")),
		rule("cac:InvoiceLine/cac:InvoicePeriod | cac:CreditNoteLine/cac:InvoicePeriod",
			fatal("BR-30", periodOrdered,
				"A line period end date (BT-135) shall be on or after its start date (BT-134).", "A data de fim do período da linha (BT-135) deve ser igual ou posterior à de início (BT-134)."),
			fatal("BR-CO-20", any_("cbc:StartDate", "cbc:EndDate"),
				"A line period (BG-26) shall have a start date (BT-134) or an end date (BT-135), or both.", "O período da linha (BG-26) deve ter data de início (BT-134) ou de fim (BT-135), ou ambas.")),
		rule("cac:InvoiceLine/cac:Price | cac:CreditNoteLine/cac:Price",
			fatal("BR-CIUS-PT-58", not(exist("cac:AllowanceCharge[charge]")),
				"The item price shall not carry a charge.", "O preço do artigo não pode ter encargos."),
			fatalR("BR-CIUS-PT-59", and(exist("cac:AllowanceCharge[allowance]"), not(exist("cac:AllowanceCharge/cbc:Amount"))),
				"The item price discount (BT-147) shall be filled.", "O desconto no preço do artigo (BT-147) deve estar preenchido.")),
		rule("cac:InvoicePeriod",
			fatal("BR-29", periodOrdered,
				"The invoicing period end date (BT-74) shall be on or after its start date (BT-73).", "A data de fim do período de faturação (BT-74) deve ser igual ou posterior à de início (BT-73)."),
			fatal("BR-CO-19", any_("cbc:StartDate", "cbc:EndDate"),
				"An invoicing period (BG-14) shall have a start date (BT-73) or an end date (BT-74), or both.", "O período de faturação (BG-14) deve ter data de início (BT-73) ou de fim (BT-74), ou ambas.")),
		rule("//cac:AdditionalItemProperty",
			fatal("BR-54", exist("cbc:Name", "cbc:Value"),
				"Each item attribute (BG-32) shall contain a name (BT-160) and a value (BT-161).", "Cada atributo do artigo (BG-32) deve conter o nome (BT-160) e o valor (BT-161).")),
		rule("cac:InvoiceLine/cac:Item/cac:CommodityClassification/cbc:ItemClassificationCode | cac:CreditNoteLine/cac:Item/cac:CommodityClassification/cbc:ItemClassificationCode",
			fatal("BR-65", hasAttr("listID"),
				"The item classification identifier (BT-158) shall have a scheme identifier.", "O identificador da classificação do artigo (BT-158) deve ter o identificador do esquema.")),
		rule("cac:InvoiceLine/cac:Item/cac:StandardItemIdentification/cbc:ID | cac:CreditNoteLine/cac:Item/cac:StandardItemIdentification/cbc:ID",
			fatal("BR-64", hasAttr("schemeID"),
				"The item standard identifier (BT-157) shall have a scheme identifier.", "O identificador normalizado do artigo (BT-157) deve ter o identificador do esquema.")),
		rule("cac:OrderReference",
			fatal("BR-CIUS-PT-24", any_("cbc:ID", "cbc:SalesOrderID"),
				"The purchase order reference (BT-13) or the sales order reference (BT-14) shall be filled.", "A referência da encomenda (BT-13) ou da ordem de venda (BT-14) deve estar preenchida.")),
		rule("cac:OriginatorDocumentReference",
			fatal("BR-CIUS-PT-28", exist("cbc:ID"),
				"The tender or lot reference (BT-17) shall be filled.", "A referência do concurso ou lote (BT-17) deve estar preenchida.")),
		rule("cac:PayeeParty",
			fatalR("BR-CIUS-PT-32", filled("cac:PartyName", "cbc:Name"),
				"The payee name (BT-59) shall be filled.", "O nome do beneficiário (BT-59) deve estar preenchido."),
			fatalR("BR-CIUS-PT-42", filled("cac:PartyIdentification", "cbc:ID"),
				"The payee identifier (BT-60) shall be filled.", "O identificador do beneficiário (BT-60) deve estar preenchido."),
			fatalR("BR-CIUS-PT-43", filled("cac:PartyLegalEntity", "cbc:CompanyID"),
				"The payee legal registration identifier (BT-61) shall be filled.", "O identificador de registo legal do beneficiário (BT-61) deve estar preenchido.")),
		rule("cac:PaymentMeans[transfer]/cac:PayeeFinancialAccount",
			fatal("BR-50", exist("cbc:ID"),
				"A payment account identifier (BT-84) shall be present for credit transfers.", "O identificador da conta de pagamento (BT-84) é obrigatório nas transferências."),
		),
		rule("cac:PaymentMeans",
			fatal("BR-49", exist("cbc:PaymentMeansCode"),
				"A payment instruction (BG-16) shall specify the payment means type code (BT-81).", "A instrução de pagamento (BG-16) deve indicar o código do meio de pagamento (BT-81)."),
			fatal("BR-61", func(c *ctx, n node) bool {
				code := c.NormOf(n, pPaymentMeansCode)
				transfer := code == "30" || code == "58"
				return c.Exists(n, pPayeeAccountID) && transfer || !transfer
			},
				"For credit transfers (BT-81 30 or 58) the payment account identifier (BT-84) shall be present.",
				"Nas transferências (BT-81 30 ou 58) o identificador da conta de pagamento (BT-84) é obrigatório."),
			fatalR("BR-CIUS-PT-47", func(c *ctx, n node) bool {
				return c.Exists(n, pPayeeAccount) && !c.Exists(n, pPayeeAccountID) && !c.Exists(n, pPayeeAccountName) && !c.Exists(n, pPayeeBranchID)
			},
				"A payee account needs its identifier (BT-84), name (BT-85) or service provider (BT-86).",
				"A conta do beneficiário exige o identificador (BT-84), o nome (BT-85) ou o prestador de serviços (BT-86)."),
			fatalR("BR-CIUS-PT-48", filled("cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch", "cbc:ID"),
				"The payment service provider identifier (BT-86) shall be filled.", "O identificador do prestador de serviços de pagamento (BT-86) deve estar preenchido."),
			fatalR("BR-CIUS-PT-49", func(c *ctx, n node) bool {
				return c.Exists(n, pMandate) && !c.Exists(n, pMandateID) && !c.Exists(n, pPayerAccountID)
			},
				"A direct debit needs the mandate reference (BT-89) or the debited account (BT-91).",
				"O débito direto exige a referência do mandato (BT-89) ou a conta debitada (BT-91)."),
			fatalR("BR-CIUS-PT-50", filled("cac:PaymentMandate/cac:PayerFinancialAccount", "cbc:ID"),
				"The debited account identifier (BT-91) shall be filled.", "O identificador da conta debitada (BT-91) deve estar preenchido."),
			fatalR("BR-CIUS-PT-60", func(c *ctx, n node) bool {
				return c.Exists(n, pCard) && (!c.Exists(n, pCardPAN) || !c.Exists(n, pCardNetwork))
			},
				"Card information needs the primary account number (BT-87) and the card network.",
				"A informação do cartão exige o número principal da conta (BT-87) e a rede do cartão.")),
		rule("cac:PaymentTerms",
			fatal("BR-CIUS-PT-61", exist("cbc:Note"),
				"Payment terms (BT-20) shall be filled.", "As condições de pagamento (BT-20) devem estar preenchidas.")),
		rule("cac:BillingReference",
			fatal("BR-55", exist("cac:InvoiceDocumentReference/cbc:ID"),
				"Each preceding invoice reference (BG-3) shall contain the preceding invoice reference (BT-25).", "Cada referência a fatura anterior (BG-3) deve conter a referência da fatura (BT-25).")),
		rule("cac:ProjectReference",
			fatal("BR-CIUS-PT-33", exist("cbc:ID"),
				"The project reference (BT-11) shall be filled.", "A referência do projeto (BT-11) deve estar preenchida.")),
		rule("cac:ReceiptDocumentReference",
			fatal("BR-CIUS-PT-27", exist("cbc:ID"),
				"The receiving advice reference (BT-15) shall be filled.", "A referência do aviso de receção (BT-15) deve estar preenchida.")),
		rule("cac:AccountingSupplierParty",
			fatal("BR-CO-26", any_("cac:Party/cac:PartyTaxScheme/cbc:CompanyID", "cac:Party/cac:PartyIdentification/cbc:ID", "cac:Party/cac:PartyLegalEntity/cbc:CompanyID"),
				"The seller needs an identifier (BT-29), a legal registration identifier (BT-30) or a VAT identifier (BT-31).",
				"O vendedor exige um identificador (BT-29), o identificador de registo legal (BT-30) ou o NIF (BT-31)."),
			fatalR("BR-CIUS-PT-34", filled("cac:Party/cac:PartyIdentification", "cbc:ID"),
				"The seller identifier (BT-29) shall be filled.", "O identificador do vendedor (BT-29) deve estar preenchido."),
			fatalR("BR-CIUS-PT-35", filled("cac:Party/cac:PartyName", "cbc:Name"),
				"The seller trading name (BT-28) shall be filled.", "O nome comercial do vendedor (BT-28) deve estar preenchido."),
			fatalR("BR-CIUS-PT-36", contactEmpty("cac:Party/cac:Contact"),
				"A seller contact needs a contact point (BT-41), telephone (BT-42) or e-mail (BT-43).",
				"O contacto do vendedor exige ponto de contacto (BT-41), telefone (BT-42) ou e-mail (BT-43).")),
		rule("cac:AccountingSupplierParty/cac:Party/cbc:EndpointID",
			fatal("BR-62", hasAttr("schemeID"),
				"The seller electronic address (BT-34) shall have a scheme identifier.", "O endereço eletrónico do vendedor (BT-34) deve ter o identificador do esquema.")),
		rule("cac:AccountingSupplierParty/cac:Party/cac:PostalAddress",
			fatal("BR-CIUS-PT-05", exist("cbc:StreetName"),
				"The seller address shall contain address line 1 (BT-35).", "A morada do vendedor deve conter a linha 1 (BT-35)."),
			fatal("BR-CIUS-PT-06", exist("cbc:CityName"),
				"The seller address shall contain a city (BT-37).", "A morada do vendedor deve conter a localidade (BT-37)."),
			fatal("BR-CIUS-PT-07", exist("cbc:PostalZone"),
				"The seller address shall contain a post code (BT-38).", "A morada do vendedor deve conter o código postal (BT-38)."),
			fatal("BR-09", exist("cac:Country/cbc:IdentificationCode"),
				"The seller postal address (BG-5) shall contain a country code (BT-40).", "A morada do vendedor (BG-5) deve conter o código do país (BT-40)."),
			fatalR("BR-CIUS-PT-37", filled("cac:AddressLine", "cbc:Line"),
				"The seller address line 3 (BT-162) shall be filled.", "A linha 3 da morada do vendedor (BT-162) deve estar preenchida.")),
		rule("cac:TaxRepresentativeParty",
			fatal("BR-18", exist("cac:PartyName/cbc:Name"),
				"The seller tax representative name (BT-62) shall be provided.", "O nome do representante fiscal do vendedor (BT-62) deve ser indicado."),
			fatal("BR-19", exist("cac:PostalAddress"),
				"The seller tax representative postal address (BG-12) shall be provided.", "A morada do representante fiscal (BG-12) deve ser indicada."),
			fatal("BR-56", exist("cac:PartyTaxScheme[vat]/cbc:CompanyID"),
				"The seller tax representative VAT identifier (BT-63) shall be provided.", "O NIF do representante fiscal (BT-63) deve ser indicado.")),
		rule("cac:TaxRepresentativeParty/cac:PostalAddress",
			fatal("BR-20", exist("cac:Country/cbc:IdentificationCode"),
				"The tax representative postal address (BG-12) shall contain a country code (BT-69).", "A morada do representante fiscal (BG-12) deve conter o código do país (BT-69)."),
			fatalR("BR-CIUS-PT-44", filled("cac:AddressLine", "cbc:Line"),
				"The tax representative address line 3 (BT-164) shall be filled.", "A linha 3 da morada do representante fiscal (BT-164) deve estar preenchida.")),
		rule("cac:TaxTotal/cac:TaxSubtotal",
			fatal("BR-45", exist("cbc:TaxableAmount"),
				"Each VAT breakdown (BG-23) shall have a taxable amount (BT-116).", "Cada quadro de IVA (BG-23) deve ter a base tributável (BT-116)."),
			fatal("BR-46", exist("cbc:TaxAmount"),
				"Each VAT breakdown (BG-23) shall have a VAT amount (BT-117).", "Cada quadro de IVA (BG-23) deve ter o valor do IVA (BT-117)."),
			fatal("BR-47", exist("cac:TaxCategory/cbc:ID"),
				"Each VAT breakdown (BG-23) shall have a VAT category code (BT-118).", "Cada quadro de IVA (BG-23) deve ter o código da categoria de IVA (BT-118)."),
			fatal("BR-48", exist("cac:TaxCategory/cbc:Percent"),
				"Each VAT breakdown (BG-23) shall have a VAT rate (BT-119).", "Cada quadro de IVA (BG-23) deve ter a taxa de IVA (BT-119)."),
			fatal("BR-CIUS-PT-08", exist("cac:TaxCategory/cac:TaxScheme/cbc:ID"),
				"Each VAT breakdown (BG-23) shall have a tax scheme.", "Cada quadro de IVA (BG-23) deve ter o regime fiscal.")),
		rule("cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory[aa]",
			fatal("BR-AA-10", not(any_("cbc:TaxExemptionReason", "cbc:TaxExemptionReasonCode")),
				"A reduced-rate VAT breakdown shall not have an exemption reason (BT-120, BT-121).", "Um quadro de IVA à taxa reduzida não pode ter motivo de isenção (BT-120, BT-121).")),
		rule("cac:InvoiceLine/cac:Item[itemAA]/cac:AdditionalItemProperty/cbc:Name | cac:CreditNoteLine/cac:Item[itemAA]/cac:AdditionalItemProperty/cbc:Name",
			fatal("BR-CIUS-PT-13", noExemptionAttribute,
				"A reduced-rate line shall not state an exemption reason.", "Uma linha à taxa reduzida não pode indicar motivo de isenção.")),
		rule("cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory[s]",
			fatal("BR-S-10", not(any_("cbc:TaxExemptionReason", "cbc:TaxExemptionReasonCode")),
				"A standard-rate VAT breakdown shall not have an exemption reason (BT-120, BT-121).", "Um quadro de IVA à taxa normal não pode ter motivo de isenção (BT-120, BT-121).")),
		rule("cac:InvoiceLine/cac:Item[itemS]/cac:AdditionalItemProperty/cbc:Name | cac:CreditNoteLine/cac:Item[itemSCN]/cac:AdditionalItemProperty/cbc:Name",
			fatal("BR-CIUS-PT-15", noExemptionAttribute,
				"A standard-rate line shall not state an exemption reason.", "Uma linha à taxa normal não pode indicar motivo de isenção.")),
		rule("cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory[e]",
			fatal("BR-E-10", any_("cbc:TaxExemptionReason", "cbc:TaxExemptionReasonCode"),
				"An exempt VAT breakdown shall have an exemption reason code (BT-121) or text (BT-120).", "Um quadro de IVA isento deve ter o código (BT-121) ou o texto (BT-120) do motivo de isenção.")),
		rule("cac:InvoiceLine/cac:Item[itemE]/cac:AdditionalItemProperty/cbc:Name | cac:CreditNoteLine/cac:Item[itemE]/cac:AdditionalItemProperty/cbc:Name",
			fatal("BR-CIUS-PT-17", exemptLineHasReason,
				"An exempt line shall state its exemption reason code or text in the item attributes.", "Uma linha isenta deve indicar o código ou o texto do motivo de isenção nos atributos do artigo.")),
	)
}

var (
	pAttachment             = P("cac:Attachment")
	pAttachmentObject       = P("cac:Attachment/cbc:EmbeddedDocumentBinaryObject")
	pAttachmentURI          = P("cac:Attachment/cac:ExternalReference/cbc:URI")
	pInvoicedQuantity       = P("cbc:InvoicedQuantity")
	pCreditedQuantity       = P("cbc:CreditedQuantity")
	pAdditionalItemProperty = P("cac:AdditionalItemProperty")
	pStartDate              = P("cbc:StartDate")
	pEndDate                = P("cbc:EndDate")
	pPaymentMeansCode       = P("cbc:PaymentMeansCode")
	pPayeeAccount           = P("cac:PayeeFinancialAccount")
	pPayeeAccountID         = P("cac:PayeeFinancialAccount/cbc:ID")
	pPayeeAccountName       = P("cac:PayeeFinancialAccount/cbc:Name")
	pPayeeBranchID          = P("cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID")
	pMandate                = P("cac:PaymentMandate")
	pMandateID              = P("cac:PaymentMandate/cbc:ID")
	pPayerAccountID         = P("cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID")
	pCard                   = P("cac:CardAccount")
	pCardPAN                = P("cac:CardAccount/cbc:PrimaryAccountNumberID")
	pCardNetwork            = P("cac:CardAccount/cbc:NetworkID")
	pDocAllowanceCharges    = P("/*/cac:AllowanceCharge")
	pChargeIndicator        = P("cbc:ChargeIndicator")
	pItem                   = P("cac:Item")
	pPropertyName           = P("cac:AdditionalItemProperty/cbc:Name")
)

func always(*ctx, node) bool { return true }

// hasAttr is exists(@name).
func hasAttr(name string) test {
	a := rules.MustName(name)
	return func(c *ctx, n node) bool { _, ok := c.Attr(n, a); return ok }
}

// contactEmpty: a contact group without name, telephone or e-mail.
func contactEmpty(group string) test {
	g, name, tel, mail := P(group), P(group+"/cbc:Name"), P(group+"/cbc:Telephone"), P(group+"/cbc:ElectronicMail")
	return func(c *ctx, n node) bool {
		return c.Exists(n, g) && !c.Exists(n, name) && !c.Exists(n, tel) && !c.Exists(n, mail)
	}
}

var unitCode = rules.MustName("unitCode")

func quantityWithoutUnit(c *ctx, n node, p *rules.Path) bool {
	return c.Exists(n, p) && !c.Any(n, p, func(q node) bool { _, ok := c.Attr(q, unitCode); return ok })
}

// periodOrdered: end date on or after start date when both are there. The dates are untyped, so XPath
// compares them as strings.
func periodOrdered(c *ctx, n node) bool {
	if !c.Exists(n, pStartDate) || !c.Exists(n, pEndDate) {
		return true
	}
	return c.Any(n, pEndDate, func(e node) bool {
		return c.Any(n, pStartDate, func(s node) bool { return c.Str(e) >= c.Str(s) })
	})
}

// docLevelWithoutTotal: a document-level allowance (or charge) exists and the matching total does not.
func docLevelWithoutTotal(indicator, total string) test {
	t := P(total)
	return func(c *ctx, n node) bool {
		return c.Any(n, pDocAllowanceCharges, func(x node) bool { return c.Eq(x, pChargeIndicator, indicator) }) && !c.Exists(n, t)
	}
}

// noExemptionAttribute: an item attribute name is not an exemption-reason tag.
func noExemptionAttribute(c *ctx, n node) bool {
	v := rules.Norm(c.Str(n))
	return !strings.HasPrefix(v, "#TAXEXEMPTIONREASONCODE@CLASSIFIEDTAXCATEGORY#") && !strings.HasPrefix(v, "#TAXEXEMPTIONREASON@CLASSIFIEDTAXCATEGORY#")
}

var (
	reExemptionCode = rules.Re(`^(#(TAXEXEMPTIONREASONCODE@CLASSIFIEDTAXCATEGORY)#)$`)
	reExemptionText = rules.Re(`^(#(TAXEXEMPTIONREASON@CLASSIFIEDTAXCATEGORY)#)$`)
)

// exemptLineHasReason: the line of this attribute (an exempt line) has an attribute named as the
// exemption reason code or text tag.
func exemptLineHasReason(c *ctx, n node) bool {
	t := c.Tree()
	line := t.Parent(t.Parent(t.Parent(n)))
	exempt := preds["itemE"]
	return c.Any(line, pItem, func(item node) bool {
		return exempt(c, item) && c.Any(item, pPropertyName, func(x node) bool {
			s := c.Str(x)
			return reExemptionCode.MatchString(s) || reExemptionText.MatchString(s)
		})
	})
}
