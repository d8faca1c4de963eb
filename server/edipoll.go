package server

import (
	"context"
	"errors"
	"slices"

	"einvoice/server/edi"
	"einvoice/store"
)

const jobEDIPoll = "edi_poll"

// pollEDI asks every partner of a connector that polls (an upstream broker) what became of the
// documents delivered to it, applies each change to the document it concerns and confirms them.
func (s *Server) pollEDI(ctx context.Context) error {
	s.edi.mu.RLock()
	kinds := make(map[string]edi.Poller)
	for kind, c := range s.edi.connectors {
		if p, ok := c.(edi.Poller); ok {
			kinds[kind] = p
		}
	}
	s.edi.mu.RUnlock()
	var errs []error
	for kind, p := range kinds {
		partners, err := s.store.EDIPartners(ctx, kind)
		if err != nil {
			return err
		}
		for _, partner := range partners {
			errs = append(errs, s.pollPartner(ctx, kind, partner, p))
		}
	}
	return errors.Join(errs...)
}

// pollPartner applies one partner's changes.
func (s *Server) pollPartner(ctx context.Context, kind, partner string, p edi.Poller) error {
	updates, err := p.Poll(ctx, partner)
	if err != nil || len(updates) == 0 {
		return err
	}
	for _, u := range updates {
		if err := s.ApplyRemoteState(context.WithoutCancel(ctx), kind, partner, u); err != nil {
			return err
		}
	}
	s.jobs.trigger(jobWebhooks)
	return p.Confirm(ctx, partner, updates)
}

// ApplyRemoteState applies what a polled partner says became of a document delivered to it. A change
// about a delivery this installation does not know, or that does not apply where the document stands,
// changes nothing.
func (w *Workflow) ApplyRemoteState(ctx context.Context, kind, partner string, u edi.Update) error {
	return w.store.Update(ctx, func(tx *store.Tx) error {
		d, err := tx.EDIDeliveryByRemoteID(kind, partner, u.RemoteID)
		if errors.Is(err, store.ErrNotFound) || err == nil && (d.RemoteState == u.Code || !slices.Contains(espapCodes, docEvent(u.Code))) {
			return nil
		} else if err != nil {
			return err
		}
		if err := tx.SetEDIState(d.ID, d.State, u.Code, ""); err != nil {
			return err
		}
		doc, err := tx.DocumentByID(d.DocumentID)
		if err != nil {
			return err
		}
		if _, ok := permit(docEvent(u.Code), byEDI, doc); !ok {
			return nil
		}
		return applyEDIStatus(tx, &doc, u.Code, u.Description)
	})
}
