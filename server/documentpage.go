package server

import (
	"context"
	"errors"

	"einvoice/store"
	"einvoice/ubl"
)

// A document as one of its parties sees it in the portal: the same rules as the API's (the issuer
// always; the recipient once the document was delivered to it; anyone else: not found).

// DocumentDetail is a document, its model and its records, as the entity of an access sees them.
type DocumentDetail struct {
	Document      store.Document
	Model         *ubl.Document
	Lang          string // the language the document was issued in
	Files         []store.File
	History       []store.HistoryEntry
	Emails        []store.Email // the issuer's only
	AsIssuer      bool
	ProcessStates []store.ProcessState // the recipient's, when its feature is on
}

// partyDocument reads the document named by ref (its public id) when the entity is a party to it: its
// issuer, or its recipient once it was delivered. Anything else is the same 404.
func (w *Workflow) partyDocument(ctx context.Context, entityID int64, ref string) (store.Document, error) {
	id, err := w.store.ParsePublicID(store.KindDocument, ref)
	if err != nil {
		return store.Document{}, fail(CodeNotFound)
	}
	d, err := w.store.DocumentByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) || err == nil && d.IssuerID != entityID && (d.RecipientID != entityID || d.State == store.StateToSend) {
		return store.Document{}, fail(CodeNotFound)
	}
	return d, err
}

// DocumentDetail reads a document with everything its page shows.
func (w *Workflow) DocumentDetail(ctx context.Context, a Access, ref string) (DocumentDetail, error) {
	d, err := w.partyDocument(ctx, a.Entity.ID, ref)
	if err != nil {
		return DocumentDetail{}, err
	}
	v := DocumentDetail{Document: d, AsIssuer: d.IssuerID == a.Entity.ID}
	if v.Model, v.Lang, err = decodeDocumentData(d.Data); err != nil {
		return DocumentDetail{}, err
	}
	if v.Files, err = w.store.DocumentFiles(ctx, d.ID); err != nil {
		return DocumentDetail{}, err
	}
	if v.History, err = w.historyFor(ctx, d, a.Entity.ID); err != nil {
		return DocumentDetail{}, err
	}
	if v.AsIssuer {
		if v.Emails, err = w.store.DocumentEmails(ctx, d.ID); err != nil {
			return DocumentDetail{}, err
		}
	} else if a.Entity.ProcessStatesEnabled {
		if v.ProcessStates, err = w.store.ProcessStates(ctx, a.Entity.ID); err != nil {
			return DocumentDetail{}, err
		}
	}
	return v, nil
}

// DocumentFile is one file of a document for a party to it: "xml", "pdf" (rendered and kept on first
// request when the document came without one) or a file's public id.
func (w *Workflow) DocumentFile(ctx context.Context, a Access, ref, file string) (store.File, error) {
	d, err := w.partyDocument(ctx, a.Entity.ID, ref)
	if err != nil {
		return store.File{}, err
	}
	f, err := w.fileOf(ctx, d, file)
	if errors.Is(err, store.ErrNotFound) {
		return store.File{}, fail(CodeNotFound)
	}
	if err == nil {
		f.Name = cleanFileName(f.Name, f.MIME)
	}
	return f, err
}
