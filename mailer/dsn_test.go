package mailer

import (
	"errors"
	"strings"
	"testing"
)

// A bounce as Postfix writes it: the report, then the returned headers.
const postfixBounce = "Return-Path: <>\r\n" +
	"Delivered-To: bounces+e7-1a2b3c4d@fornecedor.example\r\n" +
	"From: MAILER-DAEMON@mx.example (Mail Delivery System)\r\n" +
	"To: bounces+e7-1a2b3c4d@fornecedor.example\r\n" +
	"Subject: Undelivered Mail Returned to Sender\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/report; report-type=delivery-status; boundary=\"B1\"\r\n\r\n" +
	"--B1\r\nContent-Type: text/plain\r\n\r\nI'm sorry to have to inform you that your message could not be delivered.\r\n" +
	"--B1\r\nContent-Type: message/delivery-status\r\n\r\n" +
	"Reporting-MTA: dns; mx.example\r\nOriginal-Envelope-Id: env-7\r\nArrival-Date: Fri, 20 Nov 2026 10:00:00 +0000\r\n\r\n" +
	"Final-Recipient: rfc822; nobody@cliente.example\r\nOriginal-Recipient: rfc822;nobody@cliente.example\r\nAction: failed\r\n" +
	"Status: 5.1.1\r\nRemote-MTA: dns; mx.cliente.example\r\nDiagnostic-Code: smtp; 550 5.1.1 <nobody@cliente.example>: Recipient address rejected\r\n\r\n" +
	"--B1\r\nContent-Type: text/rfc822-headers\r\n\r\n" +
	"From: Fornecedor <faturas@fornecedor.example>\r\nTo: nobody@cliente.example\r\nMessage-ID: <abc123@fornecedor.example>\r\nSubject: Fatura FT 1\r\n" +
	"--B1--\r\n"

func TestParseDSN(t *testing.T) {
	r, err := ParseDSN([]byte(postfixBounce))
	if err != nil {
		t.Fatal(err)
	}
	if r.MessageID != "abc123@fornecedor.example" || r.EnvelopeID != "env-7" || len(r.Recipients) != 1 {
		t.Fatalf("%+v", r)
	}
	rc := r.Recipients[0]
	if rc.Recipient != "nobody@cliente.example" || !rc.Failed() || rc.Status != "5.1.1" || !strings.HasPrefix(rc.Diagnostic, "550 5.1.1") {
		t.Fatalf("%+v", rc)
	}
	if len(r.To) == 0 || r.To[0] != "bounces+e7-1a2b3c4d@fornecedor.example" {
		t.Fatalf("to %v", r.To)
	}

	// A delay is reported but is not a failure; a base64 status part and a returned message/rfc822 are read.
	delayed := strings.NewReplacer("Action: failed", "Action: delayed", "Status: 5.1.1", "Status: 4.4.7").Replace(postfixBounce)
	if r, err := ParseDSN([]byte(delayed)); err != nil || r.Recipients[0].Failed() {
		t.Fatalf("delayed: %v %+v", err, r)
	}
	if _, err := ParseDSN([]byte("From: a@b\r\nSubject: hello\r\n\r\nhi\r\n")); !errors.Is(err, ErrNotDSN) {
		t.Fatalf("plain message: %v", err)
	}
	other := strings.Replace(postfixBounce, "report-type=delivery-status", "report-type=disposition-notification", 1)
	if _, err := ParseDSN([]byte(other)); !errors.Is(err, ErrNotDSN) {
		t.Fatalf("read receipt: %v", err)
	}
}

func TestParseDSNWithEncodedParts(t *testing.T) {
	const status = "Reporting-MTA: dns; mx.example\r\n\r\nFinal-Recipient: rfc822; x@y.example\r\nAction: failed\r\nStatus: 5.2.2\r\n"
	raw := "From: MAILER-DAEMON@mx.example\r\nTo: bounces+e9-00@f.example\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/report; report-type=\"delivery-status\"; boundary=XYZ\r\n\r\n" +
		"--XYZ\r\nContent-Type: message/delivery-status\r\nContent-Transfer-Encoding: base64\r\n\r\n" + b64(status) + "\r\n" +
		"--XYZ\r\nContent-Type: message/rfc822\r\n\r\nMessage-Id: <m9@f.example>\r\nSubject: x\r\n\r\nbody\r\n--XYZ--\r\n"
	r, err := ParseDSN([]byte(raw))
	if err != nil || r.MessageID != "m9@f.example" || len(r.Recipients) != 1 || r.Recipients[0].Status != "5.2.2" || !r.Recipients[0].Failed() {
		t.Fatalf("%v %+v", err, r)
	}
}
