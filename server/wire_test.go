package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"einvoice/store"
	"einvoice/ubl"
)

// The document list as the incumbent's clients use it: received or issued documents, looked up by
// number under either name, each item the whole document with attachments a plain GET downloads.

// withoutLinkTokens drops the tokens of a view's public links: each view makes its own.
func withoutLinkTokens(doc map[string]any) map[string]any {
	raw, _ := json.Marshal(doc)
	var out map[string]any
	json.Unmarshal(raw, &out)
	for _, a := range out["attachments"].([]any) {
		a := a.(map[string]any)
		a["file"], _, _ = strings.Cut(a["file"].(string), "?")
	}
	return out
}

func TestListIssuedOrReceivedByDocumentNumber(t *testing.T) {
	env := newDocEnv(t)
	for _, n := range []string{"FT W/1", "FT W/2", "FT W/10"} {
		env.issue(n)
	}
	ids := func(r response) []string {
		var out []string
		for _, item := range list(t, r) {
			out = append(out, item["number"].(string))
		}
		return out
	}
	cases := []struct {
		as    store.Entity
		query string
		want  []string
	}{
		{env.entity, "?document_type=issued&document_number=" + url.QueryEscape("FT W/1"), []string{"FT W/1"}},
		{env.entity, "?document_type=issued&number=" + url.QueryEscape("FT W/10"), []string{"FT W/10"}},
		{env.entity, "?document_type=issued", []string{"FT W/10", "FT W/2", "FT W/1"}},
		{env.entity, "", nil}, // received is the default: the issuer received nothing
		{env.entity, "?document_type=received&document_number=" + url.QueryEscape("FT W/1"), nil},
		{env.customer, "?document_number=" + url.QueryEscape("FT W/2"), []string{"FT W/2"}},
		{env.customer, "?document_type=received&number=FT+W%2F2&document_number=FT+W%2F2", []string{"FT W/2"}},
		{env.customer, "?document_type=issued", nil},
	}
	for _, c := range cases {
		if got := ids(env.get("/documents"+c.query, c.as)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s as %s: %v, want %v", c.query, c.as.Name, got, c.want)
		}
	}
	// The unfiltered list's total is the issuer's kept count, the filtered one a count of the matches.
	for query, want := range map[string]float64{"?document_type=issued&rows=1": 3, "?document_type=issued&type_document_fact=FT&rows=1": 3} {
		if total := env.get("/documents"+query, env.entity).body["response"].(map[string]any)["total"]; total != want {
			t.Errorf("%s: total %v, want %v", query, total, want)
		}
	}
	expectError(t, env.get("/documents?document_type=sent", env.entity), 400, "document_type:e302")
	expectError(t, env.get("/documents?number=FT+W%2F1&document_number=FT+W%2F2", env.entity), 400, "document_number:e302")

	// Each item is the whole document as GET /apps/documents/{id} shows it, to either party.
	for _, as := range []store.Entity{env.entity, env.customer} {
		query := "?document_type=issued"
		if as.ID == env.customer.ID {
			query = ""
		}
		for _, item := range list(t, env.get("/documents"+query, as)) {
			doc := data(env.get("/documents/"+item["id"].(string), as))
			if !reflect.DeepEqual(withoutLinkTokens(item), withoutLinkTokens(doc)) {
				t.Fatalf("list item differs from the document:\n%v\n%v", item, doc)
			}
			if len(item["attachments"].([]any)) == 0 {
				t.Fatalf("no attachments in %v", item)
			}
		}
	}
}

