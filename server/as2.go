package server

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"einvoice/server/edi"
	"einvoice/server/edi/as2"

	"einvoice/signing"
	"einvoice/store"
	"github.com/labstack/echo/v4"
)

// AS2Config is the [as2] section: how this installation presents itself to AS2 partners.
type AS2Config struct {
	ID     string `toml:"id"`      // this installation's AS2 id; the host name when empty
	MDNURL string `toml:"mdn_url"` // where partners post asynchronous MDNs; public_url + "/as2" when empty
	// RequestsPerMinute is how many requests one client address may make to POST /as2 a minute; 0 is
	// unlimited.
	RequestsPerMinute int `toml:"requests_per_minute"`
}

// DefaultAS2RequestsPerMinute is the inbound AS2 route's limit per client address unless [as2] says
// otherwise.
const DefaultAS2RequestsPerMinute = 1200

// Timeouts of AS2 requests to partners: one delivery (with its synchronous MDN) and one asynchronous MDN.
const (
	as2DeliveryTimeout = 2 * time.Minute
	as2MDNTimeout      = 30 * time.Second
)

// as2IdentityValidity is how long the certificate of an identity made on first use is valid.
const as2IdentityValidity = 10 * 365 * 24 * time.Hour

// AS2Handler is the inbound AS2 endpoint (messages, and MDNs for messages sent from here), handing what
// arrives to inbox. The caller mounts it at POST /as2 with the body limit and rate limit.
func (w *Workflow) AS2Handler(inbox edi.Inbox) http.Handler {
	return as2.NewHandler(as2Book{w}, inbox, as2.HandlerOptions{MaxBody: w.cfg.HTTP.BodyLimit, Timeout: w.cfg.HTTP.RequestTimeout,
		Client: &http.Client{Timeout: as2MDNTimeout}, Log: w.log})
}

// AS2Connector delivers EDI messages to the AS2 partners configured here.
func (w *Workflow) AS2Connector() edi.Connector {
	return &as2.Connector{Book: as2Book{w}, Client: &http.Client{Timeout: as2DeliveryTimeout}, MDNURL: w.as2MDNURL()}
}

// as2MDNURL is where partners post asynchronous MDNs.
func (w *Workflow) as2MDNURL() string {
	switch {
	case w.cfg.AS2.MDNURL != "":
		return w.cfg.AS2.MDNURL
	case w.cfg.HTTP.PublicURL != "":
		return strings.TrimRight(w.cfg.HTTP.PublicURL, "/") + "/as2"
	}
	return "http://" + w.cfg.HTTP.Listen + "/as2"
}

// AS2IdentityView is the installation's AS2 identity as shown: never the key.
type AS2IdentityView struct {
	AS2ID       string `json:"as2_id"`
	Subject     string `json:"subject"`
	NotBefore   string `json:"not_before"`
	NotAfter    string `json:"not_after"`
	Fingerprint string `json:"sha256_fingerprint"`
	Certificate string `json:"certificate"` // PEM, for partners
}

// AS2Identity is the installation's AS2 identity, made on first use: an RSA-2048 key and a self-signed
// certificate, under the configured AS2 id or the host name.
func (w *Workflow) AS2Identity(ctx context.Context) (AS2IdentityView, error) {
	id, err := w.as2Identity(ctx)
	if err != nil {
		return AS2IdentityView{}, err
	}
	return as2IdentityView(id), nil
}

