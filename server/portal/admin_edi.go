package portal

import (
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"einvoice/server"
	"einvoice/server/edi/as2"
	"einvoice/server/i18n"
	"einvoice/signing"
	"einvoice/store"
	"einvoice/web"

	"github.com/labstack/echo/v4"
)

// The console's EDI pages: this installation's AS2 identity and its AS2 partners, the upstream brokers
// documents are forwarded to, and the queue of EDI deliveries. Partners and upstreams are named by a
// form field, not the path, as their names are free text.

func (p *Portal) ediRoutes(g *echo.Group) {
	g.GET("/as2", p.page(p.as2Page))
	g.GET("/as2/certificate.pem", p.as2Certificate)
	g.POST("/as2/identity", p.change(p.as2Page, p.importAS2Identity, "admin.as2_identity_imported"))
	g.POST("/as2/partners", p.change(p.as2Page, p.createAS2Partner, "admin.partner_created"))
	g.POST("/as2/partners/update", p.change(p.as2Page, p.updateAS2Partner, "admin.partner_saved"))
	g.POST("/as2/partners/delete", p.change(p.as2Page, p.deleteAS2Partner, "admin.partner_deleted"))
	g.GET("/upstreams", p.page(p.upstreamsPage))
	g.POST("/upstreams", p.change(p.upstreamsPage, p.createUpstream, "admin.upstream_created"))
	g.POST("/upstreams/delete", p.change(p.upstreamsPage, p.deleteUpstream, "admin.upstream_deleted"))
	g.GET("/edi", p.page(p.ediPage))
}

// maxPartnerCertificate bounds a partner's certificate, uploaded or pasted.
const maxPartnerCertificate = 64 << 10

// AS2.

func (p *Portal) as2Page(c echo.Context, status int, errs map[string]*web.FieldError) error {
	con, err := p.console(c, "admin.as2", "/portal/admin/as2", errs)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	id, err := p.wf.AS2Identity(ctx)
	if err != nil {
		return err
	}
	partners, err := p.wf.AS2Partners(ctx)
	if err != nil {
		return err
	}
	v := &web.AS2Page{Console: con, Identity: web.AS2IdentityRow{AS2ID: id.AS2ID, Subject: id.Subject, NotBefore: id.NotBefore,
		NotAfter: id.NotAfter, Fingerprint: id.Fingerprint, Certificate: id.Certificate},
		Signs: options(as2.SignAlgorithms), Ciphers: options(as2.CipherAlgorithms), MDNs: options(as2.MDNModes)}
	for _, pt := range partners {
		row := web.AS2PartnerRow{Name: pt.Name, AS2ID: pt.AS2ID, URL: pt.URL, Sign: pt.Sign, Cipher: pt.Cipher, MDN: pt.MDN,
			Compress: pt.Compress, Updated: pt.UpdatedAt}
		if block, _ := pem.Decode([]byte(pt.Certificate)); block != nil {
			if cert, err := x509.ParseCertificate(block.Bytes); err == nil {
				row.CertSubject, row.CertExpiry = signing.DisplayName(cert.Subject), cert.NotAfter.UTC().Format(time.RFC3339)
			}
		}
		v.Partners = append(v.Partners, row)
	}
	return p.render(c, status, "admin_as2", v)
}

// options are values as a select's choices, each its own label (algorithm names are not translated).
func options(values []string) []web.Option {
	out := make([]web.Option, len(values))
	for i, v := range values {
		out[i] = web.Option{Value: v, Label: v}
	}
	return out
}

