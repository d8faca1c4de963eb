package web

// The view models of one document: its page, and the upload form that issues or corrects one.

// DocumentPage is one document: rendered from its UBL, with its state, signatures, timeline, files and
// the actions the user may take.
type DocumentPage struct {
	Base
	Ref        string // the document's id in links
	Number     string
	Type       string
	IssueDate  string
	DueDate    string
	Currency   string
	Badges     []Badge
	Signatures []SignatureBadge
	Seller     PartyBlock
	Buyer      PartyBlock
	References []Field
	Notes      []string
	Lines      []LineRow
	Charges    []ChargeRow // document-level allowances and charges
	Taxes      []TaxRow
	Totals     []Field
	Payment    []Field
	Reasons    []Reason // rejection and error reasons, oldest first
	Timeline   []Event
	Emails     []EmailRow // the issuer's e-mails of the document
	Files      []FileLink
	PDF        string // the address of the PDF shown inline; empty when there is none
	Actions    DocumentActions
}

// Badge is a labelled state.
type Badge struct {
	Label, Value, Class string
}

// SignatureBadge is the verdict on one file's signatures.
type SignatureBadge struct {
	Kind   string // XAdES or PAdES
	State  string // verified, invalid or none: the badge's class and data-signature
	Label  string // the verdict, already translated
	Signer string
}

// PartyBlock is a party with its address and identifiers.
type PartyBlock struct {
	Title   string
	Name    string
	TaxID   string
	Address []string
	Contact []string
}

// Field is a label and its value.
type Field struct {
	Label, Value string
}

// Reason is why a document was rejected or came back: when, into which state, the text, and the rule
// or status codes it names.
type Reason struct {
	When, State, Text string
	Rules             []string
}

// LineRow is a document line.
type LineRow struct {
	ID, Name, Description, Quantity, Unit, Price, Tax, Net string
}

// ChargeRow is a document-level allowance or charge.
type ChargeRow struct {
	Kind, Reason, Amount, Tax string
}

// TaxRow is one VAT category of the breakdown.
type TaxRow struct {
	Category, Rate, Taxable, Tax, Exemption string
}

// Event is one entry of the timeline.
type Event struct {
	When   string
	Kind   string // what happened, as the history records it (state, edit, email_sent, …): data-event
	What   string
	Detail string
}

// FileLink is a downloadable file.
type FileLink struct {
	Label, Href, Kind string
}

// DocumentActions are the forms the page offers; each is empty when the user may not use it.
type DocumentActions struct {
	Decide        bool // accept or reject (the recipient, while the document is sent)
	Import        bool // mark imported (the recipient)
	ProcessStates []Option
	Resend        bool   // send the e-mail again (the issuer)
	Addresses     string // the addresses it went to, for the resend form
	Correct       string // the correction form's address (the issuer, while the document is editable)
	SendByEmail   bool   // the options of the document\'s creation, which a correction keeps
	NoXMLSign     bool
	NoPDFSign     bool
	Errors        map[string]*FieldError // by field, after a refused action
}

// UploadPage issues a document from its UBL XML, or corrects one (Correct set): the form, and after a
// refusal the codes by field and the official rules' findings.
type UploadPage struct {
	Base
	Action      string // where the form posts
	Correct     *DocumentLink
	SendByEmail bool
	Addresses   string
	NoXMLSign   bool
	NoPDFSign   bool
	Errors      map[string]*FieldError // by field
	Findings    []FindingRow           // the first ones
	More        int                    // findings not listed
}

// DocumentLink names a document and links to its page.
type DocumentLink struct {
	Number, Href string
}
