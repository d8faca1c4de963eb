// Package mailertest runs a real SMTP server on loopback for the tests of what sends mail: it keeps what
// it receives, counts its connections, can answer a recipient with an error, hold messages in DATA, and
// offer STARTTLS with a login. Nothing in the product uses it.
package mailertest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// SMTPServer is a real SMTP server on loopback for the tests: it keeps what it receives, counts its
// connections, and can answer a recipient with an error.
type SMTPServer struct {
	Addr string
	Host string
	Port int

	mu          sync.Mutex
	received    []Received
	connections int
	attempts    map[string]int
	answer      func(rcpt string, attempt int) *smtp.SMTPError
	hold        chan struct{} // when set, DATA waits for it to close once holdAfter messages arrived
	holdAfter   int
	arrived     chan struct{}
}

// Received is one message the server accepted.
type Received struct {
	From string
	To   []string
	Data []byte
}

// StartSMTP starts a server; it stops when the test ends.
func StartSMTP(t testing.TB) *SMTPServer { return startSMTP(t, nil, "", "") }

// StartSMTPWithTLS starts a server that offers STARTTLS with a self-signed certificate and wants
// AUTH PLAIN with the given login before it takes mail.
func StartSMTPWithTLS(t testing.TB, username, password string) *SMTPServer {
	return startSMTP(t, selfSignedTLS(t), username, password)
}

func startSMTP(t testing.TB, tlsConfig *tls.Config, username, password string) *SMTPServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &SMTPServer{Addr: ln.Addr().String(), attempts: map[string]int{}, arrived: make(chan struct{}, 1)}
	s.Host = "127.0.0.1"
	s.Port = ln.Addr().(*net.TCPAddr).Port
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		s.mu.Lock()
		s.connections++
		s.mu.Unlock()
		return &testSession{s: s, username: username, password: password}, nil
	}))
	srv.TLSConfig = tlsConfig
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout, srv.WriteTimeout = 30*time.Second, 30*time.Second
	srv.MaxMessageBytes = 64 << 20
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// Answer sets how the server answers each recipient (nil: accept), given how many times it was
// offered before.
func (s *SMTPServer) Answer(fn func(rcpt string, attempt int) *smtp.SMTPError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer = fn
}

// HoldAfter makes DATA wait, once n messages have arrived, until the returned function is called.
func (s *SMTPServer) HoldAfter(n int) (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{})
	s.hold, s.holdAfter = ch, n
	return sync.OnceFunc(func() { close(ch) })
}

// Received is a copy of what arrived so far.
func (s *SMTPServer) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

// Connections is how many connections were opened.
func (s *SMTPServer) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connections
}

// WaitFor waits until n messages arrived.
func (s *SMTPServer) WaitFor(t testing.TB, n int, timeout time.Duration) []Received {
	t.Helper()
	deadline := time.After(timeout)
	for {
		if got := s.Received(); len(got) >= n {
			return got
		}
		select {
		case <-s.arrived:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("%d messages arrived, want %d", len(s.Received()), n)
		}
	}
}

type testSession struct {
	s                  *SMTPServer
	username, password string // when set, mail is taken only after AUTH PLAIN with them
	authenticated      bool
	from               string
	to                 []string
}

func (ss *testSession) AuthMechanisms() []string {
	if ss.username == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (ss *testSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, username, password string) error {
		if username != ss.username || password != ss.password {
			return errors.New("invalid credentials")
		}
		ss.authenticated = true
		return nil
	}), nil
}

func (ss *testSession) Reset()        { ss.from, ss.to = "", nil }
func (ss *testSession) Logout() error { return nil }
func (ss *testSession) Mail(from string, _ *smtp.MailOptions) error {
	if ss.username != "" && !ss.authenticated {
		return smtp.ErrAuthRequired
	}
	ss.from = from
	return nil
}

func (ss *testSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.s.mu.Lock()
	n := ss.s.attempts[strings.ToLower(to)]
	ss.s.attempts[strings.ToLower(to)] = n + 1
	answer := ss.s.answer
	ss.s.mu.Unlock()
	if answer != nil {
		if err := answer(to, n); err != nil {
			return err
		}
	}
	ss.to = append(ss.to, to)
	return nil
}

func (ss *testSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ss.s.mu.Lock()
	hold := ss.s.hold
	if len(ss.s.received) < ss.s.holdAfter {
		hold = nil
	}
	ss.s.mu.Unlock()
	if hold != nil {
		<-hold
	}
	ss.s.mu.Lock()
	ss.s.received = append(ss.s.received, Received{From: ss.from, To: ss.to, Data: data})
	ss.s.mu.Unlock()
	select {
	case ss.s.arrived <- struct{}{}:
	default:
	}
	return nil
}

// selfSignedTLS is a server certificate for 127.0.0.1, made for one test.
func selfSignedTLS(t testing.TB) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}
