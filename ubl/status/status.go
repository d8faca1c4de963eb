// Package status writes and reads the EDI status message of the Portuguese public administration's
// network: a UBL 2.1 DocumentStatus with the CustomizationID urn:feap.gov.pt:MSGSTS_CIUS-PT, saying
// what became of a document (its number and, when it has one, its AIM identifier) with one of eSPap's
// response codes and, for the refusals, a description.
package status

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// CustomizationID is the identifier of the status message's specification this package writes; any
// version of it is read.
const (
	CustomizationID     = "urn:feap.gov.pt:MSGSTS_CIUS-PT:2.1"
	customizationPrefix = "urn:feap.gov.pt:MSGSTS_CIUS-PT:"
)

// The eSPap response codes.
const (
	Accepted       = "ACCEPTED" // passed the checks and went to the recipient
	Error          = "ERROR"    // failed the checks
	Regularization = "14"       // rejected by the recipient, awaiting regularisation
	Returned       = "22"       // returned: cancel it and issue a new document
	Processed      = "11"       // processed (accepted) by the recipient
	CreditAccepted = "30"       // a credit note accepted by the recipient
	InPayment      = "33"
	Paid           = "29"
)

// Codes is every response code.
var Codes = []string{Accepted, Error, Regularization, Returned, Processed, CreditAccepted, InPayment, Paid}

// Limits of what is read and written.
const (
	MaxSize        = 64 << 10 // a status message's bytes
	MaxDescription = 1000     // characters of the description
	maxField       = 200      // characters of any other field
)

// Party is the sender or receiver of a status message.
type Party struct {
	Name    string
	Country string // ISO 3166 alpha-2
	TaxID   string // with its country prefix: PT508025338
}

// Message is one status message.
type Message struct {
	ID          string // the message's own id
	IssuedAt    time.Time
	Sender      Party // who says it (the recipient of the document)
	Receiver    Party // who it is for (the issuer of the document)
	Code        string
	Description string
	// The document it is about.
	Number    string
	UUID      string // the document's AdditionalDocumentReference ID of scheme AIM; empty when it has none
	IssueDate string // YYYY-MM-DD
	TypeCode  string // 380, 381, ...
}

const (
	nsStatus = "urn:oasis:names:specification:ubl:schema:xsd:DocumentStatus-2"
	nsCAC    = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
	nsCBC    = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
)

