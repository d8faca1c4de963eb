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

// apiFileURL gives the authenticated download addresses of a document's XML and PDF (xml_url,
// pdf_url); its other files are linked publicly (publicFileURL).
func (s *Server) apiFileURL(c echo.Context, d store.Document) fileURL {
	base := s.baseURL() + "/api/v1/" + langOf(c) + "/apps/documents/" + d.PublicID + "/"
	return func(file string) string { return base + file }
}

// Public download links let a client fetch a document's files with a plain GET, without API
// credentials: the attachments of every document view and list item, and the files of webhook events.
// A link is a capability made for one party of the document (its issuer, or its recipient), one file
// and one version of the document, and it ends: it serves nothing once the document is edited, once the
// party is no longer one (an edit that changes the customer), after the configured lifetime, or once
// the party revokes the links it was given (RevokeFileLinks). Its token holds when it was made, when
// it expires and an HMAC, under the installation's secret key, of all of these; making one reads
// nothing from the database.

// linkMACLen is how much of the HMAC a link's token carries: 144 bits.
const linkMACLen = 18

// linkTokenLen is a token's length: when it was made (unix nanoseconds), when it expires (unix
// seconds), and the MAC.
const linkTokenLen = 8 + 8 + linkMACLen

// publicLinkTTL is how long a public link works.
func (s *Server) publicLinkTTL() time.Duration {
	if s.cfg.Auth.PublicLinkTTL > 0 {
		return s.cfg.Auth.PublicLinkTTL
	}
	return DefaultPublicLinkTTL
}

// linkMAC authenticates a link to one file of one version of a document, for one party, made at made
// and valid until expires.
func (s *Server) linkMAC(d store.Document, party int64, file string, made, expires int64) []byte {
	msg := strings.Join([]string{strconv.FormatInt(d.ID, 10), file, strconv.FormatInt(party, 10),
		strconv.Itoa(d.Edits), strconv.FormatInt(made, 10), strconv.FormatInt(expires, 10)}, "/")
	return s.store.MAC("public link", []byte(msg))[:linkMACLen]
}

// publicFileURL gives the public addresses of a document's files, for one of its parties.
func (s *Server) publicFileURL(d store.Document, party int64) fileURL {
	now := s.now()
	made, expires := now.UnixNano(), now.Add(s.publicLinkTTL()).Unix()
	base := s.baseURL() + "/public/documents/" + d.PublicID + "/"
	return func(file string) string {
		token := make([]byte, 16, linkTokenLen)
		binary.BigEndian.PutUint64(token, uint64(made))
		binary.BigEndian.PutUint64(token[8:], uint64(expires))
		token = append(token, s.linkMAC(d, party, file, made, expires)...)
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

// linkHolder tells which party token was made for, and when, if it opens the file of the document as
// it is now and has not expired.
func (s *Server) linkHolder(d store.Document, file, token string) (party, made int64, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) != linkTokenLen {
		return 0, 0, false
	}
	made, expires := int64(binary.BigEndian.Uint64(raw)), int64(binary.BigEndian.Uint64(raw[8:]))
	for _, p := range linkParties(d) { // every party's MAC is computed, whichever matches
		if hmac.Equal(raw[16:], s.linkMAC(d, p, file, made, expires)) {
			party, ok = p, true
		}
	}
	return party, made, ok && s.now().Unix() <= expires
}

// publicDownload is GET /public/documents/{id}/{file}?token=…: a file of a document, for a link that
// still holds. Anything else is 404, expired and revoked links included, so that an address tells
// nothing.
func (s *Server) publicDownload(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := s.store.ParsePublicID(store.KindDocument, c.Param("id"))
	if err != nil {
		return fail(CodeNotFound)
	}
	d, err := s.store.DocumentByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return fail(CodeNotFound)
	}
	if err != nil {
		return err
	}
	party, made, ok := s.linkHolder(d, c.Param("file"), c.QueryParam("token"))
	if !ok {
		return fail(CodeNotFound)
	}
	revoked, err := s.store.LinksRevokedBefore(ctx, d.ID, party)
	if err != nil {
		return err
	}
	if made <= revoked {
		return fail(CodeNotFound)
	}
	return s.sendFile(c, d, c.Param("file"))
}

// RevokeFileLinks ends every public file link the entity was given for the document (in document
// views, list items and webhook events) until now; links made afterwards work. The document must be
// one the entity may read; anything else is 404.
func (w *Workflow) RevokeFileLinks(ctx context.Context, entityID int64, ref string) (store.Document, error) {
	d, err := w.partyDocument(ctx, entityID, ref)
	if err != nil {
		return d, err
	}
	revoked := w.now().UnixNano()
	return d, w.store.Update(ctx, func(tx *store.Tx) error { return tx.RevokeLinks(d.ID, entityID, revoked) })
}

// revokeFileLinks is DELETE /apps/documents/{id}/links.
func (s *Server) revokeFileLinks(c echo.Context) error {
	d, err := s.RevokeFileLinks(c.Request().Context(), actingEntity(c).ID, c.Param("id"))
	if err != nil {
		return err
	}
	return respond(c, CodeLinksRevoked, map[string]any{"data": map[string]string{"id": d.PublicID}})
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
