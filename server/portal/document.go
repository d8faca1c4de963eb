package portal

import (
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"

	"einvoice/server"
	"einvoice/server/i18n"
	"einvoice/store"
	"einvoice/ubl"
	"einvoice/ubl/pdf"
	"einvoice/web"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"
)

// The document page: the document rendered from its UBL, its state, timeline and files, and what the
// user may do with it. Actions are forms that post, then come back to the page with a message.

func (p *Portal) document(c echo.Context) error {
	return p.documentPage(c, http.StatusOK, nil)
}

func (p *Portal) documentPage(c echo.Context, status int, errs map[string]*web.FieldError) error {
	lang := current(c).lang
	a, b, err := p.base(c, "", "")
	if err != nil {
		return p.noEntity(c, err)
	}
	ref := c.Param("id")
	d, err := p.wf.DocumentDetail(c.Request().Context(), a, ref)
	if err != nil {
		return p.workflowError(c, err)
	}
	signatures, err := p.wf.DocumentSignatures(c.Request().Context(), d)
	if err != nil {
		return err
	}
	v := documentView(b, a, d, lang)
	v.Signatures = signatureBadges(signatures, lang)
	v.Actions.Errors = errs
	v.Title = v.Type + " " + v.Number
	return p.render(c, status, "document", v)
}

// workflowError answers a refusal of the workflow as a page: not found, or the error page.
func (p *Portal) workflowError(c echo.Context, err error) error {
	codes := server.FieldCodes(err)
	if codes == nil {
		return err
	}
	if codes[""] == server.CodeNotFound {
		return p.fail(c, http.StatusNotFound, "error.not_found")
	}
	fields := slices.Sorted(maps.Keys(codes)) // the page names one refusal: the first field's, by name
	return p.fail(c, http.StatusBadRequest, "code."+codes[fields[0]].ID)
}

