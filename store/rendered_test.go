package store

import (
	"context"
	"errors"
	"testing"
)

// twoEntitiesAndADocument makes an issuer, a recipient and a document from one to the other.
func twoEntitiesAndADocument(t *testing.T, s *Store) (issuer, recipient Entity, d Document) {
	t.Helper()
	ctx := context.Background()
	issuer, _ = s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "508025338"})
	recipient, _ = s.CreateEntity(ctx, NewEntity{Name: "B", Country: "PT", NIF: "500000000"})
	d = Document{IssuerID: issuer.ID, RecipientID: recipient.ID, Kind: "invoice", TypeCode: "FT", Number: "N1", EmissionDate: "2026-11-20",
		Currency: "EUR", PayableAmount: "1.00", State: StateSent, EDIState: "delivered", Method: "ubl", Data: []byte("{}")}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.SaveDocument(&d) }); err != nil {
		t.Fatal(err)
	}
	return issuer, recipient, d
}

// The rendered PDF is kept once per version of its document: the first one kept wins, and one
// rendered from a version an edit has replaced is refused.
func TestKeepRenderedPDFOncePerVersion(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	_, _, d := twoEntitiesAndADocument(t, s)
	pdf := func(content string) File {
		return File{DocumentID: d.ID, Role: FilePDF, Name: "N1.pdf", MIME: "application/pdf", Content: []byte(content)}
	}
	for _, content := range []string{"first", "second"} {
		kept, err := s.KeepRenderedPDF(ctx, pdf(content), 0)
		if err != nil || string(kept.Content) != "first" || kept.ID == 0 {
			t.Fatalf("keeping %s: %q %v", content, kept.Content, err)
		}
	}
	if got, _ := s.DocumentByID(ctx, d.ID); !got.HasPDF {
		t.Fatal("has_pdf not set")
	}
	err := s.Update(ctx, func(tx *Tx) error {
		d.Edits++
		if err := tx.SaveDocument(&d); err != nil {
			return err
		}
		return tx.ReplaceFiles(d.ID, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.KeepRenderedPDF(ctx, pdf("of the old version"), 0); !errors.Is(err, ErrConflict) {
		t.Fatalf("a PDF of a replaced version: %v", err)
	}
	if kept, err := s.KeepRenderedPDF(ctx, pdf("new"), 1); err != nil || string(kept.Content) != "new" {
		t.Fatalf("the new version's PDF: %q %v", kept.Content, err)
	}
	if _, err := s.KeepRenderedPDF(ctx, File{DocumentID: d.ID + 100, Content: []byte("x")}, 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no document: %v", err)
	}
}
