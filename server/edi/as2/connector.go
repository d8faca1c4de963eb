package as2

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"einvoice/server/edi"
)

// maxMDN bounds a synchronous MDN read from a partner's response.
const maxMDN = 1 << 20

// Connector delivers EDI messages to AS2 partners (edi.Connector).
type Connector struct {
	Book   Book
	Client *http.Client // its Timeout bounds one delivery (redirects are not followed)
	// MDNURL is where partners post asynchronous MDNs: this installation's inbound AS2 route.
	MDNURL string
}

var _ edi.Connector = (*Connector)(nil)

// Deliver posts d to its partner. With a synchronous MDN it returns once the MDN says the partner
// processed exactly what was sent; a refusal or a MIC mismatch is edi.Permanent. With an asynchronous
// MDN the receipt is Pending, and the Handler acknowledges it when the MDN arrives.
func (c *Connector) Deliver(ctx context.Context, d edi.Delivery) (edi.Receipt, error) {
	if !validMessageID(d.MessageID) {
		return edi.Receipt{}, edi.Permanent{Err: fmt.Errorf("as2: %q cannot be a Message-ID", d.MessageID)}
	}
	self, err := c.Book.Identity(ctx)
	if err != nil {
		return edi.Receipt{}, err
	}
	p, err := c.Book.PartnerByName(ctx, d.Partner)
	if errors.Is(err, ErrUnknown) {
		return edi.Receipt{}, edi.Permanent{Err: fmt.Errorf("as2: no partner named %q", d.Partner)}
	} else if err != nil {
		return edi.Receipt{}, err
	}
	req, micValue, err := c.request(ctx, self, p, d)
	if err != nil {
		return edi.Receipt{}, err
	}
	// Recorded before posting: an asynchronous MDN may arrive before the response does.
	if err := c.Book.RecordSent(ctx, p.Name, d.MessageID, micValue); err != nil {
		return edi.Receipt{}, err
	}
	client := *c.Client
	client.CheckRedirect = noRedirects
	resp, err := client.Do(req)
	if err != nil {
		return edi.Receipt{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMDN+1))
	if err != nil {
		return edi.Receipt{}, err
	}
	if resp.StatusCode/100 != 2 {
		return edi.Receipt{}, fmt.Errorf("as2: %s answered %s: %.200s", p.Name, resp.Status, body)
	}
	receipt := edi.Receipt{MessageID: d.MessageID}
	if p.MDN == MDNAsync {
		receipt.Pending = true
		return receipt, nil
	}
	if len(body) > maxMDN {
		return edi.Receipt{}, fmt.Errorf("as2: %s answered an MDN over %d bytes", p.Name, maxMDN)
	}
	o, fail := open(entity{header: textproto.MIMEHeader(resp.Header), body: body}, self, p, maxMDN)
	if fail != nil {
		return edi.Receipt{}, fmt.Errorf("as2: the MDN from %s: %w", p.Name, fail)
	}
	m, err := parseMDN(o.inner)
	if err != nil {
		return edi.Receipt{}, err
	}
	if err := judge(m, d.MessageID, micValue); err != nil {
		return edi.Receipt{}, edi.Permanent{Err: err}
	}
	receipt.RemoteID = bareMessageID(resp.Header.Get("Message-ID"))
	return receipt, nil
}

// request is the AS2 POST of d to p, and the MIC its MDN must report.
func (c *Connector) request(ctx context.Context, self Identity, p Partner, d edi.Delivery) (*http.Request, string, error) {
	payload := part{header: [][2]string{
		{"Content-Type", "application/xml"},
		{"Content-Transfer-Encoding", "binary"},
		{"Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": d.Filename})},
	}, body: d.Payload}
	outer, micValue, err := pack(self, p, payload)
	if err != nil {
		return nil, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, bytes.NewReader(outer.body))
	if err != nil {
		return nil, "", edi.Permanent{Err: err}
	}
	for _, f := range outer.header {
		req.Header.Set(f[0], f[1])
	}
	h := req.Header
	h.Set("AS2-Version", Version)
	h.Set("AS2-From", quoteID(self.ID))
	h.Set("AS2-To", quoteID(p.ID))
	h.Set("Message-ID", messageIDHeader(d.MessageID))
	h.Set("Date", time.Now().UTC().Format(time.RFC1123Z))
	h.Set("MIME-Version", "1.0")
	h.Set("Subject", "einvoice EDI "+d.Kind)
	h.Set("Disposition-Notification-To", c.MDNURL)
	h.Set("Disposition-Notification-Options", "signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, "+digests[p.Sign].micalg)
	if p.MDN == MDNAsync {
		h.Set("Receipt-Delivery-Option", c.MDNURL)
	}
	return req, micValue, nil
}

// validMessageID tells whether id can go between the angle brackets of a Message-ID header.
func validMessageID(id string) bool {
	return id != "" && len(id) <= maxMessageID && !strings.ContainsAny(id, "<>\r\n \t\"")
}

// maxMessageID bounds a Message-ID; RFC 5322 lines are at most 998 characters.
const maxMessageID = 255
