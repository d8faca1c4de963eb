package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// On PostgreSQL, write transactions run side by side (on SQLite one at a time, where these tests hold
// trivially). A transaction that decides from what it read must still find it so when it writes: the
// same change started from many goroutines at once is made once.

// raceWindow is how long each transaction waits between what it reads and what it writes, so that
// without a lock all of them would read the same thing.
const raceWindow = 100 * time.Millisecond

// atOnce runs fn from n goroutines started together and returns their errors.
func atOnce(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = fn(i)
		})
	}
	close(start)
	wg.Wait()
	return errs
}

// Many recipients' decisions on one sent document at once (accept or reject): exactly one is made.
func TestConcurrentDecisionsOnOneDocumentOneWins(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	_, _, d := twoEntitiesAndADocument(t, s)
	decided := errors.New("decided already")
	errs := atOnce(8, func(i int) error {
		return s.Update(ctx, func(tx *Tx) error {
			doc, err := tx.DocumentByID(d.ID)
			if err != nil {
				return err
			}
			if doc.State != StateSent {
				return decided
			}
			time.Sleep(raceWindow)
			doc.State = []string{StateAccepted, StateRejected}[i%2]
			if err := tx.SaveDocument(&doc); err != nil {
				return err
			}
			return tx.AddHistory(HistoryEntry{DocumentID: d.ID, Kind: "state", State: doc.State, Description: "decided"})
		})
	})
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, decided):
			t.Errorf("a decision failed: %v", err)
		}
	}
	var history int
	if err := s.reader.QueryRow(`SELECT count(*) FROM document_history WHERE document_id = ? AND kind = 'state'`, d.ID).Scan(&history); err != nil {
		t.Fatal(err)
	}
	if won != 1 || history != 1 {
		t.Fatalf("%d decisions made, %d recorded; want exactly one", won, history)
	}
}

// Many uploads of one new document (one natural key) at once: one makes it, each other one edits it
// (none fails because another made it first).
func TestConcurrentUploadsOfOneNewDocumentMakeOneAndEditIt(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	issuer, err := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "508025338"})
	if err != nil {
		t.Fatal(err)
	}
	const uploads = 6
	errs := atOnce(uploads, func(int) error {
		return s.Update(ctx, func(tx *Tx) error {
			doc, err := tx.DocumentByKey(issuer.ID, "N1", "FT", "2026-11-20")
			if errors.Is(err, ErrNotFound) {
				doc = Document{IssuerID: issuer.ID, Kind: "invoice", TypeCode: "FT", Number: "N1", EmissionDate: "2026-11-20",
					Currency: "EUR", PayableAmount: "1.00", State: StateToSend, EDIState: "pending", Method: "ubl", Data: []byte("{}")}
			} else if err != nil {
				return err
			} else {
				doc.Edits++
			}
			time.Sleep(raceWindow)
			return tx.SaveDocument(&doc)
		})
	})
	for _, err := range errs {
		if err != nil {
			t.Fatalf("an upload failed: %v", err)
		}
	}
	var n, edits, issued int
	if err := s.reader.QueryRow(`SELECT count(*), max(edits) FROM documents WHERE issuer_id = ?`, issuer.ID).Scan(&n, &edits); err != nil {
		t.Fatal(err)
	}
	if err := s.reader.QueryRow(`SELECT issued FROM entity_counts WHERE entity_id = ?`, issuer.ID).Scan(&issued); err != nil {
		t.Fatal(err)
	}
	if n != 1 || edits != uploads-1 || issued != 1 {
		t.Fatalf("%d documents (counted %d), %d edits; want 1 document edited %d times", n, issued, edits, uploads-1)
	}
}

// A claim of due EDI deliveries while another one is under way (another process's job) takes the
// deliveries the other does not hold, never the same ones once the other commits.
func TestAClaimUnderWayKeepsItsDeliveries(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	_, _, d := twoEntitiesAndADocument(t, s)
	const deliveries = 20
	if err := s.Update(ctx, func(tx *Tx) error {
		for i := range deliveries {
			if err := tx.QueueEDI(EDIDelivery{DocumentID: d.ID, Version: i, Kind: "document", Connector: "as2", Partner: "p",
				FromNIF: "PT508025338", ToNIF: "PT500000000", MessageID: RandomToken(12)}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Add(time.Minute)
	at, lease := now.Format(TimeLayout), now.Add(time.Hour).Format(TimeLayout)
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	query, args := s.claimEDI(at, lease, deliveries/2, 0)
	first, err := scanEDIs(tx.QueryContext(ctx, query, args...))
	if err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	type claim struct {
		got []EDIDelivery
		err error
	}
	done := make(chan claim, 1)
	go func() {
		got, err := s.ClaimEDI(ctx, at, lease, deliveries, 0)
		done <- claim{got, err}
	}()
	time.Sleep(3 * raceWindow) // the second claim runs (PostgreSQL) or waits for the writer (SQLite)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	second := <-done
	if second.err != nil {
		t.Fatal(second.err)
	}
	claimed := map[int64]int{}
	for _, d := range append(first, second.got...) {
		claimed[d.ID]++
	}
	for id, n := range claimed {
		if n != 1 {
			t.Errorf("delivery %d claimed %d times", id, n)
		}
	}
	if len(first) != deliveries/2 || len(claimed) != deliveries {
		t.Errorf("claimed %d first and %d in all, want %d and %d", len(first), len(claimed), deliveries/2, deliveries)
	}
}