// Build writes m as a DocumentStatus, after checking it as Parse would.
func Build(m Message) ([]byte, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<ubl:DocumentStatus xmlns:cac="` + nsCAC + `" xmlns:cbc="` + nsCBC + `" xmlns:ubl="` + nsStatus + `">` + "\n")
	el := func(indent, name, v string) {
		if v == "" {
			return
		}
		b.WriteString(indent + "<" + name + ">")
		xml.EscapeText(&b, []byte(v))
		b.WriteString("</" + name + ">\n")
	}
	el("  ", "cbc:CustomizationID", CustomizationID)
	el("  ", "cbc:ID", m.ID)
	el("  ", "cbc:IssueDate", m.IssuedAt.Format(time.DateOnly))
	el("  ", "cbc:IssueTime", m.IssuedAt.Format("15:04:05.0000000-07:00"))
	party := func(tag string, p Party) {
		b.WriteString("  <cac:" + tag + ">\n    <cac:PartyName>\n")
		el("      ", "cbc:Name", p.Name)
		b.WriteString("    </cac:PartyName>\n    <cac:PostalAddress>\n      <cac:Country>\n")
		el("        ", "cbc:IdentificationCode", p.Country)
		b.WriteString("      </cac:Country>\n    </cac:PostalAddress>\n    <cac:PartyTaxScheme>\n")
		el("      ", "cbc:CompanyID", p.TaxID)
		b.WriteString("      <cac:TaxScheme>\n        <cbc:ID>VAT</cbc:ID>\n      </cac:TaxScheme>\n    </cac:PartyTaxScheme>\n")
		b.WriteString("    <cac:PartyLegalEntity>\n")
		el("      ", "cbc:RegistrationName", p.Name)
		b.WriteString("    </cac:PartyLegalEntity>\n  </cac:" + tag + ">\n")
	}
	party("SenderParty", m.Sender)
	party("ReceiverParty", m.Receiver)
	b.WriteString("  <cac:DocumentResponse>\n    <cac:Response>\n")
	el("      ", "cbc:ResponseCode", m.Code)
	el("      ", "cbc:Description", m.Description)
	b.WriteString("    </cac:Response>\n    <cac:DocumentReference>\n")
	el("      ", "cbc:ID", m.Number)
	el("      ", "cbc:UUID", m.UUID)
	el("      ", "cbc:IssueDate", m.IssueDate)
	el("      ", "cbc:DocumentTypeCode", m.TypeCode)
	b.WriteString("    </cac:DocumentReference>\n  </cac:DocumentResponse>\n</ubl:DocumentStatus>\n")
	return b.Bytes(), nil
}

// document is the DocumentStatus as read (elements matched by local name; the root's namespace is
// checked by IsStatus).
type document struct {
	CustomizationID string `xml:"CustomizationID"`
	ID              string `xml:"ID"`
	IssueDate       string `xml:"IssueDate"`
	IssueTime       string `xml:"IssueTime"`
	Sender          party  `xml:"SenderParty"`
	Receiver        party  `xml:"ReceiverParty"`
	Responses       []struct {
		Code        string `xml:"Response>ResponseCode"`
		Description string `xml:"Response>Description"`
		Reference   struct {
			ID        string `xml:"ID"`
			UUID      string `xml:"UUID"`
			IssueDate string `xml:"IssueDate"`
			TypeCode  string `xml:"DocumentTypeCode"`
		} `xml:"DocumentReference"`
	} `xml:"DocumentResponse"`
}

type party struct {
	Name    string `xml:"PartyName>Name"`
	Country string `xml:"PostalAddress>Country>IdentificationCode"`
	TaxID   string `xml:"PartyTaxScheme>CompanyID"`
}

// What can be wrong with a status message, for errors.Is: Build and Parse return an error that says it
// for people and matches one of these for each problem it names (Parse may match an encoding/xml error
// too).
var (
	ErrTooLarge           = errors.New("status message too large")
	ErrNotStatus          = errors.New("not a DocumentStatus") // XML that is not one at all (a document, for example)
	ErrMalformed          = errors.New("malformed status message")
	ErrCustomization      = errors.New("not the CIUS-PT status specification")
	ErrResponseCount      = errors.New("not exactly one DocumentResponse")
	ErrUnknownCode        = errors.New("unknown response code")
	ErrNoNumber           = errors.New("no document number")
	ErrNoID               = errors.New("no message ID")
	ErrNoDescription      = errors.New("the response code needs a description")
	ErrDescriptionTooLong = errors.New("description too long")
	ErrFieldTooLong       = errors.New("field too long")
)

// invalid is what is wrong with a status message: text for people, and the Err value of each problem.
type invalid struct {
	text     string
	problems []error
}

func (e *invalid) Error() string   { return e.text }
func (e *invalid) Unwrap() []error { return e.problems }

// IsStatus tells whether payload looks like a DocumentStatus (its root element), without checking it.
func IsStatus(payload []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(payload))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name.Space == nsStatus && se.Name.Local == "DocumentStatus"
		}
	}
}

// Parse reads and checks a status message: a DocumentStatus of the CIUS-PT status specification with
// one document response, a known code, the document's number, and a description for the refusals.
func Parse(payload []byte) (Message, error) {
	if len(payload) > MaxSize {
		return Message{}, &invalid{fmt.Sprintf("status message larger than %d bytes", MaxSize), []error{ErrTooLarge}}
	}
	if !IsStatus(payload) {
		return Message{}, ErrNotStatus
	}
	var d document
	dec := xml.NewDecoder(bytes.NewReader(payload))
	if err := dec.Decode(&d); err != nil {
		return Message{}, &invalid{"status message: " + err.Error(), []error{ErrMalformed, err}}
	}
	if !strings.HasPrefix(strings.TrimSpace(d.CustomizationID), customizationPrefix) {
		return Message{}, &invalid{fmt.Sprintf("status message: CustomizationID %q is not %s…", d.CustomizationID, customizationPrefix), []error{ErrCustomization}}
	}
	if len(d.Responses) != 1 {
		return Message{}, &invalid{fmt.Sprintf("status message: %d DocumentResponse elements, want 1", len(d.Responses)), []error{ErrResponseCount}}
	}
	r := d.Responses[0]
	m := Message{
		ID:       strings.TrimSpace(d.ID),
		Sender:   Party{strings.TrimSpace(d.Sender.Name), strings.TrimSpace(d.Sender.Country), strings.TrimSpace(d.Sender.TaxID)},
		Receiver: Party{strings.TrimSpace(d.Receiver.Name), strings.TrimSpace(d.Receiver.Country), strings.TrimSpace(d.Receiver.TaxID)},
		Code:     strings.TrimSpace(r.Code), Description: strings.TrimSpace(r.Description),
		Number: strings.TrimSpace(r.Reference.ID), UUID: strings.TrimSpace(r.Reference.UUID),
		IssueDate: strings.TrimSpace(r.Reference.IssueDate), TypeCode: strings.TrimSpace(r.Reference.TypeCode),
	}
	if at, err := time.Parse(time.DateOnly+"T15:04:05.999999999Z07:00", strings.TrimSpace(d.IssueDate)+"T"+strings.TrimSpace(d.IssueTime)); err == nil {
		m.IssuedAt = at
	} else if at, err := time.Parse(time.DateOnly, strings.TrimSpace(d.IssueDate)); err == nil {
		m.IssuedAt = at
	}
	return m, m.check()
}

// check applies the rules both Build and Parse keep.
func (m Message) check() error {
	var texts []string
	var problems []error
	problem := func(err error, text string) {
		texts, problems = append(texts, text), append(problems, err)
	}
	if !slices.Contains(Codes, m.Code) {
		problem(ErrUnknownCode, fmt.Sprintf("response code %q is not one of %s", m.Code, strings.Join(Codes, ", ")))
	}
	if m.Number == "" {
		problem(ErrNoNumber, "the document reference has no ID (the document's number)")
	}
	if m.ID == "" {
		problem(ErrNoID, "the message has no ID")
	}
	if slices.Contains([]string{Error, Regularization, Returned}, m.Code) && m.Description == "" {
		problem(ErrNoDescription, "response code "+m.Code+" needs a description")
	}
	if len([]rune(m.Description)) > MaxDescription {
		problem(ErrDescriptionTooLong, fmt.Sprintf("the description is longer than %d characters", MaxDescription))
	}
	for _, v := range []string{m.ID, m.Number, m.UUID, m.IssueDate, m.TypeCode, m.Sender.Name, m.Sender.TaxID, m.Receiver.Name, m.Receiver.TaxID} {
		if len([]rune(v)) > maxField {
			problem(ErrFieldTooLong, fmt.Sprintf("a field is longer than %d characters", maxField))
			break
		}
	}
	if len(problems) > 0 {
		return &invalid{"status message: " + strings.Join(texts, "; "), problems}
	}
	return nil
}