func documentView(b web.Base, a server.Access, d server.DocumentDetail, lang string) *web.DocumentPage {
	doc, m := d.Document, d.Model
	money := func(x decimal.Decimal) string { return pdf.Number(lang, x.StringFixed(2)) }
	v := &web.DocumentPage{Base: b, Ref: doc.PublicID, Number: doc.Number, Type: i18n.T(lang, "kind."+doc.Kind),
		IssueDate: m.IssueDate, DueDate: m.DueDate, Currency: m.Currency, Notes: m.Notes}
	v.Badges = append(v.Badges, web.Badge{Label: i18n.T(lang, "col.state"), Value: i18n.T(lang, "state."+doc.State), Class: doc.State})
	v.Badges = append(v.Badges, web.Badge{Label: "EDI", Value: i18n.T(lang, "edi."+doc.EDIState), Class: "edi"})
	if doc.ProcessState != "" {
		v.Badges = append(v.Badges, web.Badge{Label: i18n.T(lang, "doc.process_state"), Value: doc.ProcessState, Class: "info"})
	}
	if doc.ImportedAt != "" {
		v.Badges = append(v.Badges, web.Badge{Label: i18n.T(lang, "doc.imported"), Value: doc.ImportedAt, Class: "ok"})
	}
	v.Seller = partyBlock(i18n.T(lang, "col.supplier"), m.Seller)
	v.Buyer = partyBlock(i18n.T(lang, "col.customer"), m.Buyer)
	for _, r := range []struct{ key, value string }{
		{"ref.order", m.References.Order}, {"ref.contract", m.References.Contract}, {"ref.project", m.References.Project},
		{"ref.despatch", m.References.Despatch}, {"ref.receipt", m.References.Receipt}, {"ref.buyer", m.BuyerReference},
		{"ref.atcud", m.ATCUD()},
	} {
		if r.value != "" {
			v.References = append(v.References, web.Field{Label: i18n.T(lang, r.key), Value: r.value})
		}
	}
	for _, pi := range m.References.PrecedingInvoice {
		v.References = append(v.References, web.Field{Label: i18n.T(lang, "ref.preceding"), Value: strings.TrimSpace(pi.Number + " " + pi.IssueDate)})
	}
	for _, l := range m.Lines {
		row := web.LineRow{ID: l.ID, Name: l.Item.Name, Description: l.Item.Description,
			Quantity: pdf.Number(lang, l.Quantity.String()), Unit: l.Unit, Tax: taxLabel(l.Item.VAT)}
		if l.Price.Net != nil {
			row.Price = pdf.Number(lang, l.Price.Net.String())
		}
		if l.NetAmount != nil {
			row.Net = money(*l.NetAmount)
		}
		v.Lines = append(v.Lines, row)
	}
	for _, ac := range m.AllowancesCharges {
		kind := i18n.T(lang, "doc.allowance")
		if ac.Charge {
			kind = i18n.T(lang, "doc.charge")
		}
		row := web.ChargeRow{Kind: kind, Reason: strings.TrimSpace(ac.ReasonCode + " " + ac.Reason), Amount: money(ac.Amount)}
		if ac.VAT != nil {
			row.Tax = taxLabel(*ac.VAT)
		}
		v.Charges = append(v.Charges, row)
	}
	for _, t := range m.VATBreakdown {
		v.Taxes = append(v.Taxes, web.TaxRow{Category: taxLabel(t.Category), Taxable: money(t.Taxable), Tax: money(t.Tax),
			Exemption: strings.TrimSpace(t.Category.ExemptionReasonCode + " " + t.Category.ExemptionReason)})
	}
	total := func(key string, x *decimal.Decimal) {
		if x != nil {
			v.Totals = append(v.Totals, web.Field{Label: i18n.T(lang, key), Value: money(*x) + " " + m.Currency})
		}
	}
	total("total.lines", &m.Totals.LineNet)
	total("total.allowances", m.Totals.AllowanceTotal)
	total("total.charges", m.Totals.ChargeTotal)
	total("total.without_vat", m.Totals.TaxExclusive)
	total("total.vat", m.TaxTotal)
	total("total.with_vat", m.Totals.TaxInclusive)
	total("total.prepaid", m.Totals.Prepaid)
	total("total.payable", &m.Totals.Payable)
	if m.PaymentTerms != "" {
		v.Payment = append(v.Payment, web.Field{Label: i18n.T(lang, "doc.terms"), Value: m.PaymentTerms})
	}
	for _, pm := range m.PaymentMeans {
		v.Payment = append(v.Payment, web.Field{Label: i18n.T(lang, "doc.means"), Value: strings.TrimSpace(pm.Code + " " + pm.Name)})
		for _, acc := range pm.Accounts {
			v.Payment = append(v.Payment, web.Field{Label: "IBAN", Value: acc.ID})
		}
		if pm.PaymentID != "" {
			v.Payment = append(v.Payment, web.Field{Label: i18n.T(lang, "doc.payment_id"), Value: pm.PaymentID})
		}
	}
	v.Timeline, v.Reasons = timeline(d.History, lang)
	v.Emails = emailRows(d.Emails, lang)

	base := "/portal/documents/" + doc.PublicID
	v.Files = append(v.Files, web.FileLink{Label: doc.Number + ".xml", Href: base + "/xml", Kind: "XML"},
		web.FileLink{Label: doc.Number + ".pdf", Href: base + "/pdf", Kind: "PDF"})
	v.PDF = base + "/pdf?inline=1"
	for _, f := range d.Files {
		if f.Role == store.FileAttachment {
			v.Files = append(v.Files, web.FileLink{Label: f.Name, Href: base + "/files/" + f.PublicID, Kind: f.MIME})
		}
	}

	if d.AsIssuer && a.CanAct() {
		v.Actions.Resend = true
		v.Actions.Addresses = strings.Join(doc.EmailAddresses, ", ")
		if server.Editable(doc) {
			v.Actions.Correct = base + "/correct"
			v.Actions.SendByEmail, v.Actions.NoXMLSign, v.Actions.NoPDFSign = doc.SendByEmail, doc.DisableXMLSign, doc.DisablePDFSign
		}
	}
	if !d.AsIssuer && a.CanAct() {
		v.Actions.Decide = doc.State == store.StateSent
		v.Actions.Import = doc.ImportedAt == "" && doc.State != store.StateRejected
		for _, ps := range d.ProcessStates {
			v.Actions.ProcessStates = append(v.Actions.ProcessStates, web.Option{Value: ps.Code, Label: ps.Name,
				Selected: ps.Code == doc.ProcessState})
		}
	}
	return v
}

