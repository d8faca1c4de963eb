package ubl

import "github.com/shopspring/decimal"

// The typed model of a document: the EN16931 business terms (BT-n, groups BG-n) an application needs,
// read from an Invoice, a CreditNote or an Order. Money, quantities and rates are exact decimals; dates
// are kept as written (YYYY-MM-DD), which the schema and the rules have already checked.
//
// The json tags are the stored form of a document's data: they name each field as it was first stored
// and never follow a rename of the Go field (a golden test of the server pins them), so that what was
// stored keeps reading. A new field needs a tag of its own.

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
	Kind            Kind     `json:"Kind"`
	CustomizationID string   `json:"CustomizationID"` // BT-24
	ProfileID       string   `json:"ProfileID"`       // BT-23
	Number          string   `json:"Number"`          // BT-1
	IssueDate       string   `json:"IssueDate"`       // BT-2
	IssueTime       string   `json:"IssueTime"`       // orders
	DueDate         string   `json:"DueDate"`         // BT-9 (a credit note's is in its payment means)
	TypeCode        string   `json:"TypeCode"`        // BT-3 (InvoiceTypeCode, CreditNoteTypeCode or OrderTypeCode)
	Notes           []string `json:"Notes"`           // BT-22
	TaxPointDate    string   `json:"TaxPointDate"`    // BT-7
	Currency        string   `json:"Currency"`        // BT-5
	TaxCurrency     string   `json:"TaxCurrency"`     // BT-6
	AccountingCost  string   `json:"AccountingCost"`  // BT-19
	BuyerReference  string   `json:"BuyerReference"`  // BT-10
	Period          *Period  `json:"Period"`          // BG-14

	References  References   `json:"References"`
	Attachments []Attachment `json:"Attachments"` // BG-24

	Seller            Party     `json:"Seller"`            // BG-4 (an order's seller supplier party)
	Buyer             Party     `json:"Buyer"`             // BG-7 (an order's buyer customer party)
	Payee             *Party    `json:"Payee"`             // BG-10
	TaxRepresentative *Party    `json:"TaxRepresentative"` // BG-11
	Delivery          *Delivery `json:"Delivery"`

	PaymentMeans []PaymentMeans `json:"PaymentMeans"` // BG-16
	PaymentTerms string         `json:"PaymentTerms"` // BT-20

	AllowancesCharges []AllowanceCharge `json:"AllowancesCharges"` // BG-20, BG-21
	TaxTotal          *decimal.Decimal  `json:"TaxTotal"`          // BT-110
	TaxTotalInTaxCcy  *decimal.Decimal  `json:"TaxTotalInTaxCcy"`  // BT-111
	VATBreakdown      []VATBreakdown    `json:"VATBreakdown"`      // BG-23
	Withholdings      []Withholding     `json:"Withholdings"`      // CIUS-PT withholding tax totals
	Totals            Totals            `json:"Totals"`            // BG-22 (an order's anticipated totals)

	Lines []Line `json:"Lines"` // BG-25
}

// Period is a start and an end date.
type Period struct {
	Start           string `json:"Start"`
	End             string `json:"End"`
	DescriptionCode string `json:"DescriptionCode"` // BT-8 on the document period
}

// References are the document's references to other documents.
type References struct {
	Order            string             `json:"Order"`      // BT-13
	SalesOrder       string             `json:"SalesOrder"` // BT-14
	Contract         string             `json:"Contract"`   // BT-12
	Project          string             `json:"Project"`    // BT-11
	Despatch         string             `json:"Despatch"`   // BT-16
	Receipt          string             `json:"Receipt"`    // BT-15
	Tender           string             `json:"Tender"`     // BT-17 (originator document)
	InvoicedObject   *Identifier        `json:"InvoicedObject"`
	PrecedingInvoice []PrecedingInvoice `json:"PrecedingInvoice"` // BG-3
	Quotation        string             `json:"Quotation"`        // orders
}

// PrecedingInvoice is a reference to an earlier invoice (BG-3).
type PrecedingInvoice struct {
	Number    string `json:"Number"`    // BT-25
	IssueDate string `json:"IssueDate"` // BT-26
}

// Identifier is a value with an optional scheme.
type Identifier struct {
	Value  string `json:"Value"`
	Scheme string `json:"Scheme"`
}