// ImportAS2Identity replaces the AS2 identity with the key and certificate of a PKCS#12 file. as2ID,
// when given, replaces the AS2 id too.
func (w *Workflow) ImportAS2Identity(ctx context.Context, p12 []byte, password, as2ID string) (AS2IdentityView, error) {
	if len(p12) > MaxSealFile {
		return AS2IdentityView{}, FieldErrors{"file": {Code: CodeInvalidValue, Details: map[string]int{"max_bytes": MaxSealFile}}}
	}
	seal, err := signing.LoadPKCS12(p12, password)
	if err != nil {
		return AS2IdentityView{}, FieldErrors{"file": {Code: CodeAS2FileUnreadable, Details: err.Error()}}
	}
	key, ok := seal.Signer.(*rsa.PrivateKey)
	if !ok {
		return AS2IdentityView{}, fieldError("file", CodeAS2KeyNotRSA)
	}
	if as2ID == "" {
		as2ID = w.defaultAS2ID()
		if current, err := w.store.AS2IdentityOf(ctx); err == nil {
			as2ID = current.AS2ID
		}
	}
	if !as2.ValidID(as2ID) {
		return AS2IdentityView{}, fieldError("as2_id", CodeInvalidValue)
	}
	if _, err := w.saveAS2Identity(ctx, as2ID, key, seal.Certificate, true); err != nil {
		return AS2IdentityView{}, err
	}
	view, err := w.AS2Identity(ctx)
	if err != nil {
		return view, err
	}
	return view, w.audit(ctx, "as2_identity.import", as2ID, "sha256", view.Fingerprint)
}

func (w *Workflow) as2Identity(ctx context.Context) (as2.Identity, error) {
	stored, err := w.store.AS2IdentityOf(ctx)
	if errors.Is(err, store.ErrNotFound) {
		return w.newAS2Identity(ctx)
	} else if err != nil {
		return as2.Identity{}, err
	}
	return readAS2Identity(stored)
}

// newAS2Identity makes and keeps the first AS2 identity (or returns the one a concurrent caller kept).
func (w *Workflow) newAS2Identity(ctx context.Context) (as2.Identity, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return as2.Identity{}, err
	}
	id := w.defaultAS2ID()
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	now := w.now()
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: id, Organization: []string{"einvoice AS2"}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(as2IdentityValidity),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageContentCommitment}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return as2.Identity{}, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return as2.Identity{}, err
	}
	stored, err := w.saveAS2Identity(ctx, id, key, cert, false)
	if err != nil {
		return as2.Identity{}, err
	}
	return readAS2Identity(stored)
}

func (w *Workflow) saveAS2Identity(ctx context.Context, as2ID string, key *rsa.PrivateKey, cert *x509.Certificate, replace bool) (store.AS2Identity, error) {
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return store.AS2Identity{}, err
	}
	return w.store.SaveAS2Identity(ctx, store.AS2Identity{AS2ID: as2ID, Key: pkcs8, Certificate: cert.Raw}, replace)
}

// defaultAS2ID is the configured AS2 id, else the host name.
func (w *Workflow) defaultAS2ID() string {
	if w.cfg.AS2.ID != "" {
		return w.cfg.AS2.ID
	}
	if host, err := os.Hostname(); err == nil && as2.ValidID(host) {
		return host
	}
	return "einvoice"
}

func readAS2Identity(stored store.AS2Identity) (as2.Identity, error) {
	key, err := x509.ParsePKCS8PrivateKey(stored.Key)
	if err != nil {
		return as2.Identity{}, err
	}
	rsaKey, ok := key.(*rsa.PrivateKey)
	if !ok {
		return as2.Identity{}, errors.New("the stored AS2 key is not RSA")
	}
	cert, err := x509.ParseCertificate(stored.Certificate)
	if err != nil {
		return as2.Identity{}, err
	}
	return as2.Identity{ID: stored.AS2ID, Certificate: cert, Key: rsaKey}, nil
}

func as2IdentityView(id as2.Identity) AS2IdentityView {
	c := id.Certificate
	sum := sha256.Sum256(c.Raw)
	return AS2IdentityView{AS2ID: id.ID, Subject: signing.DisplayName(c.Subject),
		NotBefore: c.NotBefore.UTC().Format(time.RFC3339), NotAfter: c.NotAfter.UTC().Format(time.RFC3339),
		Fingerprint: hex.EncodeToString(sum[:]), Certificate: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}))}
}

// AS2PartnerInput is what creating a partner takes; empty algorithms take the defaults (SHA-256,
// AES-256, asynchronous MDN, no compression).
type AS2PartnerInput struct {
	Name, AS2ID, URL string
	Certificate      string // PEM
	Sign, Cipher     string
	Compress         bool
	MDN              string
}

