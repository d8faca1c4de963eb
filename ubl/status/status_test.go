package status

import (
	"encoding/xml"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBuildParseRoundTripEveryCode(t *testing.T) {
	at := time.Date(2026, 11, 26, 9, 6, 41, 0, time.FixedZone("", 3600))
	for _, code := range Codes {
		in := Message{ID: "Response_1", IssuedAt: at, Code: code, Number: "FT 2026/1 & <x>", UUID: "f02866d2", IssueDate: "2026-11-20", TypeCode: "380",
			Sender:   Party{"Entidade Pública", "PT", "PT600000001"},
			Receiver: Party{"Fornecedor, Lda.", "PT", "PT508025338"}}
		if code == Error || code == Regularization || code == Returned {
			in.Description = "falta o número de compromisso"
		}
		raw, err := Build(in)
		if err != nil {
			t.Fatalf("%s: %v", code, err)
		}
		if !IsStatus(raw) {
			t.Fatalf("%s: IsStatus false", code)
		}
		out, err := Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v\n%s", code, err, raw)
		}
		if !out.IssuedAt.Equal(at) {
			t.Errorf("%s: issued at %v, want %v", code, out.IssuedAt, at)
		}
		out.IssuedAt = in.IssuedAt
		if out != in {
			t.Errorf("%s: round trip\n got %+v\nwant %+v", code, out, in)
		}
	}
}

// problems is every Err value err matches, so that a case asserts which problem was found and that
// no other was.
func problems(err error) []error {
	var found []error
	for _, p := range []error{ErrTooLarge, ErrNotStatus, ErrMalformed, ErrCustomization, ErrResponseCount, ErrUnknownCode,
		ErrNoNumber, ErrNoID, ErrNoDescription, ErrDescriptionTooLong, ErrFieldTooLong} {
		if errors.Is(err, p) {
			found = append(found, p)
		}
	}
	return found
}

func TestBuildRefusesWhatParseRefuses(t *testing.T) {
	good := Message{ID: "m", Code: Processed, Number: "FT 1"}
	for name, c := range map[string]struct {
		m    Message
		want []error
	}{
		"unknown code":         {Message{ID: "m", Code: "12", Number: "FT 1"}, []error{ErrUnknownCode}},
		"no number":            {Message{ID: "m", Code: Processed}, []error{ErrNoNumber}},
		"no id":                {Message{Code: Processed, Number: "FT 1"}, []error{ErrNoID}},
		"error without text":   {Message{ID: "m", Code: Error, Number: "FT 1"}, []error{ErrNoDescription}},
		"14 without text":      {Message{ID: "m", Code: Regularization, Number: "FT 1"}, []error{ErrNoDescription}},
		"description too long": {Message{ID: "m", Code: Returned, Number: "FT 1", Description: strings.Repeat("x", MaxDescription+1)}, []error{ErrDescriptionTooLong}},
		"field too long":       {Message{ID: "m", Code: Processed, Number: "FT 1", UUID: strings.Repeat("x", maxField+1)}, []error{ErrFieldTooLong}},
		"two problems":         {Message{Code: Processed}, []error{ErrNoNumber, ErrNoID}},
	} {
		_, err := Build(c.m)
		if got := problems(err); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, problems %v, want %v", name, err, got, c.want)
		}
	}
	if _, err := Build(good); err != nil {
		t.Fatal(err)
	}
}

