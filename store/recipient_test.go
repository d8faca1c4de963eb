package store

import (
	"context"
	"testing"
)

// Each history entry belongs to the recipient the document had when it was written; cutting a
// recipient off clears what it had of the document and cancels what was on its way to it.
func TestRecipientHistoryAndCutOff(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	_, first, d := twoEntitiesAndADocument(t, s)
	second, _ := s.CreateEntity(ctx, NewEntity{Name: "C", Country: "PT", NIF: "503504564"})
	err := s.Update(ctx, func(tx *Tx) error {
		for _, h := range []HistoryEntry{{Kind: "state", State: StateSent, Description: "sent"}, {Kind: "import", Description: "imported"},
			{Kind: "email", Description: "email_queued"}, {Kind: "process_state", Description: "process_state"}} {
			h.DocumentID = d.ID
			if err := tx.AddHistory(h); err != nil {
				return err
			}
		}
		if _, err := tx.MarkImported(d.ID); err != nil {
			return err
		}
		if err := tx.SetProcessState(d.ID, "PAGO"); err != nil {
			return err
		}
		if err := tx.EnqueueWebhooks(first.ID, d.ID, "document.received", nil); err != nil {
			return err
		}
		return tx.Enqueue("webhook", first.ID, d.ID, map[string]any{"webhook_id": 1})
	})
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(recipient int64) string {
		entries, err := s.RecipientHistory(ctx, d.ID, recipient)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, h := range entries {
			if h.PublicID == "" {
				t.Fatalf("entry %d has no public id", h.ID)
			}
			out += h.Kind + ";"
		}
		return out
	}
	if got := kinds(first.ID); got != "state;import;process_state;" {
		t.Fatalf("the first recipient's history: %s", got)
	}

	err = s.Update(ctx, func(tx *Tx) error {
		d.RecipientID = second.ID
		if err := tx.SaveDocument(&d); err != nil {
			return err
		}
		if err := tx.CutOffRecipient(d.ID, first.ID); err != nil {
			return err
		}
		return tx.AddHistory(HistoryEntry{DocumentID: d.ID, Kind: "state", State: StateSent, Description: "sent"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := kinds(second.ID); got != "state;" {
		t.Fatalf("the second recipient's history: %s", got)
	}
	if got := kinds(first.ID); got != "state;import;process_state;" {
		t.Fatalf("the first recipient's history after the cut: %s", got)
	}
	if all, _ := s.History(ctx, d.ID); len(all) != 5 {
		t.Fatalf("the issuer's history has %d entries, want 5", len(all))
	}
	got, _ := s.DocumentByID(ctx, d.ID)
	if got.ImportedAt != "" || got.ProcessState != "" || got.ProcessStateAt != "" {
		t.Fatalf("the recipient-side state stayed: %+v", got)
	}
	if due, _ := s.ClaimOutbox(ctx, "webhook", "9999", "9999", 10); len(due) != 0 {
		t.Fatalf("%d deliveries still due to the previous recipient", len(due))
	}
}

// The migration of an existing database tags its history with the documents' recipients and keeps one
// visual PDF per document, the one that was served. The migration is SQLite's: PostgreSQL's schema
// starts after it.
func TestRecipientMigrationOfAnExistingDatabase(t *testing.T) {
	dir := t.TempDir()
	s := openSQLite(t, dir)
	ctx := context.Background()
	_, recipient, d := twoEntitiesAndADocument(t, s)
	// The database as it was before the migration, with what it allowed.
	if _, err := s.writer.Exec(`DROP INDEX document_files_one_pdf; DROP TRIGGER document_history_recipient;
		ALTER TABLE document_history DROP COLUMN recipient_id; DELETE FROM schema_migrations WHERE version = '0007_recipient_history_and_pdf'`); err != nil {
		t.Fatal(err)
	}
	for _, content := range []string{"served", "stored twice"} {
		if _, err := s.writer.Exec(`INSERT INTO document_files (document_id, role, name, mime, size, sha256, content, created_at)
			VALUES (?, 'pdf', 'N1.pdf', 'application/pdf', 1, x'00', ?, '2026-01-01 00:00:00')`, d.ID, content); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.writer.Exec(`INSERT INTO document_history (document_id, kind, description, created_at)
		VALUES (?, 'import', 'imported', '2026-01-01 00:00:00')`, d.ID); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openSQLite(t, dir)
	if entries, err := s.RecipientHistory(ctx, d.ID, recipient.ID); err != nil || len(entries) != 1 {
		t.Fatalf("the recipient's history after the migration: %v %v", entries, err)
	}
	f, err := s.DocumentFileByRole(ctx, d.ID, FilePDF)
	if err != nil || string(f.Content) != "served" {
		t.Fatalf("the PDF kept: %q %v", f.Content, err)
	}
	if kept, err := s.KeepRenderedPDF(ctx, File{DocumentID: d.ID, Name: "N1.pdf", MIME: "application/pdf", Content: []byte("x")}, 0); err != nil || kept.ID != f.ID {
		t.Fatalf("after the migration: %+v %v", kept, err)
	}
}
