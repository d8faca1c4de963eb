package as2

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"sync/atomic"
	"testing"

	"einvoice/server/edi"
)

// Every combination of digest, cipher, compression and MDN mode: the payload arrives intact at the
// receiver's inbox, and the sender learns of it from a verified MDN with the right MIC.
func TestRoundTripEveryAlgorithm(t *testing.T) {
	ctx := context.Background()
	for _, sign := range SignAlgorithms {
		for _, cipher := range CipherAlgorithms {
			for _, compress := range []bool{false, true} {
				for _, mdn := range MDNModes {
					name := fmt.Sprintf("%s-%s-compress=%v-%s", sign, cipher, compress, mdn)
					t.Run(name, func(t *testing.T) {
						a, b := newStation(t, "A"), newStation(t, "B")
						aToB, _ := pair(a, b, Partner{Sign: sign, Cipher: cipher, Compress: compress, MDN: mdn})
						id := "msg-" + name + "@a.example"
						receipt, err := a.connector.Deliver(ctx, delivery(aToB.Name, id))
						if err != nil {
							t.Fatal(err)
						}
						if receipt.MessageID != id || receipt.Pending != (mdn == MDNAsync) {
							t.Fatalf("receipt %+v", receipt)
						}
						b.handler.Wait()
						got, _ := b.inbox.snapshot()
						if len(got) != 1 || got[0].partner != "partner-A" || got[0].messageID != id || string(got[0].payload) != invoiceXML {
							t.Fatalf("received %+v", got)
						}
						_, acks := a.inbox.snapshot()
						if mdn == MDNAsync && (len(acks) != 1 || !acks[0].ok || acks[0].messageID != id) {
							t.Fatalf("acknowledgements %+v", acks)
						}
						if mdn == MDNSync && len(acks) != 0 {
							t.Fatalf("a synchronous MDN was also acknowledged: %+v", acks)
						}
					})
				}
			}
		}
	}
}

