package pdf

import (
	"strings"

	"einvoice/ubl"
)

// labels are the texts of the layout in one language.
type labels struct {
	lang                                                                 string
	taxID, customer, deliverTo, payee, issueDate, dueDate, currency      string
	commitment, order, contract, project, buyerRef, invoiceRef           string
	description, quantity, unit, price, discount, vat, amount, reference string
	vatRate, taxable, vatAmount, exemption                               string
	lineTotal, allowances, charges, withoutVAT, vatTotal, withVAT        string
	prepaid, rounding, withholding, payable                              string
	payment, terms, atm, entity, card, mandate, notes, page              string
	titles                                                               map[string]string
	means                                                                map[string]string
}

var portuguese = labels{
	lang: "pt", taxID: "NIF", customer: "Cliente", deliverTo: "Local de entrega", payee: "Beneficiário", issueDate: "Data de emissão",
	dueDate: "Data de vencimento", currency: "Moeda", commitment: "Compromisso", order: "Encomenda", contract: "Contrato",
	project: "Projeto", buyerRef: "Referência do cliente", invoiceRef: "Fatura corrigida",
	description: "Descrição", quantity: "Qtd.", unit: "Un.", price: "Preço un.", discount: "Desc./Enc.", vat: "IVA", amount: "Total",
	reference: "Ref.", vatRate: "Taxa de IVA", taxable: "Base tributável", vatAmount: "IVA", exemption: "Motivo de isenção",
	lineTotal: "Total das linhas", allowances: "Descontos", charges: "Encargos", withoutVAT: "Total sem IVA", vatTotal: "IVA",
	withVAT: "Total com IVA", prepaid: "Pago", rounding: "Arredondamento", withholding: "Retenção na fonte", payable: "Total a pagar",
	payment: "Pagamento", terms: "Condições", atm: "Multibanco", entity: "Entidade", card: "Cartão", mandate: "Débito direto",
	notes: "Observações", page: "Página",
	titles: map[string]string{"FT": "Fatura", "FS": "Fatura simplificada", "FR": "Fatura-recibo", "ND": "Nota de débito",
		"NC": "Nota de crédito", "380": "Fatura", "381": "Nota de crédito", "383": "Nota de débito", "386": "Fatura de adiantamento",
		"389": "Autofaturação", "order": "Encomenda"},
	means: map[string]string{"30": "Transferência bancária", "58": "Transferência SEPA", "59": "Débito direto SEPA", "42": "Transferência bancária",
		"10": "Numerário", "20": "Cheque", "48": "Cartão", "49": "Débito direto", "TB": "Transferência bancária", "NU": "Numerário",
		"CH": "Cheque", "CC": "Cartão de crédito", "CD": "Cartão de débito", "MB": "Multibanco", "OU": "Outro"},
}

var english = labels{
	lang: "en", taxID: "VAT ID", customer: "Customer", deliverTo: "Deliver to", payee: "Payee", issueDate: "Issue date",
	dueDate: "Due date", currency: "Currency", commitment: "Commitment", order: "Order", contract: "Contract", project: "Project",
	buyerRef: "Buyer reference", invoiceRef: "Corrected invoice",
	description: "Description", quantity: "Qty", unit: "Unit", price: "Unit price", discount: "Disc./Chg.", vat: "VAT", amount: "Amount",
	reference: "Ref.", vatRate: "VAT rate", taxable: "Taxable amount", vatAmount: "VAT", exemption: "Exemption reason",
	lineTotal: "Lines total", allowances: "Allowances", charges: "Charges", withoutVAT: "Total without VAT", vatTotal: "VAT",
	withVAT: "Total with VAT", prepaid: "Paid", rounding: "Rounding", withholding: "Withholding tax", payable: "Amount due",
	payment: "Payment", terms: "Terms", atm: "ATM reference", entity: "Entity", card: "Card", mandate: "Direct debit",
	notes: "Notes", page: "Page",
	titles: map[string]string{"FT": "Invoice", "FS": "Simplified invoice", "FR": "Invoice-receipt", "ND": "Debit note",
		"NC": "Credit note", "380": "Invoice", "381": "Credit note", "383": "Debit note", "386": "Prepayment invoice",
		"389": "Self-billed invoice", "order": "Order"},
	means: map[string]string{"30": "Credit transfer", "58": "SEPA credit transfer", "59": "SEPA direct debit", "42": "Bank transfer",
		"10": "Cash", "20": "Cheque", "48": "Card", "49": "Direct debit", "TB": "Bank transfer", "NU": "Cash", "CH": "Cheque",
		"CC": "Credit card", "CD": "Debit card", "MB": "ATM reference", "OU": "Other"},
}

func labelsFor(lang string) labels {
	if lang == "en" {
		return english
	}
	return portuguese
}

func (l labels) title(d *ubl.Document) string {
	if d.Kind == ubl.KindOrder {
		return l.titles["order"]
	}
	if t, ok := l.titles[strings.ToUpper(d.TypeCode)]; ok {
		return t
	}
	if d.Kind == ubl.KindCreditNote {
		return l.titles["NC"]
	}
	return l.titles["FT"]
}

func (l labels) meansName(code string) string {
	if n, ok := l.means[strings.ToUpper(code)]; ok {
		return n
	}
	return code
}

// number writes a plain decimal the way the labels' language writes numbers (see Number).
func (l labels) number(s string) string { return Number(l.lang, s) }

// Number writes a plain decimal ("-1234.5") the way a language writes numbers: Portuguese with a space
// between thousands and a decimal comma, English with commas and a decimal point.
func Number(lang, s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, hasFrac := strings.Cut(s, ".")
	sep, point := " ", ","
	if lang == "en" {
		sep, point = ",", "."
	}
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(c)
	}
	out := b.String()
	if hasFrac {
		out += point + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}
