package server

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"sync"

	"einvoice/signing"
	"einvoice/store"
	"einvoice/ubl"
)

// What the portal's document pages need beyond the API's methods: the options of an upload read as
// the API reads them, the findings of a refused document, the correction of an editable document by a
// new XML, the verdicts on a document's signatures, and what needs a person at an entity.

// ParseIssueOptions reads the delivery and signing options of a creation as POST /apps/documentsUBL
// reads its fields: the flags as 1/0 (empty is 0), each additional address checked.
func ParseIssueOptions(sendByEmail, disableXMLSign, disablePDFSign string, emails []string) (IssueOptions, error) {
	b := &fieldBuilder{}
	texts := make([]text, 0, len(emails))
	for _, e := range emails {
		if e = strings.TrimSpace(e); e != "" {
			texts = append(texts, text(e))
		}
	}
	opts := b.flags(text(sendByEmail), texts, text(disableXMLSign), text(disablePDFSign))
	return opts, b.err()
}

// Findings are the findings of a document the official rules refused (e217); nil for any other
// error.
func Findings(err error) []ubl.Finding {
	var fe FieldErrors
	if !errors.As(err, &fe) {
		return nil
	}
	p, ok := fe["document"]
	if !ok || p.Code != CodeInvalidDocument {
		return nil
	}
	findings, _ := p.Details.([]ubl.Finding)
	return findings
}

// issuedDocument reads a document the entity issued; anything else, even a document it received, is
// not found.
func (w *Workflow) issuedDocument(ctx context.Context, issuerID int64, ref string) (store.Document, error) {
	d, err := w.partyDocument(ctx, issuerID, ref)
	if err == nil && d.IssuerID != issuerID {
		return store.Document{}, fail(CodeNotFound)
	}
	return d, err
}

// Editable tells whether the issuer may still send a new version of the document.
func Editable(d store.Document) bool { return editable(d) }

// CorrectDocument sends a new version of an editable document the entity issued, from its XML: the
// issue pipeline edits a document when the XML has its number, type and issue date, so an XML of
// another document is refused (e380) rather than issued as a new one, and a document that can no
// longer be edited is refused as the API refuses it (e200).
func (w *Workflow) CorrectDocument(ctx context.Context, issuer store.Entity, ref string, xml []byte, opts IssueOptions, lang string) (Issued, error) {
	d, err := w.issuedDocument(ctx, issuer.ID, ref)
	if err != nil {
		return Issued{}, err
	}
	if !editable(d) {
		return Issued{}, FieldErrors{"document": {Code: CodeAlreadyExists, Details: map[string]string{"id": DocumentRef(d)}}}
	}
	// A document that cannot be read is left to the pipeline, whose findings say why.
	if m, err := ubl.ReadBytes(xml); err == nil && (m.Number != d.Number || !strings.EqualFold(m.TypeCode, d.TypeCode) || m.IssueDate != d.EmissionDate) {
		return Issued{}, fieldError("document", CodeOtherDocument)
	}
	return w.IssueXML(ctx, issuer, xml, opts, lang)
}

// Signature is the verdict on the signatures of one of a document's files.
type Signature struct {
	File   string // xml or pdf
	State  string // verified, invalid or none
	Signer string // the first signer's certificate subject, when verified
}

// Signature states.
const (
	SignatureVerified = "verified"
	SignatureInvalid  = "invalid"
	SignatureNone     = "none"
)

// verdicts keeps the verdicts on files by their content's hash: a verdict depends on the bytes alone,
// and a document page is read far more often than a document changes. It is emptied when full.
var verdicts = struct {
	sync.Mutex
	m map[string]Signature
}{m: map[string]Signature{}}

const maxVerdicts = 20_000

// DocumentSignatures verifies the signatures of a document's XML and of its PDF, when the PDF is made
// (a PDF the service renders on first request is judged once it exists).
func (w *Workflow) DocumentSignatures(ctx context.Context, d DocumentDetail) ([]Signature, error) {
	var out []Signature
	for _, f := range d.Files {
		if f.Role != store.FileXML && f.Role != store.FilePDF {
			continue
		}
		key := f.Role + string(f.SHA256)
		verdicts.Lock()
		v, ok := verdicts.m[key]
		verdicts.Unlock()
		if !ok {
			full, err := w.store.DocumentFile(ctx, d.Document.ID, f.ID)
			if errors.Is(err, store.ErrNotFound) {
				continue // replaced by an edit since the list was read
			}
			if err != nil {
				return nil, err
			}
			v = verdict(f.Role, full.Content)
			if len(f.SHA256) == sha256.Size { // a file without its hash is judged each time
				verdicts.Lock()
				if len(verdicts.m) >= maxVerdicts {
					clear(verdicts.m)
				}
				verdicts.m[key] = v
				verdicts.Unlock()
			}
		}
		out = append(out, v)
	}
	return out, nil
}

func verdict(role string, content []byte) Signature {
	verify := signing.VerifyXML
	if role == store.FilePDF {
		verify = signing.VerifyPDF
	}
	infos, err := verify(content)
	switch {
	case errors.Is(err, signing.ErrNoSignature):
		return Signature{File: role, State: SignatureNone}
	case err != nil:
		return Signature{File: role, State: SignatureInvalid}
	}
	return Signature{File: role, State: SignatureVerified, Signer: infos[0].Signer}
}

// Attention is what needs a person at an entity beyond its documents' states: e-mails that failed for
// good (and were not sent again to the same address since), and webhooks whose latest delivery
// failed.
type Attention struct {
	FailedEmails    []FailedEmail // newest first
	FailingWebhooks []store.Webhook
}

// FailedEmail is an e-mail that failed for good, and the document it carried.
type FailedEmail struct {
	store.Email
	DocumentRef string
}

// maxAttention bounds the failed e-mails looked at.
const maxAttention = 20

// Attention reads what needs a person at the entity.
func (w *Workflow) Attention(ctx context.Context, a Access) (Attention, error) {
	var out Attention
	failed, err := w.store.Emails(ctx, store.EmailFilter{EntityID: a.Entity.ID, State: store.EmailFailed, Limit: maxAttention})
	if err != nil {
		return out, err
	}
	later := map[int64][]store.Email{} // the e-mails of each document, read once
	for _, e := range failed {
		emails, ok := later[e.DocumentID]
		if !ok {
			if emails, err = w.store.DocumentEmails(ctx, e.DocumentID); err != nil {
				return out, err
			}
			later[e.DocumentID] = emails
		}
		if !sentAgain(e, emails) {
			out.FailedEmails = append(out.FailedEmails, FailedEmail{Email: e, DocumentRef: w.store.PublicID(store.KindDocument, e.DocumentID)})
		}
	}
	out.FailingWebhooks, err = w.store.FailingWebhooks(ctx, a.Entity.ID)
	return out, err
}

// sentAgain tells whether the document was queued to the failed e-mail's address again after it.
func sentAgain(failed store.Email, emails []store.Email) bool {
	for _, e := range emails {
		if e.ID > failed.ID && strings.EqualFold(e.Address, failed.Address) && e.State != store.EmailFailed {
			return true
		}
	}
	return false
}