// A message sent twice with the same Message-ID reaches the inbox once; the repeat is answered
// processed/warning: duplicate-document, which the sender takes as delivered.
func TestDuplicateMessageID(t *testing.T) {
	ctx := context.Background()
	a, b := newStation(t, "A"), newStation(t, "B")
	aToB, _ := pair(a, b, Partner{Sign: SHA256, Cipher: AES256, MDN: MDNSync})
	for range 2 {
		if _, err := a.connector.Deliver(ctx, delivery(aToB.Name, "dup-1@a.example")); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := b.inbox.snapshot(); len(got) != 1 {
		t.Fatalf("received %d times", len(got))
	}
	resp := post(t, a, b, aToB, delivery(aToB.Name, "dup-1@a.example"))
	if m := readMDN(t, resp, a.self, b.self); !strings.HasSuffix(m.Disposition, "processed/warning: duplicate-document") || !m.Processed() {
		t.Fatalf("disposition %q", m.Disposition)
	}
}

// The receiver knows the sender by another certificate: the message is refused with
// authentication-failed and nothing reaches the inbox; the sender's delivery fails for good.
func TestWrongCertificate(t *testing.T) {
	ctx := context.Background()
	a, b := newStation(t, "A"), newStation(t, "B")
	aToB, _ := pair(a, b, Partner{Sign: SHA256, Cipher: AES128, MDN: MDNSync})
	b.book.partners[0].Certificate = identity(t, "C").Certificate
	_, err := a.connector.Deliver(ctx, delivery(aToB.Name, "wrongcert@a.example"))
	var permanent edi.Permanent
	if !errors.As(err, &permanent) || !strings.Contains(err.Error(), "processed/error: authentication-failed") {
		t.Fatalf("error %v", err)
	}
	if got, _ := b.inbox.snapshot(); len(got) != 0 {
		t.Fatalf("received %+v", got)
	}
}

// Errors the receiver reports with their disposition: a signature over other content, content
// encrypted to another certificate, an unsigned message, an inbox that refuses the document.
func TestFailureDispositions(t *testing.T) {
	cases := []struct {
		name   string
		cipher string
		setup  func(a, b *station, aToB *Partner)
		tamper func(body []byte) []byte
		want   string
	}{
		{name: "tampered body", cipher: None,
			tamper: func(body []byte) []byte { return bytes.Replace(body, []byte("100.00"), []byte("900.00"), 1) },
			want:   "processed/error: integrity-check-failed"},
		{name: "encrypted to another certificate", cipher: AES256,
			setup: func(a, b *station, aToB *Partner) { aToB.Certificate = identity(t, "C").Certificate },
			want:  "processed/error: decryption-failed"},
		{name: "inbox refuses", cipher: AES128,
			setup: func(a, b *station, aToB *Partner) { b.inbox.refuse = edi.Permanent{Err: errors.New("not UBL")} },
			want:  "processed/error: unexpected-processing-error"},
		{name: "signed by a stranger", cipher: AES128,
			setup: func(a, b *station, aToB *Partner) { a.self = identity(t, "C"); a.self.ID = identity(t, "A").ID },
			want:  "processed/error: authentication-failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := newStation(t, "A"), newStation(t, "B")
			aToB, _ := pair(a, b, Partner{Sign: SHA256, Cipher: c.cipher, MDN: MDNSync})
			if c.setup != nil {
				c.setup(a, b, &aToB)
			}
			req, _, err := a.connector.request(context.Background(), a.self, aToB, delivery(aToB.Name, "fail@a.example"))
			if err != nil {
				t.Fatal(err)
			}
			if c.tamper != nil {
				body, _ := io.ReadAll(req.Body)
				req.Body = io.NopCloser(bytes.NewReader(c.tamper(body)))
				req.ContentLength = -1
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if m := readMDN(t, resp, a.self, b.self); !strings.HasSuffix(m.Disposition, c.want) || m.Processed() || m.OriginalMessageID != "fail@a.example" {
				t.Fatalf("disposition %q, want %q", m.Disposition, c.want)
			}
			if got, _ := b.inbox.snapshot(); len(got) != 0 {
				t.Fatalf("received %+v", got)
			}
		})
	}
	t.Run("unsigned", func(t *testing.T) {
		a, b := newStation(t, "A"), newStation(t, "B")
		aToB, _ := pair(a, b, Partner{Sign: SHA256, Cipher: None, MDN: MDNSync})
		req, _, _ := a.connector.request(context.Background(), a.self, aToB, delivery(aToB.Name, "plain@a.example"))
		req.Header.Set("Content-Type", "application/xml")
		req.Body, req.ContentLength = io.NopCloser(strings.NewReader(invoiceXML)), int64(len(invoiceXML))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if m := readMDN(t, resp, a.self, b.self); !strings.HasSuffix(m.Disposition, "processed/error: authentication-failed") {
			t.Fatalf("disposition %q", m.Disposition)
		}
	})
}

// The receiver reports another MIC than the one computed on sending: a synchronous MDN makes the
// delivery fail for good; an asynchronous one is acknowledged as not delivered.
func TestMICMismatch(t *testing.T) {
	ctx := context.Background()
	t.Run("sync", func(t *testing.T) {
		a, b := newStation(t, "A"), newStation(t, "B")
		aToB, bToA := pair(a, b, Partner{Sign: SHA256, Cipher: AES128, MDN: MDNSync})
		liar := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			mdn, err := buildMDN(b.self, bToA, bareMessageID(r.Header.Get("Message-ID")), "", mic([]byte("other"), SHA256))
			if err != nil {
				t.Error(err)
			}
			for k, v := range mdnHeader(b.self, bToA, mdn) {
				w.Header()[k] = v
			}
			w.Write(mdn.body)
		}))
		defer liar.Close()
		a.book.partners[0].URL = liar.URL
		_, err := a.connector.Deliver(ctx, delivery(aToB.Name, "mic@a.example"))
		var permanent edi.Permanent
		if !errors.As(err, &permanent) || !errors.Is(err, errOtherContent) {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("async", func(t *testing.T) {
		a, b := newStation(t, "A"), newStation(t, "B")
		aToB, _ := pair(a, b, Partner{Sign: SHA1, Cipher: DES3, MDN: MDNAsync})
		if _, err := a.connector.Deliver(ctx, delivery(aToB.Name, "mic@a.example")); err != nil {
			t.Fatal(err)
		}
		b.handler.Wait()
		_, acks := a.inbox.snapshot()
		if len(acks) != 1 || !acks[0].ok {
			t.Fatalf("acknowledgements %+v", acks)
		}
		// The same MDN again, for a message recorded with another MIC.
		a.book.RecordSent(ctx, aToB.Name, "mic2@a.example", mic([]byte("other"), SHA1))
		mdn, _ := buildMDN(b.self, b.book.partners[0], "mic2@a.example", "", mic([]byte("sent"), SHA1))
		req := httptest.NewRequest(http.MethodPost, "/as2", bytes.NewReader(mdn.body))
		req.Header = mdnHeader(b.self, b.book.partners[0], mdn)
		rec := httptest.NewRecorder()
		a.handler.ServeHTTP(rec, req)
		_, acks = a.inbox.snapshot()
		if rec.Code != http.StatusOK || len(acks) != 2 || acks[1].ok || acks[1].messageID != "mic2@a.example" {
			t.Fatalf("status %d, acknowledgements %+v", rec.Code, acks)
		}
	})
}

// Requests the handler refuses before any MDN: unknown partners, other stations' messages,
// oversized bodies, MDN addresses off the partner's host.
func TestHandlerRefusals(t *testing.T) {
	a, b := newStation(t, "A"), newStation(t, "B")
	aToB, _ := pair(a, b, Partner{Sign: SHA256, Cipher: AES128, MDN: MDNAsync})
	send := func(edit func(r *http.Request)) int {
		req, _, err := a.connector.request(context.Background(), a.self, aToB, delivery(aToB.Name, "refuse@a.example"))
		if err != nil {
			t.Fatal(err)
		}
		edit(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for name, c := range map[string]struct {
		edit func(r *http.Request)
		want int
	}{
		"unknown partner": {func(r *http.Request) { r.Header.Set("AS2-From", "nobody") }, http.StatusForbidden},
		"not for us":      {func(r *http.Request) { r.Header.Set("AS2-To", "someone else") }, http.StatusForbidden},
		"no message id":   {func(r *http.Request) { r.Header.Del("Message-ID") }, http.StatusBadRequest},
		"MDN elsewhere":   {func(r *http.Request) { r.Header.Set("Receipt-Delivery-Option", "http://192.0.2.1/mdn") }, http.StatusBadRequest},
		"too large": {func(r *http.Request) {
			big := bytes.Repeat([]byte("x"), 2<<20)
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(big)), int64(len(big))
		}, http.StatusRequestEntityTooLarge},
		"GET": {func(r *http.Request) { r.Method = http.MethodGet }, http.StatusMethodNotAllowed},
	} {
		if got := send(c.edit); got != c.want {
			t.Errorf("%s: status %d, want %d", name, got, c.want)
		}
	}
	if got, _ := b.inbox.snapshot(); len(got) != 0 {
		t.Fatalf("received %+v", got)
	}
}

// post sends d from a to b as the connector would, and returns b's response.
func post(t *testing.T, a, b *station, aToB Partner, d edi.Delivery) *http.Response {
	t.Helper()
	req, _, err := a.connector.request(context.Background(), a.self, aToB, d)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// readMDN reads and verifies a synchronous MDN from signer to self.
func readMDN(t *testing.T, resp *http.Response, self, signer Identity) MDN {
	t.Helper()
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	o, fail := open(entity{header: textproto.MIMEHeader(resp.Header), body: body}, self, Partner{Certificate: signer.Certificate}, 1<<20)
	if fail != nil {
		t.Fatal(fail)
	}
	m, err := parseMDN(o.inner)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Stations that send the S/MIME body in binary (RFC 4130 allows it over HTTP) are understood too.
func TestBinaryBody(t *testing.T) {
	a, b := newStation(t, "A"), newStation(t, "B")
	aToB, _ := pair(a, b, Partner{Sign: SHA256, Cipher: DES3, Compress: true, MDN: MDNSync})
	req, _, err := a.connector.request(context.Background(), a.self, aToB, delivery(aToB.Name, "binary@a.example"))
	if err != nil {
		t.Fatal(err)
	}
	encoded, _ := io.ReadAll(req.Body)
	der, err := entity{header: textproto.MIMEHeader{"Content-Transfer-Encoding": {"base64"}}, body: encoded}.decoded()
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Transfer-Encoding", "binary")
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(der)), int64(len(der))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if m := readMDN(t, resp, a.self, b.self); !m.Processed() {
		t.Fatalf("disposition %q", m.Disposition)
	}
	if got, _ := b.inbox.snapshot(); len(got) != 1 || string(got[0].payload) != invoiceXML {
		t.Fatalf("received %+v", got)
	}
}

// Messages and asynchronous MDNs go to the partner's host only: a redirect from there to another
// host is not followed.
func TestNoRedirectOffThePartnersHost(t *testing.T) {
	a, b := newStation(t, "A"), newStation(t, "B")
	var elsewhere atomic.Int32
	victim := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer victim.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(victim.URL, "127.0.0.1", "localhost", 1), http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	if err := b.handler.postOnce(redirector.URL, http.Header{}, []byte("mdn")); err == nil {
		t.Error("a redirected MDN counted as delivered")
	}
	aToB, _ := pair(a, b, Partner{Sign: SHA256, Cipher: AES128, MDN: MDNSync})
	a.book.partners[0].URL = redirector.URL
	if _, err := a.connector.Deliver(context.Background(), delivery(aToB.Name, "redirected@a.example")); err == nil {
		t.Error("a redirected message counted as delivered")
	}
	if n := elsewhere.Load(); n != 0 {
		t.Fatalf("requests followed the redirect to another host %d times", n)
	}
}