// AS2PartnerChange is what updating a partner takes: nil fields stay as they are.
type AS2PartnerChange struct {
	Name, AS2ID, URL, Certificate, Sign, Cipher, MDN *string
	Compress                                         *bool
}

// CreateAS2Partner adds an AS2 partner; CodeExists when its name or AS2 id is taken.
func (w *Workflow) CreateAS2Partner(ctx context.Context, in AS2PartnerInput) (store.AS2Partner, error) {
	p := store.AS2Partner{Name: in.Name, AS2ID: in.AS2ID, URL: in.URL, Certificate: in.Certificate, Sign: in.Sign, Cipher: in.Cipher,
		Compress: in.Compress, MDN: in.MDN}
	p.Sign, p.Cipher, p.MDN = cmp.Or(p.Sign, as2.SHA256), cmp.Or(p.Cipher, as2.AES256), cmp.Or(p.MDN, as2.MDNAsync)
	if err := checkAS2Partner(&p); err != nil {
		return store.AS2Partner{}, err
	}
	created, err := w.store.CreateAS2Partner(ctx, p)
	if err != nil {
		return created, asExists(err)
	}
	return created, w.audit(ctx, "as2_partner.create", created.Name, "as2_id", created.AS2ID, "url", created.URL)
}

// UpdateAS2Partner changes a partner's settings; CodeNotFound when there is none by that name.
func (w *Workflow) UpdateAS2Partner(ctx context.Context, name string, c AS2PartnerChange) (store.AS2Partner, error) {
	p, err := w.store.AS2PartnerByName(ctx, name)
	if err != nil {
		return store.AS2Partner{}, asNotFound(err)
	}
	for _, f := range []struct{ to, from *string }{{&p.Name, c.Name}, {&p.AS2ID, c.AS2ID}, {&p.URL, c.URL}, {&p.Certificate, c.Certificate},
		{&p.Sign, c.Sign}, {&p.Cipher, c.Cipher}, {&p.MDN, c.MDN}} {
		if f.from != nil {
			*f.to = *f.from
		}
	}
	if c.Compress != nil {
		p.Compress = *c.Compress
	}
	if err := checkAS2Partner(&p); err != nil {
		return store.AS2Partner{}, err
	}
	updated, err := w.store.UpdateAS2Partner(ctx, p)
	if err != nil {
		return updated, asExists(asNotFound(err))
	}
	return updated, w.audit(ctx, "as2_partner.update", name, "name", updated.Name, "as2_id", updated.AS2ID, "url", updated.URL,
		"sign", updated.Sign, "cipher", updated.Cipher, "compress", updated.Compress, "mdn", updated.MDN)
}

// DeleteAS2Partner removes a partner; CodeNotFound when there is none by that name.
func (w *Workflow) DeleteAS2Partner(ctx context.Context, name string) error {
	if err := w.store.DeleteAS2Partner(ctx, name); err != nil {
		return asNotFound(err)
	}
	return w.audit(ctx, "as2_partner.delete", name)
}

// AS2Partners lists the AS2 partners by name.
func (w *Workflow) AS2Partners(ctx context.Context) ([]store.AS2Partner, error) {
	return w.store.AS2Partners(ctx)
}

// checkAS2Partner validates a partner's settings and keeps its certificate as clean PEM.
func checkAS2Partner(p *store.AS2Partner) error {
	errs := FieldErrors{}
	requiredText(errs, "name", &p.Name, 100)
	p.AS2ID = strings.TrimSpace(p.AS2ID)
	if !as2.ValidID(p.AS2ID) {
		errs["as2_id"] = Problem{Code: CodeInvalidValue}
	}
	if u, err := url.Parse(p.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs["url"] = Problem{Code: CodeInvalidValue}
	}
	for _, f := range []struct {
		name, value string
		allowed     []string
	}{{"sign", p.Sign, as2.SignAlgorithms}, {"cipher", p.Cipher, as2.CipherAlgorithms}, {"mdn", p.MDN, as2.MDNModes}} {
		if !slices.Contains(f.allowed, f.value) {
			errs[f.name] = Problem{Code: CodeInvalidValue, Details: map[string][]string{"allowed": f.allowed}}
		}
	}
	if cert, err := parseAS2Certificate(p.Certificate); err != nil {
		errs["certificate"] = Problem{Code: CodeAS2BadCertificate}
	} else {
		p.Certificate = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}))
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// parseAS2Certificate reads the first PEM certificate, which must carry an RSA key.
func parseAS2Certificate(pemText string) (*x509.Certificate, error) {
	block, _ := pem.Decode([]byte(pemText))
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("no PEM certificate")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, err
	}
	if _, ok := cert.PublicKey.(*rsa.PublicKey); !ok {
		return nil, errors.New("not an RSA key")
	}
	return cert, nil
}

