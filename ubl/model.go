package ubl

import "github.com/shopspring/decimal"

// The typed model of a document: the EN16931 business terms (BT-n, groups BG-n) an application needs,
// read from an Invoice, a CreditNote or an Order. Money, quantities and rates are exact decimals; dates
// are kept as written (YYYY-MM-DD), which the schema and the rules have already checked.

// Kind is the type of document.
type Kind string

// Kinds.
const (
	KindInvoice    Kind = "Invoice"
	KindCreditNote Kind = "CreditNote"
	KindOrder      Kind = "Order"
)

// Document is an invoice, a credit note or an order.
type Document struct {
	Kind            Kind
	CustomizationID string   // BT-24
	ProfileID       string   // BT-23
	Number          string   // BT-1
	IssueDate       string   // BT-2
	IssueTime       string   // orders
	DueDate         string   // BT-9 (a credit note's is in its payment means)
	TypeCode        string   // BT-3 (InvoiceTypeCode, CreditNoteTypeCode or OrderTypeCode)
	Notes           []string // BT-22
	TaxPointDate    string   // BT-7
	Currency        string   // BT-5
	TaxCurrency     string   // BT-6
	AccountingCost  string   // BT-19
	BuyerReference  string   // BT-10
	Period          *Period  // BG-14

	References  References
	Attachments []Attachment // BG-24

	Seller            Party  // BG-4 (an order's seller supplier party)
	Buyer             Party  // BG-7 (an order's buyer customer party)
	Payee             *Party // BG-10
	TaxRepresentative *Party // BG-11
	Delivery          *Delivery

	PaymentMeans []PaymentMeans // BG-16
	PaymentTerms string         // BT-20

	AllowancesCharges []AllowanceCharge // BG-20, BG-21
	TaxTotal          *decimal.Decimal  // BT-110
	TaxTotalInTaxCcy  *decimal.Decimal  // BT-111
	VATBreakdown      []VATBreakdown    // BG-23
	Withholdings      []Withholding     // CIUS-PT withholding tax totals
	Totals            Totals            // BG-22 (an order's anticipated totals)

	Lines []Line // BG-25
}

// Period is a start and an end date.
type Period struct {
	Start, End      string
	DescriptionCode string // BT-8 on the document period
}

// References are the document's references to other documents.
type References struct {
	Order            string // BT-13
	SalesOrder       string // BT-14
	Contract         string // BT-12
	Project          string // BT-11
	Despatch         string // BT-16
	Receipt          string // BT-15
	Tender           string // BT-17 (originator document)
	InvoicedObject   *Identifier
	PrecedingInvoice []PrecedingInvoice // BG-3
	Quotation        string             // orders
}

// PrecedingInvoice is a reference to an earlier invoice (BG-3).
type PrecedingInvoice struct {
	Number    string // BT-25
	IssueDate string // BT-26
}

// Identifier is a value with an optional scheme.
type Identifier struct {
	Value  string
	Scheme string
}

// Attachment is a supporting document (BG-24): a reference, a description, and either embedded bytes
// (base64 in the XML) or an external URI.
type Attachment struct {
	ID          string // BT-122
	IDScheme    string // the reference's scheme (CIUS-PT: ANG for an ATCUD)
	TypeCode    string // 130 for an invoiced object identifier, 916 for a supporting document
	Description string // BT-123 (CIUS-PT: INVOICE_REPRESENTATION, ATTACHMENT, QR_CODE, …)
	MIMEType    string // BT-125 mimeCode
	Filename    string // BT-125 filename
	Content     string // BT-125, base64 as written
	URI         string // BT-124
}

// Party is a seller, buyer, payee, tax representative or deliver-to party.
type Party struct {
	EndpointID      *Identifier  // BT-34, BT-49
	Identifiers     []Identifier // BT-29, BT-46, BT-60
	Name            string       // BT-28, BT-45, BT-59, BT-62 (trading name)
	LegalName       string       // BT-27, BT-44 (registration name)
	LegalID         *Identifier  // BT-30, BT-47, BT-61
	LegalForm       string       // BT-33
	VATID           string       // BT-31, BT-48, BT-63
	TaxRegistration string       // BT-32 (a party tax scheme other than VAT)
	Address         Address      // BG-5, BG-8, BG-12
	Contact         Contact      // BG-6, BG-9
}

// Address is a postal address.
type Address struct {
	Street           string // BT-35
	AdditionalStreet string // BT-36
	Line             string // BT-162
	BuildingNumber   string
	BuildingName     string
	City             string // BT-37
	PostalZone       string // BT-38
	Subdivision      string // BT-39
	Country          string // BT-40 (ISO 3166-1 alpha-2)
}

// Contact is a person or department to contact.
type Contact struct {
	Name      string // BT-41, BT-56
	Telephone string // BT-42, BT-57
	Telefax   string
	Email     string // BT-43, BT-58
}

