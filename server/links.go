package server

import (
	"context"
	"crypto/hmac"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"mime"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"einvoice/store"

	"github.com/labstack/echo/v4"
)

// Links the service hands out: the API addresses of a document and its files, and the public download
// links of webhook events. Every link starts with the installation's public address, never with
// anything a client sent.

// DefaultPublicLinkTTL is how long a public download link works unless [security] public_link_ttl says
// otherwise.
const DefaultPublicLinkTTL = 30 * 24 * time.Hour

// baseURL is the installation's public address: server.public_url, or else the address it listens on.
func (s *Server) baseURL() string {
	if s.cfg.HTTP.PublicURL != "" {
		return strings.TrimRight(s.cfg.HTTP.PublicURL, "/")
	}
	addr := s.cfg.HTTP.Listen
	if a := s.listenAddr.Load(); a != nil {
		addr = *a
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// fileURL gives the address of one of a document's files: "xml", "pdf", or a file's public id.
type fileURL func(file string) string

// apiFileURL gives the authenticated download addresses of a document's files.
func (s *Server) apiFileURL(c echo.Context, d store.Document) fileURL {
	base := s.baseURL() + "/api/v1/" + langOf(c) + "/apps/documents/" + d.PublicID
	return func(file string) string {
		switch file {
		case "xml", "pdf":
			return base + "/" + file
		}
		return base + "/files/" + file
	}
}

// Public download links let a webhook receiver fetch a document's files without API credentials. A
// link is a capability made for one party of the document (its issuer, or its recipient) and one
// version of it, and it expires: it serves nothing once the document is edited, once the party is no
// longer one (an edit that changes the customer), or after the configured lifetime. Its token holds
// the expiry and an HMAC, under the installation's secret key, of all of these.

// linkMACLen is how much of the HMAC a link's token carries: 144 bits.
const linkMACLen = 18

// publicLinkTTL is how long a public link works.
func (s *Server) publicLinkTTL() time.Duration {
	if s.cfg.Auth.PublicLinkTTL > 0 {
		return s.cfg.Auth.PublicLinkTTL
	}
	return DefaultPublicLinkTTL
}

// linkMAC authenticates a link to one file of one version of a document, for one party, until expires.
func (s *Server) linkMAC(d store.Document, party int64, file string, expires int64) []byte {
	msg := strings.Join([]string{strconv.FormatInt(d.ID, 10), file, strconv.FormatInt(party, 10),
		strconv.Itoa(d.Edits), strconv.FormatInt(expires, 10)}, "/")
	return s.store.MAC("public link", []byte(msg))[:linkMACLen]
}

// publicFileURL gives the public addresses of a document's files, for one of its parties.
func (s *Server) publicFileURL(d store.Document, party int64) fileURL {
	expires := s.now().Add(s.publicLinkTTL()).Unix()
	base := s.baseURL() + "/public/documents/" + d.PublicID + "/"
	return func(file string) string {
		token := binary.BigEndian.AppendUint64(make([]byte, 0, 8+linkMACLen), uint64(expires))
		token = append(token, s.linkMAC(d, party, file, expires)...)
		return base + file + "?token=" + base64.RawURLEncoding.EncodeToString(token)
	}
}

// linkParties are the entities links to the document may be made for now: its issuer, and its
// recipient once the document was delivered.
func linkParties(d store.Document) []int64 {
	if d.RecipientID != 0 && d.State != store.StateToSend {
		return []int64{d.IssuerID, d.RecipientID}
	}
	return []int64{d.IssuerID}
}

// isParty tells whether an entity may still be told about the document (its links, its webhook events).
func isParty(d store.Document, entityID int64) bool { return slices.Contains(linkParties(d), entityID) }

// errNotAParty stops a webhook event for an entity that is no longer a party to its document.
var errNotAParty = errors.New("the webhook's entity is no longer a party to the document")

// linkValid tells whether token opens the file of the document as it is now.
func (s *Server) linkValid(d store.Document, file, token string) bool {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) != 8+linkMACLen {
		return false
	}
	expires := int64(binary.BigEndian.Uint64(raw[:8]))
	valid := false
	for _, party := range linkParties(d) {
		valid = hmac.Equal(raw[8:], s.linkMAC(d, party, file, expires)) || valid
	}
	return valid && s.now().Unix() <= expires
}

// publicDownload is GET /public/documents/{id}/{file}?token=…: a file of a document, for a link that
// still holds. Anything else is 404, expired links included, so that an address tells nothing.
func (s *Server) publicDownload(c echo.Context) error {
	id, err := s.store.ParsePublicID(store.KindDocument, c.Param("id"))
	if err != nil {
		return fail(CodeNotFound)
	}
	d, err := s.store.DocumentByID(c.Request().Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return fail(CodeNotFound)
	}
	if err != nil {
		return err
	}
	if !s.linkValid(d, c.Param("file"), c.QueryParam("token")) {
		return fail(CodeNotFound)
	}
	return s.sendFile(c, d, c.Param("file"))
}

// sendFile answers with one of a document's files ("xml", "pdf" or a file's public id) as an
// attachment, provided the document is still the version d was read as (an edit between the two
// reads would otherwise hand the new version to whoever could see the old one).
func (s *Server) sendFile(c echo.Context, d store.Document, file string) error {
	f, err := s.fileOf(c.Request().Context(), d, file)
	if errors.Is(err, store.ErrNotFound) {
		return fail(CodeNotFound)
	}
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, mime.FormatMediaType("attachment", map[string]string{"filename": cleanFileName(f.Name, f.MIME)}))
	return c.Blob(http.StatusOK, f.MIME, f.Content)
}

// fileOf reads a file of a document read before: "xml", "pdf" (rendered and kept on first request) or
// a file's public id; store.ErrNotFound when there is none, or when the document changed version or
// recipient since it was read (so that a reader never gets the file of a version it may not see).
func (w *Workflow) fileOf(ctx context.Context, d store.Document, file string) (store.File, error) {
	var f store.File
	var err error
	switch file {
	case "xml":
		f, err = w.store.DocumentFileByRole(ctx, d.ID, store.FileXML)
	case "pdf":
		f, err = w.documentPDF(ctx, d)
	default:
		var id int64
		if id, err = w.store.ParsePublicID(store.KindFile, file); err == nil {
			f, err = w.store.DocumentFile(ctx, d.ID, id)
		}
	}
	if err != nil {
		return f, err
	}
	edits, recipient, err := w.store.DocumentVersion(ctx, d.ID)
	if err == nil && (edits != d.Edits || recipient != d.RecipientID) {
		err = store.ErrNotFound
	}
	return f, err
}