func TestAttachmentLinksDownloadWithAPlainGETUntilRevoked(t *testing.T) {
	env := newDocEnv(t)
	other := env.mustEntity("Outro Cliente", "503504564")
	env.authorize(other)
	notes := base64.StdEncoding.EncodeToString([]byte("notas de entrega"))
	r := env.post("/documents", env.entity, "application/json", invoiceJSON("FT L/1", env.customer.NIF,
		`, "files": [{"filename": "notas.txt", "content": "`+notes+`"}]`))
	id := created(t, r)

	attachments := func(as store.Entity) map[string]map[string]any {
		items := list(t, env.get("/documents?document_type="+map[bool]string{true: "issued", false: "received"}[as.ID == env.entity.ID], as))
		out := map[string]map[string]any{}
		for _, a := range items[0]["attachments"].([]any) {
			a := a.(map[string]any)
			out[a["ubl_type"].(string)] = a
		}
		return out
	}
	issuerLinks, customerLinks := attachments(env.entity), attachments(env.customer)
	for kind, want := range map[string]string{"xml_representation": "xml", "attachment": "txt"} {
		a := customerLinks[kind]
		if a == nil || a["type"] != want || a["identifier"] == "" {
			t.Fatalf("%s: %v", kind, customerLinks)
		}
		got := env.fetchPublic(a["file"].(string)) // no Authorization, no entity header
		sum := sha256.Sum256([]byte(got.raw))
		if got.status != 200 || hex.EncodeToString(sum[:]) != a["hash"] {
			t.Fatalf("%s: %d, hash %s, want %s", kind, got.status, hex.EncodeToString(sum[:]), a["hash"])
		}
	}
	if got := env.fetchPublic(customerLinks["attachment"]["file"].(string)); got.raw != "notas de entrega" {
		t.Fatalf("attachment content %q", got.raw)
	}
	// A token for one file opens no other.
	link := customerLinks["attachment"]["file"].(string)
	path, token, _ := strings.Cut(link, "?")
	xmlPath, _, _ := strings.Cut(customerLinks["xml_representation"]["file"].(string), "?")
	expectError(t, env.fetchPublic(xmlPath+"?"+token), 404, "e330")
	expectError(t, env.fetchPublic(path+"?token=AAAA"), 404, "e330")

	// Only a party may revoke, and it revokes its own links: the customer's stop, the issuer's go on,
	// and links made afterwards work.
	revoke := func(as store.Entity) response {
		return env.do("DELETE", "/api/v1/en/apps/documents/"+id+"/links", env.as(as, ""), "")
	}
	expectError(t, revoke(other), 404, "e330")
	if r := revoke(env.customer); r.status != 200 || r.body["message"].(map[string]any)["code"] != "s410" {
		t.Fatalf("revoke: %d %s", r.status, r.raw)
	}
	expectError(t, env.fetchPublic(link), 404, "e330")
	expectError(t, env.fetchPublic(customerLinks["xml_representation"]["file"].(string)), 404, "e330")
	if got := env.fetchPublic(issuerLinks["attachment"]["file"].(string)); got.status != 200 {
		t.Fatalf("the issuer's link after the customer revoked its own: %d", got.status)
	}
	if got := env.fetchPublic(attachments(env.customer)["attachment"]["file"].(string)); got.status != 200 || got.raw != "notas de entrega" {
		t.Fatalf("a link made after the revocation: %d %s", got.status, got.raw)
	}
}

// missingKeys lists the key paths of want that got lacks: at every path where both hold an object,
// each of want's keys; where both hold a non-empty array, the keys of want's first element in each of
// got's elements.
func missingKeys(path string, want, got any) []string {
	var out []string
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return nil
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				out = append(out, path+"."+k)
				continue
			}
			out = append(out, missingKeys(path+"."+k, wv, gv)...)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(w) == 0 {
			return nil
		}
		for _, gv := range g {
			out = append(out, missingKeys(path+"[]", w[0], gv)...)
		}
	}
	return out
}

// incumbentDocument is the incumbent's published document example (shared reference).
func incumbentDocument(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile("../../shared/reference/incumbent/document-response-example.json")
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("../shared (the incumbent's document example) is absent beside the repository")
	}
	if err != nil {
		t.Fatal(err)
	}
	var example struct {
		Response struct {
			Data []map[string]any `json:"data"`
		} `json:"response"`
	}
	if err := json.Unmarshal(raw, &example); err != nil || len(example.Response.Data) != 1 {
		t.Fatalf("the example: %v", err)
	}
	return example.Response.Data[0]
}

func asJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every key of the incumbent's document shape is in the view, at every depth, for a document that
// fills every field (the stored-data golden file) and, null or empty, for one that fills none.
func TestDocumentViewHasEveryKeyOfTheIncumbentShape(t *testing.T) {
	example := incumbentDocument(t)
	full, err := os.ReadFile("testdata/document-data-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	empty, err := encodeDocumentData(&ubl.Document{}, "pt")
	if err != nil {
		t.Fatal(err)
	}
	link := func(file string) string { return "https://example.test/" + file }
	d := store.Document{ID: 1, PublicID: "d1", IssuerID: 1, RecipientID: 2, State: store.StateToSend, ToSendStatus: toSendNoConnection,
		EDIState: ediPending, ProcessState: "PAGO", ProcessStateAt: "2026-11-20 10:00:00", Data: full}
	records := documentRecords{
		files:        []store.File{{PublicID: "f1", Role: store.FileXML, Name: "FT 1.xml", MIME: "application/xml", SHA256: []byte{1}}},
		rejections:   []store.Rejection{{Data: []byte(`{"reason": "falta o compromisso"}`), CreatedAt: "2026-11-20 10:00:00"}},
		emails:       []store.Email{{PublicID: "e1", Address: "a@example.test", State: store.EmailSent, SentAt: "2026-11-20 10:00:00"}},
		processState: &store.ProcessState{ID: 7, Code: "PAGO", Name: "Pago"},
		links:        link,
	}
	for name, c := range map[string]struct {
		data    []byte
		records documentRecords
	}{"every field": {full, records}, "no field": {empty, documentRecords{links: link}}} {
		d.Data = c.data
		v, err := viewDocument(d, c.records, d.IssuerID, link, "pt")
		if err != nil {
			t.Fatal(err)
		}
		got := asJSON(t, v)
		if missing := missingKeys("", example, got); len(missing) > 0 {
			slices.Sort(missing)
			t.Errorf("%s: the view lacks %v", name, missing)
		}
		if taxes, _ := got["taxes"].([]any); name == "every field" && len(taxes) == 0 { // a key of this service's own
			t.Errorf("%s: no VAT breakdown in %v", name, got["taxes"])
		}
		for _, key := range []string{"type_document_fact", "type_document", "state_document"} { // the spec's object forms
			if _, ok := got[key].(map[string]any)["alias"]; !ok {
				t.Errorf("%s: %s is %v", name, key, got[key])
			}
		}
	}

	// The same through the API: a list item and the document.
	env := newDocEnv(t)
	id := env.issue("FT K/1")
	for _, r := range []response{env.get("/documents", env.customer), env.get("/documents/"+id, env.customer)} {
		got := data(r)
		if got == nil {
			got = list(t, r)[0]
		}
		if missing := missingKeys("", example, got); len(missing) > 0 {
			t.Errorf("the API's document lacks %v", missing)
		}
	}
}

// peppolOrder is a PEPPOL BIS 3 order from the buyer (its VAT number in PartyTaxScheme) to a seller
// that gives its tax ID only as its electronic address (scheme 9946) and legal registration.
func peppolOrder(number, buyerNIF, sellerNIF string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"
    xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
    xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>urn:fdc:peppol.eu:poacc:trns:order:3</cbc:CustomizationID>
  <cbc:ProfileID>urn:fdc:peppol.eu:poacc:bis:order_only:3</cbc:ProfileID>
  <cbc:ID>` + number + `</cbc:ID>
  <cbc:IssueDate>2026-11-20</cbc:IssueDate>
  <cbc:OrderTypeCode>220</cbc:OrderTypeCode>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cac:BuyerCustomerParty>
    <cac:Party>
      <cbc:EndpointID schemeID="9946">PT` + buyerNIF + `</cbc:EndpointID>
      <cac:PartyName><cbc:Name>Comprador</cbc:Name></cac:PartyName>
      <cac:PostalAddress><cbc:CityName>Lisboa</cbc:CityName><cac:Country><cbc:IdentificationCode>PT</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
      <cac:PartyTaxScheme><cbc:CompanyID>PT` + buyerNIF + `</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
      <cac:PartyLegalEntity><cbc:RegistrationName>Comprador Lda</cbc:RegistrationName></cac:PartyLegalEntity>
    </cac:Party>
  </cac:BuyerCustomerParty>
  <cac:SellerSupplierParty>
    <cac:Party>
      <cbc:EndpointID schemeID="9946">PT` + sellerNIF + `</cbc:EndpointID>
      <cac:PostalAddress><cbc:CityName>Porto</cbc:CityName><cac:Country><cbc:IdentificationCode>PT</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
      <cac:PartyLegalEntity><cbc:RegistrationName>Fornecedor SA</cbc:RegistrationName><cbc:CompanyID>` + sellerNIF + `</cbc:CompanyID></cac:PartyLegalEntity>
    </cac:Party>
  </cac:SellerSupplierParty>
  <cac:AnticipatedMonetaryTotal>
    <cbc:LineExtensionAmount currencyID="EUR">40.00</cbc:LineExtensionAmount>
    <cbc:PayableAmount currencyID="EUR">40.00</cbc:PayableAmount>
  </cac:AnticipatedMonetaryTotal>
  <cac:OrderLine>
    <cac:LineItem>
      <cbc:ID>1</cbc:ID>
      <cbc:Quantity unitCode="C62">10</cbc:Quantity>
      <cbc:LineExtensionAmount currencyID="EUR">40.00</cbc:LineExtensionAmount>
      <cac:Price><cbc:PriceAmount currencyID="EUR">4.00</cbc:PriceAmount></cac:Price>
      <cac:Item><cbc:Name>Caderno</cbc:Name></cac:Item>
    </cac:LineItem>
  </cac:OrderLine>
</Order>`
}

// A counterparty is found by any identifier that may be its tax ID: in the test environment an order
// to the other test entity, named only by its electronic address and legal registration, reaches it.
func TestOrderSellerFoundByEndpointAndLegalRegistration(t *testing.T) {
	env := newDocEnv(t, func(c *Config) { c.Environment.Mode = "test" })
	ctx := context.Background()
	yes := true
	for _, e := range []store.Entity{env.entity, env.customer} {
		env.st.UpdateEntity(ctx, e.ID, store.EntityChanges{TestEntity: &yes})
	}
	env.entity, _ = env.st.EntityByID(ctx, env.entity.ID)
	env.customer, _ = env.st.EntityByID(ctx, env.customer.ID)
	env.connect(env.customer, env.entity, store.ConnApproved)

	r := env.post("/documentsUBL", env.entity, "application/xml", peppolOrder("ENC 1", env.entity.NIF, env.customer.NIF))
	if r.status != 201 || alias(data(r)["state_document"]) != "sent" {
		t.Fatalf("order: %d %s", r.status, r.raw)
	}
	items := list(t, env.get("/documents?document_number=ENC+1", env.customer))
	if len(items) != 1 || items[0]["supplier"].(map[string]any)["number"] != env.customer.NIF {
		t.Fatalf("the seller's inbox: %v", items)
	}
	// The seller named by a tax ID of no entity here is still refused in the test environment.
	expectError(t, env.post("/documentsUBL", env.entity, "application/xml", peppolOrder("ENC 2", env.entity.NIF, "123456789")), 400, "customer:e341")
}

// A visual PDF whose cross-reference table is damaged, as ERPs write them, is repaired and signed.
func TestVisualPDFWithDamagedCrossReferenceIsSigned(t *testing.T) {
	env := newDocEnv(t)
	env.giveSeal(issuerSeal())
	pdf := renderedPDF(t)
	at := bytes.LastIndex(pdf, []byte("startxref")) + len("startxref")
	damaged := append(append([]byte{}, pdf[:at]...), "\n1\n%%EOF\n"...)
	body, ct := multipartBody(t, formFields(t, invoiceJSON("FT P/1", env.customer.NIF, "")), map[string][]byte{"file": damaged})
	id := created(t, env.post("/documents", env.entity, ct, body))
	signed := env.file(id, "pdf")
	if !bytes.HasPrefix(signed, damaged) || pdfSignature(t, signed) != "PAdES" {
		t.Fatalf("the visual PDF was not signed over what was sent (%d bytes, signature %s)", len(signed), pdfSignature(t, signed))
	}
}

// Decoded models are kept by their stored data for two generations of modelCacheSize.
func TestModelCacheKeepsRecentModels(t *testing.T) {
	var c modelCache
	data := func(i int) []byte {
		raw, err := encodeDocumentData(&ubl.Document{Number: strconv.Itoa(i)}, "pt")
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	first, err := c.model(data(0))
	if err != nil || first.Number != "0" {
		t.Fatalf("%v %v", first, err)
	}
	for i := 1; i < modelCacheSize; i++ {
		c.model(data(i))
	}
	if again, _ := c.model(data(0)); again != first {
		t.Fatal("a recent model was decoded again")
	}
	for i := 1; i <= 2*modelCacheSize; i++ {
		if m, _ := c.model(data(modelCacheSize + i)); m.Number != strconv.Itoa(modelCacheSize+i) {
			t.Fatalf("model %d is %q", modelCacheSize+i, m.Number)
		}
	}
	if again, _ := c.model(data(0)); again == first || again.Number != "0" {
		t.Fatal("the cache outgrew its two generations")
	}
	if _, err := c.model([]byte("{")); err == nil {
		t.Fatal("bad stored data decoded")
	}
}
