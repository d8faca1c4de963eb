package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"einvoice/store"
	"einvoice/ubl"
)

// A document's recipient-side state (its import, acceptance or rejection and the reason, its process
// state) belongs to the recipient that made it. An edit that sends the document to another customer
// cuts the previous recipient off (store.Tx.CutOffRecipient), and every reading of the document's
// history is the viewer's own.

// recipientOfRecord is the party a stored document goes to: its customer, or an order's supplier.
func recipientOfRecord(d store.Document) store.PartyKey {
	if d.Kind == kindOrder {
		return d.Supplier
	}
	return d.Customer
}

// recipientChanged tells whether an edit sends a document to another party than before: another
// entity here, or another tax ID (another name when neither has a tax ID).
func recipientChanged(before, after store.Document) bool {
	if before.RecipientID != after.RecipientID {
		return true
	}
	b, a := recipientOfRecord(before), recipientOfRecord(after)
	if b.NIF == "" && a.NIF == "" {
		return !strings.EqualFold(strings.TrimSpace(b.Name), strings.TrimSpace(a.Name))
	}
	return b.Country != a.Country || b.NIF != a.NIF
}

// historyFor is what a viewer sees of a document's history: all of it for the issuer; for the
// recipient, the entries written while it was the recipient, without the issuer's e-mail records, each
// change of state telling the state before it as this recipient saw it (none before its first).
func (w *Workflow) historyFor(ctx context.Context, d store.Document, viewer int64) ([]store.HistoryEntry, error) {
	if viewer == d.IssuerID {
		return w.store.History(ctx, d.ID)
	}
	entries, err := w.store.RecipientHistory(ctx, d.ID, viewer)
	if err != nil {
		return nil, err
	}
	seen := ""
	for i, h := range entries {
		if h.Kind != "state" {
			continue
		}
		var data map[string]any
		if err := json.Unmarshal(h.Data, &data); err == nil && data["previous_state"] != seen {
			delete(data, "previous_state")
			if seen != "" {
				data["previous_state"] = seen
			}
			if entries[i].Data, err = json.Marshal(data); err != nil {
				return nil, err
			}
		}
		seen = h.State
	}
	return entries, nil
}

// recipientOf finds the counterparty among the installation's entities by any of its identifiers that
// may be a tax ID (ubl.Party.TaxIDs), with or without the country prefix (without one, the country of
// its address, or PT); nil when none is an entity here. The same read finds the state of its connection
// with the issuer (store.Tx.ConnectionState).
func recipientOf(tx *store.Tx, issuerID int64, p ubl.Party) (*store.Entity, error) {
	for _, id := range p.TaxIDs() {
		country, nif := splitTaxID(id, cmp.Or(p.Address.Country, "PT"))
		if nif == "" {
			continue
		}
		e, err := tx.CounterpartyByNIF(issuerID, country, nif)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		return &e, err
	}
	return nil, nil
}