// Attachment is a supporting document (BG-24): a reference, a description, and either embedded bytes
// (base64 in the XML) or an external URI.
type Attachment struct {
	ID          string `json:"ID"`          // BT-122
	IDScheme    string `json:"IDScheme"`    // the reference's scheme (CIUS-PT: ANG for an ATCUD)
	TypeCode    string `json:"TypeCode"`    // 130 for an invoiced object identifier, 916 for a supporting document
	Description string `json:"Description"` // BT-123 (CIUS-PT: INVOICE_REPRESENTATION, ATTACHMENT, QR_CODE, …)
	MIMEType    string `json:"MIMEType"`    // BT-125 mimeCode
	Filename    string `json:"Filename"`    // BT-125 filename
	Content     string `json:"Content"`     // BT-125, base64 as written
	URI         string `json:"URI"`         // BT-124
}

// Party is a seller, buyer, payee, tax representative or deliver-to party.
type Party struct {
	EndpointID      *Identifier  `json:"EndpointID"`      // BT-34, BT-49
	Identifiers     []Identifier `json:"Identifiers"`     // BT-29, BT-46, BT-60
	Name            string       `json:"Name"`            // BT-28, BT-45, BT-59, BT-62 (trading name)
	LegalName       string       `json:"LegalName"`       // BT-27, BT-44 (registration name)
	LegalID         *Identifier  `json:"LegalID"`         // BT-30, BT-47, BT-61
	LegalForm       string       `json:"LegalForm"`       // BT-33
	VATID           string       `json:"VATID"`           // BT-31, BT-48, BT-63
	TaxRegistration string       `json:"TaxRegistration"` // BT-32 (a party tax scheme other than VAT)
	Address         Address      `json:"Address"`         // BG-5, BG-8, BG-12
	Contact         Contact      `json:"Contact"`         // BG-6, BG-9
}

// Address is a postal address.
type Address struct {
	Street           string `json:"Street"`           // BT-35
	AdditionalStreet string `json:"AdditionalStreet"` // BT-36
	Line             string `json:"Line"`             // BT-162
	BuildingNumber   string `json:"BuildingNumber"`
	BuildingName     string `json:"BuildingName"`
	City             string `json:"City"`        // BT-37
	PostalZone       string `json:"PostalZone"`  // BT-38
	Subdivision      string `json:"Subdivision"` // BT-39
	Country          string `json:"Country"`     // BT-40 (ISO 3166-1 alpha-2)
}

// Contact is a person or department to contact.
type Contact struct {
	Name      string `json:"Name"`      // BT-41, BT-56
	Telephone string `json:"Telephone"` // BT-42, BT-57
	Telefax   string `json:"Telefax"`
	Email     string `json:"Email"` // BT-43, BT-58
}

// Delivery is where and when goods or services are delivered (BG-13).
type Delivery struct {
	Date           string      `json:"Date"`           // BT-72
	LocationID     *Identifier `json:"LocationID"`     // BT-71
	Address        Address     `json:"Address"`        // BG-15
	PartyName      string      `json:"PartyName"`      // BT-70
	RequestedStart string      `json:"RequestedStart"` // orders: the requested delivery period
	RequestedEnd   string      `json:"RequestedEnd"`
}

// PaymentMeans is one way to pay (BG-16).
type PaymentMeans struct {
	Code      string    `json:"Code"`      // BT-81
	Name      string    `json:"Name"`      // BT-82 (the code's name attribute)
	PaymentID string    `json:"PaymentID"` // BT-83
	DueDate   string    `json:"DueDate"`   // a credit note's due date
	Accounts  []Account `json:"Accounts"`
	Card      *Card     `json:"Card"`    // BG-18
	Mandate   *Mandate  `json:"Mandate"` // BG-19
}

// Account is a payee financial account (BG-17).
type Account struct {
	ID     string `json:"ID"`     // BT-84 (an IBAN for credit transfers)
	Name   string `json:"Name"`   // BT-85
	Branch string `json:"Branch"` // BT-86 (the provider's identifier, a BIC)
}

// Card is payment card information (BG-18).
type Card struct {
	PrimaryAccountNumber string `json:"PrimaryAccountNumber"` // BT-87
	Network              string `json:"Network"`              // the card network (the schema requires one; "NA" when unknown)
	Holder               string `json:"Holder"`               // BT-88
}

// Mandate is a direct debit mandate (BG-19).
type Mandate struct {
	ID             string `json:"ID"`             // BT-89
	DebitedAccount string `json:"DebitedAccount"` // BT-91
}

