package portal

import (
	"io"
	"net/http"
	"strings"

	"einvoice/server"
	"einvoice/server/i18n"
	"einvoice/ubl"
	"einvoice/web"

	"github.com/labstack/echo/v4"
)

// Issuing by upload: a UBL XML and the options of POST /apps/documentsUBL, through the same workflow
// method; and the correction of an editable document, which is the same upload for one document. A
// refusal shows each field's code and the official rules' findings.

// maxFindingsShown bounds the findings a refused upload lists.
const maxFindingsShown = 200

func (p *Portal) uploadForm(c echo.Context) error {
	return p.uploadPage(c, http.StatusOK, "", nil, nil)
}

func (p *Portal) upload(c echo.Context) error {
	return p.submitUpload(c, "")
}

func (p *Portal) correctForm(c echo.Context) error {
	return p.uploadPage(c, http.StatusOK, c.Param("id"), nil, nil)
}

func (p *Portal) correct(c echo.Context) error {
	return p.submitUpload(c, c.Param("id"))
}

// uploadPage shows the form: to issue a document, or, with ref, to correct that one (only while it is
// editable). After a refusal the form keeps the options posted.
func (p *Portal) uploadPage(c echo.Context, status int, ref string, refusal error, posted *server.IssueOptions) error {
	lang := current(c).lang
	here := "/portal/documents/new"
	if ref != "" {
		here = ""
	}
	a, b, err := p.base(c, i18n.T(lang, "new.title"), here)
	if err != nil {
		return p.noEntity(c, err)
	}
	if !a.CanAct() {
		return p.fail(c, http.StatusForbidden, "error.forbidden")
	}
	v := &web.UploadPage{Base: b, Action: "/portal/documents/new"}
	if ref != "" {
		d, err := p.wf.DocumentDetail(c.Request().Context(), a, ref)
		if err != nil {
			return p.workflowError(c, err)
		}
		if !d.AsIssuer || !server.Editable(d.Document) && refusal == nil {
			return p.fail(c, http.StatusNotFound, "error.not_found")
		}
		href := "/portal/documents/" + d.Document.PublicID
		v.Title = i18n.T(lang, "correct.title", d.Document.Number)
		v.Action, v.Correct = href+"/correct", &web.DocumentLink{Number: d.Document.Number, Href: href}
		if posted == nil {
			posted = &server.IssueOptions{SendByEmail: d.Document.SendByEmail, Emails: d.Document.EmailAddresses,
				DisableXMLSign: d.Document.DisableXMLSign, DisablePDFSign: d.Document.DisablePDFSign}
		}
	}
	if posted != nil {
		v.SendByEmail, v.Addresses = posted.SendByEmail, strings.Join(posted.Emails, ", ")
		v.NoXMLSign, v.NoPDFSign = posted.DisableXMLSign, posted.DisablePDFSign
	}
	if refusal != nil {
		v.Errors = uploadErrors(server.FieldCodes(refusal), lang)
		findings := server.Findings(refusal)
		for i, f := range findings {
			if i == maxFindingsShown {
				v.More = len(findings) - i
				break
			}
			v.Findings = append(v.Findings, findingRow(f))
		}
	}
	return p.render(c, status, "new", v)
}

// uploadErrors are the refusal's codes by the form's fields: the additional addresses are one field.
func uploadErrors(codes map[string]*server.Code, lang string) map[string]*web.FieldError {
	out := fieldErrors(codes, lang)
	for field, e := range out {
		if strings.HasPrefix(field, "additional_emails[") {
			delete(out, field)
			out["additional_emails"] = e
		}
	}
	return out
}

// submitUpload issues the uploaded document, or corrects the document ref with it, and goes to its
// page; a refusal comes back to the form.
func (p *Portal) submitUpload(c echo.Context, ref string) error {
	a, _, err := p.base(c, "", "")
	if err != nil {
		return p.noEntity(c, err)
	}
	if !a.CanAct() {
		return p.fail(c, http.StatusForbidden, "error.forbidden")
	}
	lang := current(c).lang
	opts, err := server.ParseIssueOptions(c.FormValue("send_by_email"), c.FormValue("disable_xml_sign"), c.FormValue("disable_pdf_sign"),
		splitAddresses(c.FormValue("additional_emails")))
	posted := &opts
	if err == nil {
		var xml []byte
		if xml, _, err = readUpload(c, "document"); err == nil {
			var out server.Issued
			if ref == "" {
				out, err = p.wf.IssueXML(c.Request().Context(), a.Entity, xml, opts, lang)
			} else {
				out, err = p.wf.CorrectDocument(c.Request().Context(), a.Entity, ref, xml, opts, lang)
			}
			if err == nil {
				done := "new.issued"
				switch {
				case ref != "":
					done = "correct.done"
				case out.Edited:
					done = "new.edited"
				}
				p.flash(c, false, done)
				return c.Redirect(http.StatusSeeOther, "/portal/documents/"+server.DocumentRef(out.Document))
			}
		}
	}
	codes := server.FieldCodes(err)
	if codes == nil {
		return err
	}
	if codes[""] != nil {
		return p.workflowError(c, err)
	}
	status := http.StatusBadRequest
	if codes["document"] == server.CodeBodyTooLarge {
		status = http.StatusRequestEntityTooLarge
	}
	return p.uploadPage(c, status, ref, err, posted)
}

// splitAddresses reads a list of addresses separated by commas, semicolons, spaces or lines (the
// workflow bounds how many).
func splitAddresses(s string) []string {
	if len(s) > 64<<10 {
		s = s[:64<<10]
	}
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\n' || r == '\r' || r == '\t' })
}

// maxUploadBytes bounds a file the portal reads.
const maxUploadBytes = 25 << 20

// readUpload reads the uploaded file of a form field, bounded: CodeRequired when there is none or it
// is empty, CodeTooLarge when it passes the bound.
func readUpload(c echo.Context, field string) ([]byte, string, error) {
	fh, err := c.FormFile(field)
	if err != nil {
		return nil, "", server.FieldErrors{field: {Code: server.CodeRequired}}
	}
	f, err := fh.Open()
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxUploadBytes+1))
	switch {
	case err != nil:
		return nil, "", err
	case len(data) > maxUploadBytes:
		return nil, "", server.FieldErrors{field: {Code: server.CodeBodyTooLarge}}
	case len(strings.TrimSpace(string(data))) == 0:
		return nil, "", server.FieldErrors{field: {Code: server.CodeRequired}}
	}
	return data, fh.Filename, nil
}

// findingRow is a finding as the pages list it.
func findingRow(f ubl.Finding) web.FindingRow {
	return web.FindingRow{Flag: f.Flag, Rule: f.Rule, Message: strings.TrimPrefix(f.Message, "["+f.Rule+"]-"), Location: f.Location}
}

// resend sends the document's e-mail again, to the addresses of the form or the previous ones.
func (p *Portal) resend(c echo.Context, a server.Access, ref string) error {
	_, err := p.wf.ResendEmails(c.Request().Context(), a.Entity.ID, ref, splitAddresses(c.FormValue("addresses")))
	return err
}