func partyBlock(title string, p ubl.Party) web.PartyBlock {
	b := web.PartyBlock{Title: title, Name: p.Name, TaxID: p.VATID}
	if p.LegalName != "" && p.LegalName != p.Name {
		b.Name = p.LegalName
	}
	if b.Name == "" {
		b.Name = p.LegalName
	}
	ad := p.Address
	for _, line := range []string{strings.TrimSpace(ad.Street + " " + ad.BuildingNumber), ad.AdditionalStreet, ad.Line,
		strings.TrimSpace(ad.PostalZone + " " + ad.City), ad.Subdivision, ad.Country} {
		if line != "" {
			b.Address = append(b.Address, line)
		}
	}
	for _, line := range []string{p.Contact.Name, p.Contact.Telephone, p.Contact.Email} {
		if line != "" {
			b.Contact = append(b.Contact, line)
		}
	}
	return b
}

func taxLabel(t ubl.TaxCategory) string {
	if t.Percent == nil {
		return t.ID
	}
	return t.ID + " " + t.Percent.String() + "%"
}

// documentFile sends a file of the document: as an attachment, or inline (?inline=1, for the PDF's
// frame).
func (p *Portal) documentFile(file string) echo.HandlerFunc {
	return func(c echo.Context) error {
		a, _, err := p.base(c, "", "")
		if err != nil {
			return p.noEntity(c, err)
		}
		name := file
		if name == "" {
			name = c.Param("file")
		}
		f, err := p.wf.DocumentFile(c.Request().Context(), a, c.Param("id"), name)
		if err != nil {
			return p.workflowError(c, err)
		}
		disposition := "attachment"
		if c.QueryParam("inline") == "1" && f.MIME == "application/pdf" {
			disposition = "inline"
		}
		h := c.Response().Header()
		h.Set(echo.HeaderContentDisposition, mime.FormatMediaType(disposition, map[string]string{"filename": f.Name}))
		if disposition == "inline" {
			h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'self'") // the browser's PDF viewer must run
		} else {
			h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'self'; sandbox")
		}
		return c.Blob(http.StatusOK, f.MIME, f.Content)
	}
}

// act runs one of the recipient's actions and comes back to the page: with a message when it was
// done, with the refusal beside its field when not.
func (p *Portal) act(do func(c echo.Context, a server.Access, ref string) error, done string) echo.HandlerFunc {
	return func(c echo.Context) error {
		a, _, err := p.base(c, "", "")
		if err != nil {
			return p.noEntity(c, err)
		}
		if !a.CanAct() {
			return p.fail(c, http.StatusForbidden, "error.forbidden")
		}
		ref := c.Param("id")
		if err := do(c, a, ref); err != nil {
			codes := server.FieldCodes(err)
			if codes == nil || codes[""] != nil {
				return p.workflowError(c, err)
			}
			return p.documentPage(c, http.StatusBadRequest, fieldErrors(codes, current(c).lang))
		}
		p.flash(c, false, done)
		return c.Redirect(http.StatusSeeOther, "/portal/documents/"+ref)
	}
}

func (p *Portal) decide(c echo.Context, a server.Access, ref string) error {
	accepted := c.FormValue("accepted")
	if accepted != "1" && accepted != "0" {
		return server.FieldErrors{"accepted": {Code: server.CodeRequired}}
	}
	_, err := p.wf.DecideDocument(c.Request().Context(), a.Entity.ID, ref, accepted == "1", c.FormValue("reason"))
	return err
}

func (p *Portal) markImported(c echo.Context, a server.Access, ref string) error {
	_, err := p.wf.ImportDocument(c.Request().Context(), a.Entity.ID, ref)
	return err
}

func (p *Portal) setProcessState(c echo.Context, a server.Access, ref string) error {
	_, _, err := p.wf.SetProcessState(c.Request().Context(), a.Entity.ID, ref, c.FormValue("identification_code"))
	return err
}