// AllowanceCharge is an allowance (discount) or a charge, of the document (BG-20, BG-21) or of a line
// (BG-27, BG-28).
type AllowanceCharge struct {
	Charge     bool             `json:"Charge"`
	ReasonCode string           `json:"ReasonCode"` // BT-98, BT-105
	Reason     string           `json:"Reason"`     // BT-97, BT-104
	Percentage *decimal.Decimal `json:"Percentage"` // BT-94, BT-101
	Amount     decimal.Decimal  `json:"Amount"`     // BT-92, BT-99
	Base       *decimal.Decimal `json:"Base"`       // BT-93, BT-100
	VAT        *TaxCategory     `json:"VAT"`        // BT-95/96, BT-102/103 (document level only)
}

// TaxCategory is a VAT category with its rate and exemption reason.
type TaxCategory struct {
	ID                  string           `json:"ID"`                  // BT-95, BT-102, BT-118, BT-151 (S, AA, E, …)
	Percent             *decimal.Decimal `json:"Percent"`             // BT-96, BT-103, BT-119, BT-152
	ExemptionReasonCode string           `json:"ExemptionReasonCode"` // BT-121
	ExemptionReason     string           `json:"ExemptionReason"`     // BT-120
	Scheme              string           `json:"Scheme"`              // VAT
}

// VATBreakdown is the VAT of one category and rate (BG-23).
type VATBreakdown struct {
	Taxable  decimal.Decimal `json:"Taxable"` // BT-116
	Tax      decimal.Decimal `json:"Tax"`     // BT-117
	Category TaxCategory     `json:"Category"`
}

// Withholding is a withholding tax total with its breakdown.
type Withholding struct {
	Amount    decimal.Decimal `json:"Amount"`
	Subtotals []VATBreakdown  `json:"Subtotals"`
}

// Totals are the document totals (BG-22).
type Totals struct {
	LineNet        decimal.Decimal  `json:"LineNet"`        // BT-106
	TaxExclusive   *decimal.Decimal `json:"TaxExclusive"`   // BT-109
	TaxInclusive   *decimal.Decimal `json:"TaxInclusive"`   // BT-112
	AllowanceTotal *decimal.Decimal `json:"AllowanceTotal"` // BT-107
	ChargeTotal    *decimal.Decimal `json:"ChargeTotal"`    // BT-108
	Prepaid        *decimal.Decimal `json:"Prepaid"`        // BT-113
	Rounding       *decimal.Decimal `json:"Rounding"`       // BT-114
	Payable        decimal.Decimal  `json:"Payable"`        // BT-115
}

// Line is an invoice, credit note or order line (BG-25).
type Line struct {
	ID                string            `json:"ID"`             // BT-126
	Note              string            `json:"Note"`           // BT-127
	Quantity          decimal.Decimal   `json:"Quantity"`       // BT-129
	Unit              string            `json:"Unit"`           // BT-130
	NetAmount         *decimal.Decimal  `json:"NetAmount"`      // BT-131 (optional on order lines)
	AccountingCost    string            `json:"AccountingCost"` // BT-133
	Period            *Period           `json:"Period"`         // BG-26
	OrderLineRef      string            `json:"OrderLineRef"`   // BT-132
	DocumentRef       string            `json:"DocumentRef"`    // BT-128
	AllowancesCharges []AllowanceCharge `json:"AllowancesCharges"`
	Item              Item              `json:"Item"`
	Price             Price             `json:"Price"`
}

// Item is what a line sells (BG-31).
type Item struct {
	Name            string           `json:"Name"`            // BT-153
	Description     string           `json:"Description"`     // BT-154
	SellerID        string           `json:"SellerID"`        // BT-155
	BuyerID         string           `json:"BuyerID"`         // BT-156
	StandardID      *Identifier      `json:"StandardID"`      // BT-157
	Classifications []Classification `json:"Classifications"` // BT-158
	OriginCountry   string           `json:"OriginCountry"`   // BT-159
	VAT             TaxCategory      `json:"VAT"`             // BG-30
	Properties      []Property       `json:"Properties"`      // BG-32
}

// Classification is an item classification code with its scheme (BT-158).
type Classification struct {
	Code          string `json:"Code"`
	ListID        string `json:"ListID"`
	ListVersionID string `json:"ListVersionID"`
}

// Property is an item attribute (BG-32).
type Property struct {
	Name  string `json:"Name"`  // BT-160
	Value string `json:"Value"` // BT-161
}

// Price is a line's price details (BG-29).
type Price struct {
	Net          *decimal.Decimal `json:"Net"`          // BT-146
	BaseQuantity *decimal.Decimal `json:"BaseQuantity"` // BT-149
	BaseUnit     string           `json:"BaseUnit"`     // BT-150
	Discount     *decimal.Decimal `json:"Discount"`     // BT-147 (the price allowance)
	Gross        *decimal.Decimal `json:"Gross"`        // BT-148
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
