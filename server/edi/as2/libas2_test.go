package as2

import (
	"bufio"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// peerDir holds the libas2 peer: peer.js, and node_modules from `npm ci` there.
const peerDir = "testdata/libas2"

// An independent AS2 implementation (npm libas2) and ours exchange documents both ways, signed and
// encrypted, with signed MDNs, synchronous and asynchronous. It needs node and `npm ci --prefix
// server/edi/as2/testdata/libas2`; it runs when EINVOICE_AS2PEER=1 or CI is set.
func TestLibas2Peer(t *testing.T) {
	if os.Getenv("EINVOICE_AS2PEER") != "1" && os.Getenv("CI") == "" {
		t.Skip("set EINVOICE_AS2PEER=1 to exchange with the libas2 peer")
	}
	if _, err := os.Stat(filepath.Join(peerDir, "node_modules", "libas2")); err != nil {
		t.Fatalf("the libas2 peer is not installed (npm ci --prefix server/edi/as2/testdata/libas2): %v", err)
	}
	ctx := context.Background()
	us, peerID := newStation(t, "B"), identity(t, "A")
	peer := startPeer(t, map[string]string{
		"id": peerID.ID, "cert": certPEM(peerID), "key": keyPEM(t, peerID),
		"partnerId": us.self.ID, "partnerURL": us.server.URL + "/as2", "partnerCert": certPEM(us.self),
	})
	toPeer := Partner{Name: "libas2", ID: peerID.ID, URL: peer.url, Certificate: peerID.Certificate, Sign: SHA256, Cipher: AES256}

	t.Run("libas2 to us", func(t *testing.T) {
		us.book.partners = []Partner{toPeer}
		for _, async := range []bool{false, true} {
			sent := peer.command(t, map[string]any{"send": map[string]any{"content": invoiceXML, "filename": "FT 1.xml", "async": async}}, "sent")
			if sent.Status != 200 {
				t.Fatalf("async %v: status %d", async, sent.Status)
			}
			mdn := sent.MDN
			if async {
				mdn = peer.await(t, "mdn").Notice
			}
			if mdn == nil || !mdn.Processed || bareMessageID(mdn.OriginalMessageID) != bareMessageID(sent.MessageID) || mdn.MIC == nil {
				t.Fatalf("async %v: MDN %+v", async, mdn)
			}
			got, _ := us.inbox.snapshot()
			if last := got[len(got)-1]; string(last.payload) != invoiceXML || last.messageID != bareMessageID(sent.MessageID) {
				t.Fatalf("received %q", last.payload)
			}
		}
	})
	t.Run("us to libas2", func(t *testing.T) {
		for _, mode := range MDNModes {
			p := toPeer
			p.MDN = mode
			us.book.partners = []Partner{p}
			id := "to-libas2-" + mode + "@einvoice.test"
			receipt, err := us.connector.Deliver(ctx, delivery(p.Name, id))
			if err != nil {
				t.Fatalf("%s: %v", mode, err)
			}
			if msg := peer.await(t, "message"); !msg.Processed || strings.TrimSpace(msg.Content) != strings.TrimSpace(invoiceXML) {
				t.Fatalf("%s: the peer got %+v", mode, msg)
			}
			if mode == MDNAsync {
				peer.await(t, "mdn-sent")
				_, acks := us.inbox.snapshot()
				if !receipt.Pending || len(acks) == 0 || acks[len(acks)-1].messageID != id || !acks[len(acks)-1].ok {
					t.Fatalf("async: receipt %+v, acknowledgements %+v", receipt, acks)
				}
			}
		}
	})
}

// peerEvent is one line the peer writes.
type peerEvent struct {
	Event     string   `json:"event"`
	URL       string   `json:"url"`
	MessageID string   `json:"messageId"`
	Status    int      `json:"status"`
	MDN       *peerMDN `json:"mdn"`
	Processed bool     `json:"processed"`
	Content   string   `json:"content"`
	Error     string   `json:"error"`
	Notice    *peerMDN `json:"-"` // the MDN of an "mdn" event
}

type peerMDN struct {
	OriginalMessageID string `json:"originalMessageId"`
	Processed         bool   `json:"processed"`
	MIC               any    `json:"mic"`
}

type peerProcess struct {
	url     string
	stdin   io.Writer
	events  chan peerEvent
	backlog []peerEvent
}

func startPeer(t *testing.T, cfg map[string]string) *peerProcess {
	t.Helper()
	file := filepath.Join(t.TempDir(), "peer.json")
	data, _ := json.Marshal(cfg)
	os.WriteFile(file, data, 0o600)
	// AS2 key transport is RSA PKCS#1 v1.5, whose private decryption Node 20 turns off unless asked.
	cmd := exec.Command("node", "--security-revert=CVE-2023-46809", "peer.js", file)
	cmd.Dir = peerDir
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	p := &peerProcess{stdin: stdin, events: make(chan peerEvent, 16)}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var e peerEvent
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				if e.Event == "mdn" {
					e.Notice = &peerMDN{}
					json.Unmarshal(sc.Bytes(), e.Notice)
				}
				p.events <- e
			}
		}
		close(p.events)
	}()
	p.url = p.await(t, "listening").URL
	return p
}

// await returns the next event of the kind, keeping the others for later awaits (an asynchronous MDN
// may come before the response to the message); an error event, or none in time, fails the test.
func (p *peerProcess) await(t *testing.T, kind string) peerEvent {
	t.Helper()
	for i, e := range p.backlog {
		if e.Event == kind {
			p.backlog = append(p.backlog[:i], p.backlog[i+1:]...)
			return e
		}
	}
	timeout := time.After(20 * time.Second)
	for {
		select {
		case e, ok := <-p.events:
			switch {
			case !ok:
				t.Fatalf("the peer ended while waiting for %s", kind)
			case e.Event == "error":
				t.Fatalf("the peer failed: %s", e.Error)
			case e.Event == kind:
				return e
			}
			p.backlog = append(p.backlog, e)
		case <-timeout:
			t.Fatalf("no %s from the peer", kind)
		}
	}
}

func (p *peerProcess) command(t *testing.T, cmd any, await string) peerEvent {
	t.Helper()
	line, _ := json.Marshal(cmd)
	p.stdin.Write(append(line, '\n'))
	return p.await(t, await)
}

func certPEM(id Identity) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: id.Certificate.Raw}))
}

func keyPEM(t *testing.T, id Identity) string {
	der, err := x509.MarshalPKCS8PrivateKey(id.Key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}