// Delivery is where and when goods or services are delivered (BG-13).
type Delivery struct {
	Date                         string      // BT-72
	LocationID                   *Identifier // BT-71
	Address                      Address     // BG-15
	PartyName                    string      // BT-70
	RequestedStart, RequestedEnd string      // orders: the requested delivery period
}

// PaymentMeans is one way to pay (BG-16).
type PaymentMeans struct {
	Code      string // BT-81
	Name      string // BT-82 (the code's name attribute)
	PaymentID string // BT-83
	DueDate   string // a credit note's due date
	Accounts  []Account
	Card      *Card    // BG-18
	Mandate   *Mandate // BG-19
}

// Account is a payee financial account (BG-17).
type Account struct {
	ID     string // BT-84 (an IBAN for credit transfers)
	Name   string // BT-85
	Branch string // BT-86 (the provider's identifier, a BIC)
}

// Card is payment card information (BG-18).
type Card struct {
	PrimaryAccountNumber string // BT-87
	Network              string // the card network (the schema requires one; "NA" when unknown)
	Holder               string // BT-88
}

// Mandate is a direct debit mandate (BG-19).
type Mandate struct {
	ID             string // BT-89
	DebitedAccount string // BT-91
}

// AllowanceCharge is an allowance (discount) or a charge, of the document (BG-20, BG-21) or of a line
// (BG-27, BG-28).
type AllowanceCharge struct {
	Charge     bool
	ReasonCode string           // BT-98, BT-105
	Reason     string           // BT-97, BT-104
	Percentage *decimal.Decimal // BT-94, BT-101
	Amount     decimal.Decimal  // BT-92, BT-99
	Base       *decimal.Decimal // BT-93, BT-100
	VAT        *TaxCategory     // BT-95/96, BT-102/103 (document level only)
}

// TaxCategory is a VAT category with its rate and exemption reason.
type TaxCategory struct {
	ID                  string           // BT-95, BT-102, BT-118, BT-151 (S, AA, E, …)
	Percent             *decimal.Decimal // BT-96, BT-103, BT-119, BT-152
	ExemptionReasonCode string           // BT-121
	ExemptionReason     string           // BT-120
	Scheme              string           // VAT
}

// VATBreakdown is the VAT of one category and rate (BG-23).
type VATBreakdown struct {
	Taxable  decimal.Decimal // BT-116
	Tax      decimal.Decimal // BT-117
	Category TaxCategory
}

// Withholding is a withholding tax total with its breakdown.
type Withholding struct {
	Amount    decimal.Decimal
	Subtotals []VATBreakdown
}

// Totals are the document totals (BG-22).
type Totals struct {
	LineNet        decimal.Decimal  // BT-106
	TaxExclusive   *decimal.Decimal // BT-109
	TaxInclusive   *decimal.Decimal // BT-112
	AllowanceTotal *decimal.Decimal // BT-107
	ChargeTotal    *decimal.Decimal // BT-108
	Prepaid        *decimal.Decimal // BT-113
	Rounding       *decimal.Decimal // BT-114
	Payable        decimal.Decimal  // BT-115
}

// Line is an invoice, credit note or order line (BG-25).
type Line struct {
	ID                string           // BT-126
	Note              string           // BT-127
	Quantity          decimal.Decimal  // BT-129
	Unit              string           // BT-130
	NetAmount         *decimal.Decimal // BT-131 (optional on order lines)
	AccountingCost    string           // BT-133
	Period            *Period          // BG-26
	OrderLineRef      string           // BT-132
	DocumentRef       string           // BT-128
	AllowancesCharges []AllowanceCharge
	Item              Item
	Price             Price
}

// Item is what a line sells (BG-31).
type Item struct {
	Name            string           // BT-153
	Description     string           // BT-154
	SellerID        string           // BT-155
	BuyerID         string           // BT-156
	StandardID      *Identifier      // BT-157
	Classifications []Classification // BT-158
	OriginCountry   string           // BT-159
	VAT             TaxCategory      // BG-30
	Properties      []Property       // BG-32
}

// Classification is an item classification code with its scheme (BT-158).
type Classification struct {
	Code, ListID, ListVersionID string
}

// Property is an item attribute (BG-32).
type Property struct {
	Name, Value string // BT-160, BT-161
}

// Price is a line's price details (BG-29).
type Price struct {
	Net          *decimal.Decimal // BT-146
	BaseQuantity *decimal.Decimal // BT-149
	BaseUnit     string           // BT-150
	Discount     *decimal.Decimal // BT-147 (the price allowance)
	Gross        *decimal.Decimal // BT-148
}

// ATCUD is the document's unique code (Portaria 195/2020): the id of its attachment of scheme ANG, the
// one that carries the AT QR code; empty when there is none or it is "NA".
func (d *Document) ATCUD() string {
	for _, a := range d.Attachments {
		if a.IDScheme == "ANG" && a.ID != "NA" {
			return a.ID
		}
	}
	return ""
}
