package server

import (
	"context"
	"errors"
	"fmt"
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
func (s *Server) sealFor(ctx context.Context, e store.Entity) (*signing.Seal, error) {
	if e.SignsItself || !e.ServiceSigning { // the store sets ServiceSigning exactly while a seal is kept
		return nil, nil
	}
	rec, err := s.store.SealOf(ctx, e.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	seal, err := signing.ParseSeal(rec.Key, rec.Chain)
	if err != nil {
		return nil, err
	}
	if err := seal.ValidAt(s.now()); err != nil {
		return nil, FieldErrors{"seal": {Code: CodeSealUnusable, Details: map[string]string{
			"subject": rec.Subject, "not_before": rec.NotBefore, "not_after": rec.NotAfter}}}
	}
	return seal, nil
}

// signPDF adds the service's PAdES signature, made now with the seal.
func (s *Server) signPDF(pdf []byte, seal *signing.Seal) ([]byte, error) {
	return signing.SignPDF(pdf, seal, s.now(), signing.PDFOptions{Reason: signingReason})
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
func (s *Server) prepareUploads(issuer store.Entity, seal *signing.Seal, flags deliveryFlags, m *ubl.Document, uploads []upload, lang string) ([]upload, error) {
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
		rendered, err := pdf.Render(m, pdf.Options{Lang: lang, Now: s.now()})
		if err != nil {
			return nil, fmt.Errorf("rendering the PDF: %w", err)
		}
		uploads = append([]upload{{field: "file", name: safeFileName(m.Number) + ".pdf", mime: "application/pdf", content: rendered}}, uploads...)
	}
	if seal == nil || flags.disablePDFSign {
		return uploads, nil
	}
	for i, u := range uploads {
		if u.mime != "application/pdf" {
			continue
		}
		signed, err := s.signPDF(u.content, seal)
		if err != nil {
			return nil, FieldErrors{u.field: {Code: CodeAttachmentType, Text: map[string]string{
				"pt": "O PDF " + u.name + " não pode ser assinado: " + err.Error(), "en": "The PDF " + u.name + " cannot be signed: " + err.Error()}}}
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

// signStoredPDFs signs, for the copies kept beside an XML, the PDFs it embeds.
func (s *Server) signStoredPDFs(files []store.File, seal *signing.Seal) []store.File {
	for i, f := range files {
		if f.MIME != "application/pdf" {
			continue
		}
		if signed, err := s.signPDF(f.Content, seal); err == nil {
			files[i].Content = signed
		}
	}
	return files
}

// documentPDF is a document's visual PDF (d as DocumentByID reads it, with its model): the stored one, or
// one rendered now from its model (signed when the service signs for the issuer) and kept for next time.
func (s *Server) documentPDF(ctx context.Context, d store.Document, lang string) (store.File, error) {
	f, err := s.store.DocumentFileByRole(ctx, d.ID, store.FilePDF)
	if !errors.Is(err, store.ErrNotFound) {
		return f, err
	}
	m, _, err := decodeDocumentData(d.Data)
	if err != nil {
		return f, err
	}
	rendered, err := pdf.Render(m, pdf.Options{Lang: lang, Now: s.now()})
	if err != nil {
		return f, err
	}
	if !d.DisablePDFSign {
		issuer, err := s.store.EntityByID(ctx, d.IssuerID)
		if err != nil {
			return f, err
		}
		if seal, err := s.sealFor(ctx, issuer); err == nil && seal != nil {
			if signed, err := s.signPDF(rendered, seal); err == nil {
				rendered = signed
			}
		}
	}
	f = store.File{DocumentID: d.ID, Role: store.FilePDF, Name: safeFileName(d.Number) + ".pdf", MIME: "application/pdf", Content: rendered}
	err = s.store.Update(ctx, func(tx *store.Tx) error { return tx.AddFile(f) })
	return f, err
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