// as2Certificate is the installation's AS2 certificate as a PEM file, to give to partners.
func (p *Portal) as2Certificate(c echo.Context) error {
	id, err := p.wf.AS2Identity(c.Request().Context())
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="as2-certificate.pem"`)
	return c.Blob(http.StatusOK, "application/x-pem-file", []byte(id.Certificate))
}

func (p *Portal) importAS2Identity(c echo.Context) (string, error) {
	data, err := formFile(c, "file", server.MaxSealFile)
	if err != nil {
		return "", err
	}
	if data == nil {
		return "", server.FieldErrors{"file": {Code: server.CodeRequired}}
	}
	_, err = p.wf.ImportAS2Identity(c.Request().Context(), data, c.FormValue("password"), strings.TrimSpace(c.FormValue("as2_id")))
	return "/portal/admin/as2", err
}

// formFile reads an uploaded file of up to max bytes (one byte more, for the workflow to refuse);
// nil when the form has none.
func formFile(c echo.Context, field string, max int64) ([]byte, error) {
	fh, err := c.FormFile(field)
	if err != nil {
		return nil, nil
	}
	f, err := fh.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max+1))
}

// partnerCertificate is the certificate a partner form uploads, else pastes; "" when it has neither.
func partnerCertificate(c echo.Context) (string, error) {
	data, err := formFile(c, "certificate_file", maxPartnerCertificate)
	if err != nil {
		return "", err
	}
	if len(data) == 0 {
		data = []byte(strings.TrimSpace(c.FormValue("certificate")))
	}
	if len(data) > maxPartnerCertificate {
		return "", server.FieldErrors{"certificate": {Code: server.CodeInvalidValue}}
	}
	return string(data), nil
}

func (p *Portal) createAS2Partner(c echo.Context) (string, error) {
	cert, err := partnerCertificate(c)
	if err != nil {
		return "", err
	}
	_, err = p.wf.CreateAS2Partner(c.Request().Context(), server.AS2PartnerInput{Name: c.FormValue("name"), AS2ID: c.FormValue("as2_id"),
		URL: strings.TrimSpace(c.FormValue("url")), Certificate: cert, Sign: c.FormValue("sign"), Cipher: c.FormValue("cipher"),
		Compress: checked(c, "compress"), MDN: c.FormValue("mdn")})
	return "/portal/admin/as2", err
}

// updateAS2Partner changes the partner the form names to the form's values; a certificate left empty
// stays as it is.
func (p *Portal) updateAS2Partner(c echo.Context) (string, error) {
	cert, err := partnerCertificate(c)
	if err != nil {
		return "", err
	}
	name, as2ID, url := c.FormValue("new_name"), c.FormValue("as2_id"), strings.TrimSpace(c.FormValue("url"))
	sign, cipher, mdn, compress := c.FormValue("sign"), c.FormValue("cipher"), c.FormValue("mdn"), checked(c, "compress")
	change := server.AS2PartnerChange{Name: &name, AS2ID: &as2ID, URL: &url, Sign: &sign, Cipher: &cipher, MDN: &mdn, Compress: &compress}
	if cert != "" {
		change.Certificate = &cert
	}
	_, err = p.wf.UpdateAS2Partner(c.Request().Context(), c.FormValue("name"), change)
	return "/portal/admin/as2", err
}

func (p *Portal) deleteAS2Partner(c echo.Context) (string, error) {
	return "/portal/admin/as2", p.wf.DeleteAS2Partner(c.Request().Context(), c.FormValue("name"))
}

// Upstream brokers.

func (p *Portal) upstreamsPage(c echo.Context, status int, errs map[string]*web.FieldError) error {
	con, err := p.console(c, "admin.upstreams", "/portal/admin/upstreams", errs)
	if err != nil {
		return err
	}
	us, err := p.wf.Upstreams(c.Request().Context())
	if err != nil {
		return err
	}
	v := &web.UpstreamsPage{Console: con}
	for _, u := range us {
		v.Rows = append(v.Rows, web.UpstreamRow{Name: u.Name, BaseURL: u.BaseURL, ClientID: u.ClientID, Created: u.CreatedAt})
	}
	return p.render(c, status, "admin_upstreams", v)
}

func (p *Portal) createUpstream(c echo.Context) (string, error) {
	_, err := p.wf.CreateUpstream(c.Request().Context(), store.Upstream{Name: c.FormValue("name"), BaseURL: c.FormValue("base_url"),
		ClientID: c.FormValue("client_id"), Secret: c.FormValue("secret"), PublicKey: c.FormValue("public_key")})
	return "/portal/admin/upstreams", err
}

func (p *Portal) deleteUpstream(c echo.Context) (string, error) {
	return "/portal/admin/upstreams", p.wf.DeleteUpstream(c.Request().Context(), c.FormValue("name"))
}

// The EDI delivery queue.

// ediRows is how many deliveries the queue's page shows, newest first.
const ediRows = 200

func (p *Portal) ediPage(c echo.Context, status int, errs map[string]*web.FieldError) error {
	con, err := p.console(c, "admin.edi", "/portal/admin/edi", errs)
	if err != nil {
		return err
	}
	lang := current(c).lang
	state := c.QueryParam("state")
	if !slices.Contains(server.EDIStates, state) {
		state = ""
	}
	ds, err := p.wf.EDIDeliveries(c.Request().Context(), state, ediRows)
	if err != nil {
		return err
	}
	v := &web.EDIPage{Console: con, Limit: ediRows}
	for _, s := range server.EDIStates {
		v.States = append(v.States, web.Option{Value: s, Label: i18n.T(lang, "admin.edi."+s), Selected: s == state})
	}
	for _, d := range ds {
		v.Rows = append(v.Rows, web.EDIRow{Document: strconv.FormatInt(d.DocumentID, 10), Version: strconv.Itoa(d.Version),
			Kind: i18n.T(lang, "admin.edi.kind."+d.Kind), Via: d.Connector + " · " + d.Partner, To: d.ToNIF, MessageID: d.MessageID,
			State: d.State, StateLabel: i18n.T(lang, "admin.edi."+d.State), Attempts: strconv.Itoa(d.Attempts), NextTry: d.NextAt,
			Error: d.LastError, Created: d.CreatedAt})
	}
	return p.render(c, status, "admin_edi", v)
}