// as2Book is the store seen through the as2 package's Book.
type as2Book struct{ w *Workflow }

func (b as2Book) Identity(ctx context.Context) (as2.Identity, error) { return b.w.as2Identity(ctx) }

func (b as2Book) PartnerByName(ctx context.Context, name string) (as2.Partner, error) {
	return as2Partner(b.w.store.AS2PartnerByName(ctx, name))
}

func (b as2Book) PartnerByID(ctx context.Context, as2ID string) (as2.Partner, error) {
	return as2Partner(b.w.store.AS2PartnerByAS2ID(ctx, as2ID))
}

func as2Partner(p store.AS2Partner, err error) (as2.Partner, error) {
	if errors.Is(err, store.ErrNotFound) {
		return as2.Partner{}, as2.ErrUnknown
	} else if err != nil {
		return as2.Partner{}, err
	}
	cert, err := parseAS2Certificate(p.Certificate)
	if err != nil {
		return as2.Partner{}, err
	}
	return as2.Partner{Name: p.Name, ID: p.AS2ID, URL: p.URL, Certificate: cert, Sign: p.Sign, Cipher: p.Cipher, Compress: p.Compress, MDN: p.MDN}, nil
}

func (b as2Book) RecordSent(ctx context.Context, partner, messageID, mic string) error {
	return b.w.store.RecordAS2Message(ctx, partner, store.AS2Outbound, messageID, mic)
}

func (b as2Book) SentMIC(ctx context.Context, partner, messageID string) (string, error) {
	mic, err := b.w.store.AS2MessageMIC(ctx, partner, store.AS2Outbound, messageID)
	if errors.Is(err, store.ErrNotFound) {
		return "", as2.ErrUnknown
	}
	return mic, err
}

func (b as2Book) Received(ctx context.Context, partner, messageID string) (bool, error) {
	_, err := b.w.store.AS2MessageMIC(ctx, partner, store.AS2Inbound, messageID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (b as2Book) RecordReceived(ctx context.Context, partner, messageID, mic string) error {
	return b.w.store.RecordAS2Message(ctx, partner, store.AS2Inbound, messageID, mic)
}

// as2Inbox hands what AS2 partners send to the workflow. A message the workflow refuses is refused for
// good (a negative MDN); any other failure is passing, so the partner sends it again.
type as2Inbox struct{ w *Workflow }

func (in as2Inbox) Receive(ctx context.Context, partner, messageID string, payload []byte) error {
	err := in.w.Receive(ctx, partner, messageID, payload)
	if err != nil && codeFor(err).Status < http.StatusInternalServerError { // refused, with its code
		return edi.Permanent{Err: err}
	}
	return err
}

func (in as2Inbox) Acknowledge(ctx context.Context, messageID string, ok bool, detail string) error {
	return in.w.Acknowledge(ctx, messageID, ok, detail)
}

// receiveAS2 is POST /as2: messages and asynchronous MDNs from AS2 partners, who authenticate by the
// signature of their certificate; each client address is held to [as2] requests_per_minute.
func (s *Server) receiveAS2() echo.HandlerFunc {
	handler := echo.WrapHandler(s.AS2Handler(as2Inbox{s.Workflow}))
	limit := newCounter(s.store, "as2", s.cfg.AS2.RequestsPerMinute, time.Minute, time.Minute)
	return func(c echo.Context) error {
		if err := countRequest(c.Request().Context(), limit, clientAddress(c), s.now()); err != nil {
			return err
		}
		return handler(c)
	}
}
