package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"einvoice/signing"
	"einvoice/store"
	"einvoice/ubl"
	"einvoice/ubl/pdf"
)

// Signatures at creation: an issuer with a seal in the service gets its XML signed (XAdES-BES) and its
// PDFs signed (PAdES) unless the request disables either; an issuer that signs by itself gets every
// signature of what it sends verified, and a document it did not sign refused.

// signingReason is the /Reason of the PDF signatures the service makes.
const signingReason = "Fatura eletrónica / electronic invoice"

// sealFor reads the entity's seal: nil when it has none; a 400 when it cannot sign now.
func (w *Workflow) sealFor(ctx context.Context, e store.Entity) (*signing.Seal, error) {
	if e.SignsItself || !e.ServiceSigning { // the store sets ServiceSigning exactly while a seal is kept
		return nil, nil
	}
	rec, err := w.store.SealOf(ctx, e.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	seal, err := w.seals.parse(e.ID, rec)
	if err != nil {
		w.log.Error("an entity's seal cannot sign", "entity", e.ID, "subject", rec.Subject, "err", err)
		return nil, fieldError("seal", CodeSealCannotSign)
	}
	if err := seal.ValidAt(w.now()); err != nil {
		return nil, FieldErrors{"seal": {Code: CodeSealUnusable, Details: map[string]string{
			"subject": rec.Subject, "not_before": rec.NotBefore, "not_after": rec.NotAfter}}}
	}
	return seal, nil
}

// sealCache keeps the seals read for signing, parsed: reading an RSA key checks and precomputes it,
// which costs about as much as one signature. The stored seal is still read on every use, since
// another process (the admin commands) may replace or delete it; it is parsed again only when its key
// or certificates differ from the ones parsed before.
type sealCache struct {
	mu     sync.Mutex
	parsed map[int64]parsedSeal // by entity
}

type parsedSeal struct {
	stored store.Seal
	seal   *signing.Seal
}

// parse is the entity's stored seal, parsed.
func (c *sealCache) parse(entityID int64, rec store.Seal) (*signing.Seal, error) {
	c.mu.Lock()
	p, ok := c.parsed[entityID]
	c.mu.Unlock()
	if ok && bytes.Equal(p.stored.Key, rec.Key) && slices.EqualFunc(p.stored.Chain, rec.Chain, bytes.Equal) {
		return p.seal, nil
	}
	seal, err := signing.ParseSeal(rec.Key, rec.Chain)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.parsed == nil {
		c.parsed = map[int64]parsedSeal{}
	}
	c.parsed[entityID] = parsedSeal{stored: rec, seal: seal}
	c.mu.Unlock()
	return seal, nil
}

// signPDF adds the service's PAdES signature, made now with the issuer's seal, to the PDF sent or made
// as field (file, files[i], or document for a PDF inside the XML) under name. A PDF that cannot be
// signed is never kept or served unsigned: the failure is logged here, once, and answered as what it
// is: the file's (e361, naming it) or the seal's (e362).
func (w *Workflow) signPDF(issuerID int64, seal *signing.Seal, field, name string, pdf []byte) ([]byte, error) {
	signed, err := signing.SignPDF(pdf, seal, w.now(), signing.PDFOptions{Reason: signingReason})
	if err == nil {
		return signed, nil
	}
	if signing.IsUnreadablePDF(err) {
		w.log.Warn("a PDF cannot be signed", "entity", issuerID, "file", name, "err", err)
		return nil, FieldErrors{field: {Code: CodePDFUnsignable, Details: map[string]string{"file": name}}}
	}
	w.log.Error("an entity's seal cannot sign", "entity", issuerID, "file", name, "err", err)
	return nil, fieldError("seal", CodeSealCannotSign)
}

// badSignature is the 400 for a signature that does not verify (or is missing), naming the file.
func badSignature(file string, err error) error {
	what := map[string]string{"pt": "A assinatura do documento não é válida", "en": "The signature on the document is not valid"}
	if errors.Is(err, signing.ErrNoSignature) {
		what = map[string]string{"pt": "O documento não está assinado", "en": "The document is not signed"}
	}
	return FieldErrors{"document": {Code: CodeInvalidDocument, Text: map[string]string{
		"pt": what["pt"] + ": " + file + ".", "en": what["en"] + ": " + file + "."}, Details: []map[string]string{{"file": file, "error": err.Error()}}}}
}

// verifyPDFs checks the signatures of PDF uploads; required says which must carry one.
func verifyPDFs(uploads []upload, required func(upload) bool) error {
	for _, u := range uploads {
		if u.mime != "application/pdf" {
			continue
		}
		_, err := signing.VerifyPDF(u.content)
		if errors.Is(err, signing.ErrNoSignature) && !required(u) {
			continue
		}
		if err != nil {
			return badSignature(u.name, err)
		}
	}
	return nil
}

// prepareUploads makes the files a structured-data document carries: the visual PDF (rendered when
// none was sent) and the attachments, PDFs signed when the service signs for the issuer, or their
// signatures verified when the issuer signs by itself.
func (w *Workflow) prepareUploads(issuer store.Entity, seal *signing.Seal, flags IssueOptions, m *ubl.Document, uploads []upload, lang string) ([]upload, error) {
	hasVisual := false
	for _, u := range uploads {
		hasVisual = hasVisual || u.field == "file"
	}
	if issuer.SignsItself {
		if !hasVisual {
			return nil, badSignature("file", signing.ErrNoSignature) // a PDF rendered here would carry no signature of the issuer
		}
		if err := verifyPDFs(uploads, func(u upload) bool { return u.field == "file" }); err != nil {
			return nil, err
		}
	}
	if !hasVisual {
		rendered, err := pdf.Render(m, pdf.Options{Lang: lang, Now: w.now()})
		if err != nil {
			return nil, fmt.Errorf("rendering the PDF: %w", err)
		}
		uploads = append([]upload{{field: "file", name: safeFileName(m.Number) + ".pdf", mime: "application/pdf", content: rendered}}, uploads...)
	}
	if seal == nil || flags.DisablePDFSign {
		return uploads, nil
	}
	for i, u := range uploads {
		if u.mime != "application/pdf" {
			continue
		}
		signed, err := w.signPDF(issuer.ID, seal, u.field, u.name, u.content)
		if err != nil {
			return nil, err
		}
		uploads[i].content = signed
	}
	return uploads, nil
}

// checkIncomingXML verifies the signatures of an XML a self-signing issuer sent, and those of the PDFs
// embedded in it.
func checkIncomingXML(xml []byte, m *ubl.Document) error {
	if _, err := signing.VerifyXML(xml); err != nil {
		return badSignature(safeFileName(m.Number)+".xml", err)
	}
	for _, f := range embeddedFiles(m) {
		if f.MIME != "application/pdf" {
			continue
		}
		if _, err := signing.VerifyPDF(f.Content); err != nil && !errors.Is(err, signing.ErrNoSignature) {
			return badSignature(f.Name, err)
		}
	}
	return nil
}

// signEmbeddedPDFs signs the PDFs an XML embeds, for the copies kept beside it; one that cannot be
// signed refuses the document.
func (w *Workflow) signEmbeddedPDFs(issuerID int64, seal *signing.Seal, files []store.File) error {
	for i, f := range files {
		if f.MIME != "application/pdf" {
			continue
		}
		signed, err := w.signPDF(issuerID, seal, "document", f.Name, f.Content)
		if err != nil {
			return err
		}
		files[i].Content = signed
	}
	return nil
}

// documentPDF is a document's visual PDF (d as DocumentByID reads it, with its data): the stored one,
// or, for a document made from an XML that carries none, one rendered now in the document's language
// from its model, signed when the service signs for the issuer, and kept once for the document's
// version, so that whoever asks first (the download, the e-mail, the webhook link), every caller gets
// the same bytes. When the issuer has a seal that cannot sign now, the answer is that error: an
// unsigned copy is neither served nor kept.
func (w *Workflow) documentPDF(ctx context.Context, d store.Document) (store.File, error) {
	for range 3 { // an edit between reading and keeping: render the new version
		f, err := w.store.DocumentFileByRole(ctx, d.ID, store.FilePDF)
		if !errors.Is(err, store.ErrNotFound) {
			return f, err
		}
		if f, err = w.renderPDF(ctx, d); err != nil {
			return f, err
		}
		f, err = w.store.KeepRenderedPDF(ctx, f, d.Edits)
		if !errors.Is(err, store.ErrConflict) {
			return f, err
		}
		if d, err = w.store.DocumentByID(ctx, d.ID); err != nil {
			return store.File{}, err
		}
	}
	return store.File{}, fmt.Errorf("document %d: edited while its PDF was rendered, three times", d.ID)
}

// renderPDF renders a document's visual PDF, signed when the service signs for the issuer.
func (w *Workflow) renderPDF(ctx context.Context, d store.Document) (store.File, error) {
	m, lang, err := decodeDocumentData(d.Data)
	if err != nil {
		return store.File{}, err
	}
	rendered, err := pdf.Render(m, pdf.Options{Lang: lang, Now: w.now()})
	if err != nil {
		return store.File{}, fmt.Errorf("rendering the PDF of document %d: %w", d.ID, err)
	}
	name := safeFileName(d.Number) + ".pdf"
	if !d.DisablePDFSign {
		issuer, err := w.store.EntityByID(ctx, d.IssuerID)
		if err != nil {
			return store.File{}, err
		}
		seal, err := w.sealFor(ctx, issuer)
		if err != nil {
			return store.File{}, err
		}
		if seal != nil {
			if rendered, err = w.signPDF(issuer.ID, seal, "file", name, rendered); err != nil {
				return store.File{}, err
			}
		}
	}
	return store.File{DocumentID: d.ID, Role: store.FilePDF, Name: name, MIME: "application/pdf", Content: rendered}, nil
}

// KeepSeal stores an entity's seal (its key encrypted by the store): from now on the service signs
// what the entity issues.
func KeepSeal(ctx context.Context, st *store.Store, entityID int64, seal *signing.Seal) error {
	key, chain, err := seal.Export()
	if err != nil {
		return err
	}
	c := seal.Certificate
	return st.SaveSeal(ctx, store.Seal{
		EntityID: entityID, Subject: signing.DisplayName(c.Subject), Issuer: signing.DisplayName(c.Issuer), Serial: c.SerialNumber.Text(16),
		NotBefore: c.NotBefore.UTC().Format(time.RFC3339), NotAfter: c.NotAfter.UTC().Format(time.RFC3339), Key: key, Chain: chain,
	})
}
