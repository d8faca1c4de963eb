package server

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"einvoice/mailer"
	"einvoice/server/i18n"
	"einvoice/store"
)

// Notices: short e-mails to an entity's own portal users when it receives a document or one it issued
// is rejected (see UpdateNotifications). The change that causes one queues it in the outbox in its own
// transaction; this job reads who it goes to when it sends it, through the documents' mail transport,
// and tries again on the mail retry schedule.

const jobNotices = "notices"

// noticePayload is what an outbox row of kind notice carries.
type noticePayload struct {
	Event  string `json:"event"`
	Reason string `json:"reason"`
}

// deliverNotices sends every due notice, a batch at a time.
func (s *Server) deliverNotices(ctx context.Context) error {
	return s.deliverMail(ctx, "notice", s.composeNotice)
}

// deliverMail claims every due e-mail of an outbox kind, a batch at a time, and sends it; compose
// writes the message of a row (nil: no one to tell).
func (s *Server) deliverMail(ctx context.Context, kind string, compose func(context.Context, store.OutboxItem) (*mailer.Message, error)) error {
	for ctx.Err() == nil {
		now, leaseUntil := s.claimTimes()
		due, err := s.store.ClaimOutbox(ctx, kind, now, leaseUntil, s.cfg.Mail.Batch)
		if err != nil || len(due) == 0 {
			return err
		}
		var results []store.OutboxResult
		var msgs []*mailer.Message
		var sending []store.OutboxItem
		transport, terr := s.mailTransport()
		for _, item := range due {
			m, err := compose(ctx, item)
			switch {
			case terr != nil:
				results = append(results, s.mailOutcome(item, terr))
			case err != nil:
				results = append(results, store.OutboxResult{ID: item.ID, Failed: true, Error: err.Error()})
			case m == nil: // no one to tell
				results = append(results, store.OutboxResult{ID: item.ID, Done: true})
			default:
				msgs, sending = append(msgs, m), append(sending, item)
			}
		}
		if len(msgs) > 0 {
			transport.Send(ctx, msgs, func(i int, err error) { results = append(results, s.mailOutcome(sending[i], err)) })
		}
		// Written even when the job is being stopped: what was sent stays sent.
		if err := s.store.RecordOutbox(context.WithoutCancel(ctx), results); err != nil {
			return err
		}
		if terr != nil {
			return terr
		}
		if len(due) < s.cfg.Mail.Batch {
			return nil
		}
	}
	return ctx.Err()
}

// mailOutcome is what a sending's result means for its outbox row.
func (s *Server) mailOutcome(item store.OutboxItem, err error) store.OutboxResult {
	r := store.OutboxResult{ID: item.ID, Done: err == nil}
	if err != nil {
		r.Error = err.Error()
		if r.NextAt = s.nextEmailAttempt(item.Attempts); r.NextAt == "" || mailer.Permanent(err) {
			r.Failed = true
		}
	}
	return r
}

// composeNotice writes the message of a notice, in Portuguese unless every user it goes to prefers
// English; nil when the entity has no one to tell.
func (s *Server) composeNotice(ctx context.Context, item store.OutboxItem) (*mailer.Message, error) {
	var p noticePayload
	if err := json.Unmarshal(item.Payload, &p); err != nil {
		return nil, fmt.Errorf("unreadable payload: %w", err)
	}
	to, cc, err := s.store.NoticeAddresses(ctx, item.EntityID)
	if err != nil {
		return nil, err
	}
	if len(to) == 0 && len(cc) == 0 {
		return nil, nil
	}
	if len(to) == 0 { // the copies go to someone: the first of them is the recipient
		to, cc = []store.Addressee{{Address: cc[0]}}, cc[1:]
	}
	lang := i18n.EN
	addresses := make([]string, len(to))
	for i, a := range to {
		addresses[i] = a.Address
		if a.Lang != i18n.EN {
			lang = i18n.PT
		}
	}
	d, err := s.store.DocumentByID(ctx, item.DocumentID)
	if err != nil {
		return nil, err
	}
	kind := typeFactOf(d.TypeCode, lang).Description
	amount := d.PayableAmount
	if lang == i18n.PT {
		amount = strings.Replace(amount, ".", ",", 1)
	}
	link := s.baseURL() + "/portal/documents/" + DocumentRef(d)
	var subject, body string
	switch p.Event {
	case store.NoticeReceived:
		subject = i18n.T(lang, "notice.received.subject", kind, d.Number, d.Supplier.Name)
		body = i18n.T(lang, "notice.received.body", kind, d.Number, d.Supplier.Name, amount, d.Currency, link)
	case store.NoticeRejected:
		subject = i18n.T(lang, "notice.rejected.subject", kind, d.Number, d.Customer.Name)
		body = i18n.T(lang, "notice.rejected.body", kind, d.Number, d.Customer.Name, p.Reason, link)
	default:
		return nil, fmt.Errorf("unknown notice event %q", p.Event)
	}
	return mailer.ComposeNotice(mailer.Notice{
		Lang: lang, To: addresses, CC: cc, Subject: subject, Body: body + "\n\n" + i18n.T(lang, "notice.footer") + "\n",
		From:      mailer.Sender{Name: cmp.Or(s.cfg.Mail.FromName, "einvoice"), Address: s.cfg.Mail.FromAddress},
		MessageID: mailer.NewMessageID(mailer.Domain(s.cfg.Mail.FromAddress)), ReturnPath: s.returnPath(), Date: s.now(),
	})
}