func TestParseRefusesOtherXML(t *testing.T) {
	for name, c := range map[string]struct {
		raw  string
		want error
	}{
		"an invoice":          {`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>`, ErrNotStatus},
		"not XML":             {"hello", ErrNotStatus},
		"too large":           {incumbentExample + strings.Repeat(" ", MaxSize), ErrTooLarge},
		"truncated":           {incumbentExample[:len(incumbentExample)/2], ErrMalformed},
		"other customization": {strings.Replace(incumbentExample, "urn:feap.gov.pt:MSGSTS_CIUS-PT:2.1", "urn:other", 1), ErrCustomization},
		"two responses":       {strings.Replace(incumbentExample, "</cac:DocumentResponse>", "</cac:DocumentResponse><cac:DocumentResponse/>", 1), ErrResponseCount},
		"unknown code":        {strings.Replace(incumbentExample, ">11<", ">12<", 1), ErrUnknownCode},
	} {
		_, err := Parse([]byte(c.raw))
		if got := problems(err); !slices.Equal(got, []error{c.want}) {
			t.Errorf("%s: %v, problems %v, want %v", name, err, got, c.want)
		}
	}
	var syntax *xml.SyntaxError
	if _, err := Parse([]byte(incumbentExample[:len(incumbentExample)/2])); !errors.As(err, &syntax) {
		t.Errorf("truncated: %v does not carry the XML syntax error", err)
	}
}

// incumbentExample is the status message of the incumbent's AS2 guide.
const incumbentExample = `<?xml version="1.0" encoding="UTF-8"?>
<ubl:DocumentStatus xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
xmlns:ubl="urn:oasis:names:specification:ubl:schema:xsd:DocumentStatus-2">
  <cbc:CustomizationID>urn:feap.gov.pt:MSGSTS_CIUS-PT:2.1</cbc:CustomizationID>
  <cbc:ID>Response_f02866d2-feeb-4f96-9320-d00507c0018a_6e098568-dfde-4835-87e9-28f6ca1b139d</cbc:ID>
  <cbc:IssueDate>2021-04-13</cbc:IssueDate>
  <cbc:IssueTime>09:06:41.0000000+01:00</cbc:IssueTime>
  <cac:SenderParty>
    <cac:PartyName><cbc:Name>PUBLIC ENTITY Nº 156</cbc:Name></cac:PartyName>
    <cac:PostalAddress><cac:Country><cbc:IdentificationCode>PT</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
    <cac:PartyTaxScheme><cbc:CompanyID>PT614054128</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
    <cac:PartyLegalEntity><cbc:RegistrationName>PUBLIC ENTITY Nº 156</cbc:RegistrationName></cac:PartyLegalEntity>
  </cac:SenderParty>
  <cac:ReceiverParty>
    <cac:PartyName><cbc:Name>Consulting Services, Lda.</cbc:Name></cac:PartyName>
    <cac:PostalAddress><cac:Country><cbc:IdentificationCode>PT</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
    <cac:PartyTaxScheme><cbc:CompanyID>PT547570692</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
    <cac:PartyLegalEntity><cbc:RegistrationName>Consulting Services, Lda.</cbc:RegistrationName></cac:PartyLegalEntity>
  </cac:ReceiverParty>
  <cac:DocumentResponse>
    <cac:Response><cbc:ResponseCode>11</cbc:ResponseCode></cac:Response>
    <cac:DocumentReference>
      <cbc:ID>ZM 02/7000009232102</cbc:ID>
      <cbc:UUID>f02866d2-feeb-4f96-9320-d00507c0018a</cbc:UUID>
      <cbc:IssueDate>2021-03-10</cbc:IssueDate>
      <cbc:DocumentTypeCode>380</cbc:DocumentTypeCode>
    </cac:DocumentReference>
  </cac:DocumentResponse>
</ubl:DocumentStatus>
`

func TestParseTheIncumbentsExample(t *testing.T) {
	m, err := Parse([]byte(incumbentExample))
	if err != nil {
		t.Fatal(err)
	}
	if m.Code != Processed || m.Number != "ZM 02/7000009232102" || m.UUID != "f02866d2-feeb-4f96-9320-d00507c0018a" ||
		m.Sender.TaxID != "PT614054128" || m.Receiver.TaxID != "PT547570692" || m.IssuedAt.IsZero() {
		t.Errorf("%+v", m)
	}
}
