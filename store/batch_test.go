package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"

	"einvoice/store/pgtest"

	"github.com/jackc/pgx/v5"
)

// A creation's repeated rows are written by one statement each: every file of a document, and an
// outbox row for each webhook that takes the event.

// draftInvoice is a new invoice of issuer numbered number, waiting to be sent.
func draftInvoice(issuer int64, number string) Document {
	return Document{IssuerID: issuer, Kind: "invoice", TypeCode: "FT", Number: number, EmissionDate: "2026-11-20",
		Currency: "EUR", PayableAmount: "1.00", State: StateToSend, EDIState: "pending", Method: "ubl"}
}

func TestReplaceFilesStoresEveryFileInOrder(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	issuer, err := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "508025338"})
	if err != nil {
		t.Fatal(err)
	}
	var files []File
	for i := range 130 { // more than one statement's worth
		files = append(files, File{Role: FileAttachment, Name: fmt.Sprintf("f%d.txt", i), MIME: "text/plain", Content: []byte(fmt.Sprint("content ", i))})
	}
	files[0].Role = FileXML
	var doc Document
	err = s.Update(ctx, func(tx *Tx) error {
		doc = draftInvoice(issuer.ID, "FT 1")
		if err := tx.SaveDocument(&doc); err != nil {
			return err
		}
		if err := tx.ReplaceFiles(doc.ID, files[:3]); err != nil { // replaced below
			return err
		}
		return tx.ReplaceFiles(doc.ID, files)
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.DocumentFiles(ctx, doc.ID)
	if err != nil || len(got) != len(files) {
		t.Fatalf("%d files, %v", len(got), err)
	}
	for i, f := range got {
		if f.Name != files[i].Name || f.Role != files[i].Role || f.Size != int64(len(files[i].Content)) || len(f.SHA256) != 32 {
			t.Fatalf("file %d: %+v", i, f)
		}
	}
	last, err := s.DocumentFile(ctx, doc.ID, got[129].ID)
	if err != nil || !bytes.Equal(last.Content, files[129].Content) {
		t.Fatalf("content of the last: %q %v", last.Content, err)
	}
}

func TestEnqueueWebhooksOnePerWebhookTakingTheEvent(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	a, _ := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "508025338"})
	b, _ := s.CreateEntity(ctx, NewEntity{Name: "B", Country: "PT", NIF: "500000000"})
	var takes []int64
	for _, w := range []Webhook{
		{EntityID: a.ID, URL: "https://a.example/1", Key: "k", Events: []string{"document.received", "document.state_changed"}},
		{EntityID: a.ID, URL: "https://a.example/2", Key: "k", Events: []string{"document.received.extra"}}, // not a match
		{EntityID: a.ID, URL: "https://a.example/3", Key: "k", Events: []string{"document.state_changed"}},
		{EntityID: b.ID, URL: "https://b.example/1", Key: "k", Events: []string{"document.state_changed"}}, // another entity
	} {
		created, err := s.CreateWebhook(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		if w.EntityID == a.ID && w.Events[len(w.Events)-1] == "document.state_changed" {
			takes = append(takes, created.ID)
		}
	}
	err := s.Update(ctx, func(tx *Tx) error {
		return tx.EnqueueWebhooks(a.ID, 0, "document.state_changed", map[string]any{"state": "sent", "previous_state": ""})
	})
	if err != nil {
		t.Fatal(err)
	}
	due, err := s.ClaimOutbox(ctx, "webhook", "9999-12-31 23:59:59", "9999-12-31 23:59:59", 100)
	if err != nil || len(due) != len(takes) {
		t.Fatalf("%d outbox rows for %d webhooks, %v", len(due), len(takes), err)
	}
	for i, item := range due {
		var p struct {
			WebhookID int64  `json:"webhook_id"`
			Event     string `json:"event"`
			State     string `json:"state"`
		}
		if err := json.Unmarshal(item.Payload, &p); err != nil {
			t.Fatal(err)
		}
		if item.EntityID != a.ID || item.DocumentID != 0 || p.WebhookID != takes[i] || p.Event != "document.state_changed" || p.State != "sent" {
			t.Errorf("row %d: %+v %s", i, item, item.Payload)
		}
	}
}

