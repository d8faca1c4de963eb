package as2

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"sync"
	"time"

	"einvoice/server/edi"
)

// Handler is the inbound AS2 endpoint: partners' messages (handed to the Inbox and answered with a
// signed MDN, in the response or posted to the partner) and partners' asynchronous MDNs for messages
// sent from here (handed to Inbox.Acknowledge). A plain http.Handler, so any router can mount it.
type Handler struct {
	book    Book
	inbox   edi.Inbox
	opts    HandlerOptions
	slots   chan struct{} // asynchronous MDNs being posted
	pending sync.WaitGroup
}

// HandlerOptions bound what one request may cost.
type HandlerOptions struct {
	MaxBody int64         // bytes of one message, before and after decompression
	Timeout time.Duration // to read, process and answer one message
	Client  *http.Client  // posts asynchronous MDNs; its Timeout bounds one attempt (redirects are not followed)
	Log     *slog.Logger
}

// asyncMDNs bounds the asynchronous MDNs posted at once; a request waits for a free slot.
const asyncMDNs = 8

// mdnAttempts and mdnRetryWait: how an asynchronous MDN is retried. A partner that gets none resends
// the message, and its duplicate is answered again.
const (
	mdnAttempts  = 3
	mdnRetryWait = 2 * time.Second
)

// NewHandler builds the inbound endpoint.
func NewHandler(book Book, inbox edi.Inbox, opts HandlerOptions) *Handler {
	if opts.MaxBody <= 0 {
		opts.MaxBody = 25 << 20
	}
	if opts.Timeout <= 0 {
		opts.Timeout = time.Minute
	}
	client := http.Client{Timeout: 30 * time.Second}
	if opts.Client != nil {
		client = *opts.Client
	}
	client.CheckRedirect = noRedirects
	opts.Client = &client
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Handler{book: book, inbox: inbox, opts: opts, slots: make(chan struct{}, asyncMDNs)}
}

// Wait returns once every asynchronous MDN under way has been posted or given up.
func (h *Handler) Wait() { h.pending.Wait() }

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), h.opts.Timeout)
	defer cancel()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "AS2 messages are POSTed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		http.Error(w, "message too large", http.StatusRequestEntityTooLarge)
		return
	} else if err != nil {
		http.Error(w, "message not read", http.StatusBadRequest)
		return
	}
	from, to := unquoteID(r.Header.Get("AS2-From")), unquoteID(r.Header.Get("AS2-To"))
	messageID := bareMessageID(r.Header.Get("Message-ID"))
	if !ValidID(from) || !ValidID(to) || !validMessageID(messageID) {
		http.Error(w, "AS2-From, AS2-To and Message-ID are required", http.StatusBadRequest)
		return
	}
	self, err := h.book.Identity(ctx)
	if err != nil {
		h.fail(w, "identity", err)
		return
	}
	p, err := h.book.PartnerByID(ctx, from)
	if errors.Is(err, ErrUnknown) || err == nil && to != self.ID {
		http.Error(w, "unknown AS2 partner", http.StatusForbidden)
		return
	} else if err != nil {
		h.fail(w, "partner", err)
		return
	}
	o, fail := open(entity{header: textproto.MIMEHeader(r.Header), body: body}, self, p, h.opts.MaxBody)
	if fail == nil {
		if t, _ := o.inner.mediaType(); t == "multipart/report" {
			h.acknowledge(ctx, w, p, o)
			return
		}
	}
	if r.Header.Get("Disposition-Notification-To") == "" {
		h.receiveWithoutMDN(ctx, w, p, messageID, o, fail)
		return
	}
	asyncURL := strings.TrimSpace(r.Header.Get("Receipt-Delivery-Option"))
	if asyncURL != "" && !sameHost(asyncURL, p.URL) {
		http.Error(w, "Receipt-Delivery-Option must be on the partner's host", http.StatusBadRequest)
		return
	}
	modifier, micValue, err := h.receive(ctx, p, messageID, r.Header.Get("Disposition-Notification-Options"), o, fail)
	if err != nil {
		h.fail(w, "receive", err)
		return
	}
	mdn, err := buildMDN(self, p, messageID, modifier, micValue)
	if err != nil {
		h.fail(w, "mdn", err)
		return
	}
	header := mdnHeader(self, p, mdn)
	if asyncURL == "" {
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(http.StatusOK)
		w.Write(mdn.body)
		return
	}
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done(): // the message is kept; its repeat will be answered as a duplicate
		h.fail(w, "mdn", ctx.Err())
		return
	}
	h.pending.Add(1)
	go h.postMDN(asyncURL, header, mdn.body)
	w.WriteHeader(http.StatusOK)
}

// receive processes a message whose MDN is wanted and returns the MDN's disposition modifier and MIC.
// An error is one the partner should retry (answered 503, no MDN): the Inbox could not take the
// message now. An Inbox refusal (edi.Permanent) is an MDN with unexpected-processing-error.
func (h *Handler) receive(ctx context.Context, p Partner, messageID, options string, o opened, fail *failure) (modifier, micValue string, err error) {
	if fail != nil {
		h.opts.Log.Warn("as2 message refused", "partner", p.Name, "message_id", messageID, "error", fail)
		return "error: " + fail.modifier, "", nil
	}
	micValue = mic(o.content, requestedDigest(options, o.digest))
	dup, err := h.book.Received(ctx, p.Name, messageID)
	if err != nil {
		return "", "", err
	}
	if dup {
		return "warning: duplicate-document", micValue, nil
	}
	payload, err := o.inner.decoded()
	if err != nil {
		return "error: " + unexpectedError, micValue, nil
	}
	var refused edi.Permanent
	if err := h.inbox.Receive(ctx, p.Name, messageID, payload); errors.As(err, &refused) {
		h.opts.Log.Warn("as2 message refused by the inbox", "partner", p.Name, "message_id", messageID, "error", err)
		return "error: " + unexpectedError, micValue, nil
	} else if err != nil {
		return "", "", err
	}
	return "", micValue, h.book.RecordReceived(ctx, p.Name, messageID, micValue)
}

// receiveWithoutMDN takes a message whose sender wants no MDN: the HTTP status is all it learns.
func (h *Handler) receiveWithoutMDN(ctx context.Context, w http.ResponseWriter, p Partner, messageID string, o opened, fail *failure) {
	modifier, _, err := h.receive(ctx, p, messageID, "", o, fail)
	switch {
	case err != nil:
		h.fail(w, "receive", err)
	case strings.HasPrefix(modifier, "error"):
		http.Error(w, modifier, http.StatusBadRequest)
	default:
		w.WriteHeader(http.StatusOK)
	}
}

// acknowledge takes a partner's asynchronous MDN for a message sent from here.
func (h *Handler) acknowledge(ctx context.Context, w http.ResponseWriter, p Partner, o opened) {
	m, err := parseMDN(o.inner)
	if err != nil {
		http.Error(w, "unreadable MDN", http.StatusBadRequest)
		return
	}
	sent, err := h.book.SentMIC(ctx, p.Name, m.OriginalMessageID)
	if errors.Is(err, ErrUnknown) {
		http.Error(w, "no such message was sent to you", http.StatusBadRequest)
		return
	} else if err != nil {
		h.fail(w, "mdn", err)
		return
	}
	verdict := judge(m, m.OriginalMessageID, sent)
	detail := m.Disposition
	if verdict != nil {
		detail = verdict.Error()
	}
	if err := h.inbox.Acknowledge(ctx, m.OriginalMessageID, verdict == nil, detail); err != nil {
		h.fail(w, "acknowledge", err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// postMDN delivers an asynchronous MDN, retrying a few times.
func (h *Handler) postMDN(target string, header http.Header, body []byte) {
	defer func() { <-h.slots; h.pending.Done() }()
	for attempt := 1; ; attempt++ {
		err := h.postOnce(target, header, body)
		if err == nil {
			return
		}
		if attempt == mdnAttempts {
			h.opts.Log.Warn("as2 asynchronous MDN not delivered", "url", target, "error", err)
			return
		}
		time.Sleep(mdnRetryWait * time.Duration(attempt))
	}
}

func (h *Handler) postOnce(target string, header http.Header, body []byte) error {
	req, err := http.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = header.Clone()
	resp, err := h.opts.Client.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return errors.New("as2: " + resp.Status)
	}
	return nil
}

// mdnHeader is the HTTP header of an MDN sent to p.
func mdnHeader(self Identity, p Partner, mdn part) http.Header {
	h := http.Header{}
	for _, f := range mdn.header {
		h.Set(f[0], f[1])
	}
	h.Set("AS2-Version", Version)
	h.Set("AS2-From", quoteID(self.ID))
	h.Set("AS2-To", quoteID(p.ID))
	h.Set("Message-ID", messageIDHeader(newMessageID(self)))
	h.Set("Date", time.Now().UTC().Format(time.RFC1123Z))
	h.Set("MIME-Version", "1.0")
	return h
}

func (h *Handler) fail(w http.ResponseWriter, step string, err error) {
	h.opts.Log.Error("as2 inbound", "step", step, "error", err)
	http.Error(w, "temporarily unavailable", http.StatusServiceUnavailable)
}

// requestedDigest is the MIC digest the sender asked for in Disposition-Notification-Options
// (signed-receipt-micalg=importance, alg, alg...), else the one it signed with.
func requestedDigest(options, signedWith string) string {
	for _, param := range strings.Split(options, ";") {
		name, value, _ := strings.Cut(param, "=")
		if !strings.EqualFold(strings.TrimSpace(name), "signed-receipt-micalg") {
			continue
		}
		algs := strings.Split(value, ",")
		for _, alg := range algs[1:] {
			if d, ok := digestByName(strings.ToLower(strings.TrimSpace(alg))); ok {
				return d
			}
		}
	}
	return signedWith
}

// noRedirects is the CheckRedirect of every request to a partner: a redirect would take the message
// or MDN off the partner's host, to wherever the partner (or whoever holds its address) points.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// sameHost tells whether an asynchronous MDN address is on the partner's host, so a forged
// Receipt-Delivery-Option cannot make this server post elsewhere.
func sameHost(target, partnerURL string) bool {
	t, err1 := url.Parse(target)
	p, err2 := url.Parse(partnerURL)
	return err1 == nil && err2 == nil && (t.Scheme == "http" || t.Scheme == "https") && strings.EqualFold(t.Hostname(), p.Hostname())
}