// A transaction's writes whose outcome it needs only at its end (on PostgreSQL sent together, before
// the next statement or the commit) are seen by its later statements, count what they wrote, and fail
// the transaction with their own error, leaving nothing written.
func TestWritesSentTogetherKeepTheirOrderAndErrors(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	a, _ := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "508025338"})
	if _, err := s.CreateWebhook(ctx, Webhook{EntityID: a.ID, URL: "https://hooks.example/a", Key: "k", Events: []string{"document.received"}}); err != nil {
		t.Fatal(err)
	}
	var doc Document
	var queued *int64
	err := s.Update(ctx, func(tx *Tx) error {
		queued = tx.QueuedWebhooks()
		doc = draftInvoice(a.ID, "FT 1")
		if err := tx.SaveDocument(&doc); err != nil {
			return err
		}
		if err := tx.AddHistory(HistoryEntry{DocumentID: doc.ID, Kind: "state", Description: "created"}); err != nil {
			return err
		}
		if err := tx.EnqueueWebhooks(a.ID, doc.ID, "document.received", nil); err != nil {
			return err
		}
		// A later read sees the history entry written before it.
		var n int
		if err := tx.queryRow(`SELECT count(*) FROM document_history WHERE document_id = ?`, doc.ID).Scan(&n); err != nil || n != 1 {
			t.Errorf("history entries seen in the transaction: %d %v", n, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if *queued != 1 {
		t.Errorf("queued webhooks: %d, want 1", *queued)
	}

	// A write that fails (a history entry of no document) fails the transaction with its own error,
	// also when a read follows it, and the document written before it is not kept.
	err = s.Update(ctx, func(tx *Tx) error {
		d := draftInvoice(a.ID, "FT 2")
		if err := tx.SaveDocument(&d); err != nil {
			return err
		}
		if err := tx.AddHistory(HistoryEntry{DocumentID: d.ID + 1000, Kind: "state", Description: "created"}); err != nil {
			return err
		}
		_, err := tx.DocumentByID(d.ID)
		return err
	})
	if err == nil {
		t.Fatal("a history entry of no document was written")
	}
	if code := pgCode(err); s.Shared() && code != "23503" {
		t.Fatalf("error %v (code %q), want the foreign-key violation itself", err, code)
	}
	var kept int
	if err := s.reader.QueryRow(`SELECT count(*) FROM documents WHERE number = 'FT 2'`).Scan(&kept); err != nil || kept != 0 {
		t.Fatalf("documents of the failed transaction kept: %d %v", kept, err)
	}

	// The same when the failing write is the transaction's last, sent with its commit, or when the
	// work ignored the error of the read that carried it.
	for _, ignore := range []bool{false, true} {
		err = s.Update(ctx, func(tx *Tx) error {
			d := draftInvoice(a.ID, "FT 3")
			if err := tx.SaveDocument(&d); err != nil {
				return err
			}
			if err := tx.AddHistory(HistoryEntry{DocumentID: d.ID + 1000, Kind: "state", Description: "created"}); err != nil {
				return err
			}
			if ignore {
				tx.DocumentByID(d.ID)
			}
			return nil
		})
		if err == nil {
			t.Fatalf("ignoring the read's error %v: a history entry of no document was committed", ignore)
		}
		if code := pgCode(err); s.Shared() && code != "23503" {
			t.Fatalf("ignoring the read's error %v: error %v (code %q), want the foreign-key violation", ignore, err, code)
		}
		if err := s.reader.QueryRow(`SELECT count(*) FROM documents WHERE number = 'FT 3'`).Scan(&kept); err != nil || kept != 0 {
			t.Fatalf("documents of the failed transaction kept: %d %v", kept, err)
		}
	}

	// A transaction that runs no statement, and one rolled back after its writes, leave the
	// connection ready for the next.
	if err := s.Update(ctx, func(tx *Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		d := draftInvoice(a.ID, "FT 4")
		if err := tx.SaveDocument(&d); err != nil {
			return err
		}
		if err := tx.AddHistory(HistoryEntry{DocumentID: d.ID, Kind: "state", Description: "created"}); err != nil {
			return err
		}
		return ErrConflict
	})
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("the work's own error: %v", err)
	}
	// Every connection of the pool, held at once so that each is a different one, works and is in no
	// transaction.
	var conns []*sql.Conn
	for range s.writer.Stats().MaxOpenConnections {
		c, err := s.writer.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	for i, c := range conns {
		var n int
		if err := c.QueryRowContext(ctx, `SELECT count(*) FROM documents WHERE number IN ('FT 1', 'FT 4')`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("connection %d, documents after the rollback: %d %v", i, n, err)
		}
		if !s.Shared() {
			continue
		}
		if err := c.Raw(func(dc any) error {
			pc := dc.(*placeholderConn)
			if status := pc.Conn.Conn().PgConn().TxStatus(); status != 'I' || pc.inTx || len(pc.waiting) > 0 || pc.failed != nil {
				return fmt.Errorf("status %c, in a transaction %v, %d statements waiting, failed %v", status, pc.inTx, len(pc.waiting), pc.failed)
			}
			return nil
		}); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
	}
}

// On PostgreSQL a statement that fails aborts its transaction: the work cannot go on past it, and
// ignoring its error does not commit what came before it.
func TestIgnoredFailureFailsTheTransaction(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	a, _ := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "508025338"})
	err := s.Update(ctx, func(tx *Tx) error {
		d := draftInvoice(a.ID, "FT 1")
		if err := tx.SaveDocument(&d); err != nil {
			return err
		}
		if _, err := tx.exec(`UPDATE documents SET state = 'nonsense' WHERE id = ?`, d.ID); err == nil {
			t.Error("a state the schema refuses was written")
		}
		return nil
	})
	var kept int
	if err := s.reader.QueryRow(`SELECT count(*) FROM documents`).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	if s.Shared() && (pgCode(err) != "23514" || kept != 0) {
		t.Fatalf("error %v (want the check violation 23514), %d documents kept", err, kept)
	}
	if !s.Shared() && (err != nil || kept != 1) { // SQLite undoes the failed statement alone
		t.Fatalf("error %v, %d documents kept", err, kept)
	}
}

// A read announced to the transaction (on PostgreSQL sent with its next statement) answers the same
// read when the transaction makes it, and only that read.
func TestAnnouncedReadAnswersTheSameRead(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	a, _ := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "508025338"})
	var doc Document
	err := s.Update(ctx, func(tx *Tx) error {
		doc = draftInvoice(a.ID, "FT 1")
		return tx.SaveDocument(&doc)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.ExpectDocumentByKey(a.ID, "FT 1", "FT", "2026-11-20"); err != nil {
			return err
		}
		if err := tx.ExpectDocumentByKey(a.ID, "FT 2", "FT", "2026-11-20"); err != nil {
			return err
		}
		if err := tx.ExpectDocumentByKey(a.ID, "FT 3", "FT", "2026-11-20"); err != nil { // never asked for
			return err
		}
		if _, err := tx.EntityByNIF("PT", "508025338"); err != nil { // the statement they go with
			return err
		}
		got, err := tx.DocumentByKey(a.ID, "FT 1", "FT", "2026-11-20")
		if err != nil || got.ID != doc.ID || got.Number != "FT 1" {
			t.Errorf("announced, existing: %+v %v", got, err)
		}
		if _, err := tx.DocumentByKey(a.ID, "FT 2", "FT", "2026-11-20"); !errors.Is(err, ErrNotFound) {
			t.Errorf("announced, missing: %v", err)
		}
		// The kept rows answer once: the same read again goes to the database and sees the
		// transaction's own writes.
		d := draftInvoice(a.ID, "FT 2")
		if err := tx.SaveDocument(&d); err != nil {
			return err
		}
		if got, err := tx.DocumentByKey(a.ID, "FT 2", "FT", "2026-11-20"); err != nil || got.ID != d.ID {
			t.Errorf("asked again after writing it: %+v %v", got, err)
		}
		if got, err := tx.DocumentByKey(a.ID, "FT 1", "FT", "2026-11-20"); err != nil || got.ID != doc.ID {
			t.Errorf("not announced: %+v %v", got, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// A read announced and then made as the transaction's next statement runs once, in its place,
	// and keeps nothing that a later same read could take.
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.ExpectDocumentByKey(a.ID, "FT 5", "FT", "2026-11-20"); err != nil {
			return err
		}
		if _, err := tx.DocumentByKey(a.ID, "FT 5", "FT", "2026-11-20"); !errors.Is(err, ErrNotFound) {
			t.Errorf("announced, then asked at once: %v", err)
		}
		d := draftInvoice(a.ID, "FT 5")
		if err := tx.SaveDocument(&d); err != nil {
			return err
		}
		if got, err := tx.DocumentByKey(a.ID, "FT 5", "FT", "2026-11-20"); err != nil || got.ID != d.ID {
			t.Errorf("asked again after writing it: %+v %v", got, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// roundTrips counts the statements and batches a PostgreSQL connection sends: each is one round trip
// once the connection has prepared its statements.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// A creation as issuing makes it (the document announced, the recipient read with its connection to
// the issuer, the document, its file, history entry and states-report event) answers the same on both
// engines, and on PostgreSQL travels in two round trips: BEGIN with the reads, then the writes with
// COMMIT. What SaveDocument returns is what is stored.
func TestCreationReadsAndWrites(t *testing.T) {
	ctx := context.Background()
	engines := map[string]*Store{"sqlite": openSQLite(t, t.TempDir())}
	trips := &roundTrips{}
	if pgtest.Server() != "" {
		cfg, err := pgx.ParseConfig(pgtest.NewPreparedDatabase(t, migrateTemplate))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Tracer = trips
		box, _ := newSecretBox(key)
		s, err := openPostgres(ctx, cfg, box)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		engines["postgres"] = s
	} else {
		t.Logf("%s is not set: the round trips on PostgreSQL are not counted", pgtest.EnvServer)
	}
	for name, s := range engines {
		t.Run(name, func(t *testing.T) {
			a, _ := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "508025338"})
			b, _ := s.CreateEntity(ctx, NewEntity{Name: "B", Country: "PT", NIF: "509442013"})
			c, _ := s.CreateEntity(ctx, NewEntity{Name: "C", Country: "PT", NIF: "500000000"})
			conn, err := s.CreateConnection(ctx, NewConnection{FromEntityID: b.ID, ToEntityID: a.ID, State: ConnApproved})
			if err != nil {
				t.Fatal(err)
			}
			create := func(number string, to Entity, wantState string) Document {
				var doc Document
				err := s.Update(ctx, func(tx *Tx) error {
					if err := tx.ExpectDocumentByKey(a.ID, number, "FT", "2026-11-20"); err != nil {
						return err
					}
					r, err := tx.CounterpartyByNIF(a.ID, to.Country, to.NIF)
					if err != nil || r.ID != to.ID {
						t.Fatalf("the recipient: %+v %v", r, err)
					}
					state, err := tx.ConnectionState(a.ID, r.ID)
					if state != wantState || (wantState == "") != errors.Is(err, ErrNotFound) {
						t.Errorf("%s: connection %q %v, want %q", number, state, err, wantState)
					}
					if _, err := tx.DocumentByKey(a.ID, number, "FT", "2026-11-20"); !errors.Is(err, ErrNotFound) {
						t.Errorf("%s: %v", number, err)
					}
					doc = draftInvoice(a.ID, number)
					doc.RecipientID, doc.Customer = r.ID, PartyKey{Country: "PT", NIF: r.NIF, Name: r.Name}
					doc.State, doc.EDIState, doc.Data = StateSent, "delivered", []byte(`{"n":1}`)
					if err := tx.SaveDocument(&doc); err != nil {
						return err
					}
					if err := tx.AddFiles(doc.ID, []File{{Role: FileXML, Name: "a.xml", MIME: "application/xml", Content: []byte("<a/>")}}); err != nil {
						return err
					}
					if err := tx.AddHistory(HistoryEntry{DocumentID: doc.ID, Kind: "state", State: StateSent, Description: StateSent}); err != nil {
						return err
					}
					return tx.AddStateEvent(StateEvent{EntityID: a.ID, DocumentID: doc.ID, State: StateSent, EDIState: "delivered"})
				})
				if err != nil {
					t.Fatal(err)
				}
				return doc
			}
			create("FT 1", b, ConnApproved) // the connections prepare their statements
			trips.n.Store(0)
			doc := create("FT 2", b, ConnApproved)
			if name == "postgres" {
				if n := trips.n.Load(); n != 2 {
					t.Errorf("a creation took %d round trips, want 2", n)
				}
			}
			create("FT 3", c, "") // no connection
			stored, err := s.DocumentByID(ctx, doc.ID)
			if err != nil || !reflect.DeepEqual(stored, doc) {
				t.Errorf("SaveDocument returned\n%+v\nstored\n%+v %v", doc, stored, err)
			}
			if files, err := s.DocumentFiles(ctx, doc.ID); err != nil || len(files) != 1 {
				t.Errorf("files: %+v %v", files, err)
			}
			// Asked the other way round, or without the recipient read, the connection is the same.
			err = s.Update(ctx, func(tx *Tx) error {
				for _, pair := range [][2]int64{{a.ID, b.ID}, {b.ID, a.ID}} {
					if state, err := tx.ConnectionState(pair[0], pair[1]); err != nil || state != conn.State {
						t.Errorf("%v: %q %v", pair, state, err)
					}
				}
				_, err := tx.ConnectionState(a.ID, c.ID)
				if !errors.Is(err, ErrNotFound) {
					t.Errorf("no connection: %v", err)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
