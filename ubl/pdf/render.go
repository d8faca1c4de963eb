// Package pdf renders the visual PDF of an invoice, credit note or order from its model: an A4 layout
// with the parties and their tax IDs, the lines (over as many pages as they need, the table header
// repeated), the VAT breakdown with exemption reasons, the totals, payment data, the ATCUD and the AT
// QR code, and page numbers. Fonts are the Go fonts, embedded; no system font is used.
package pdf

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"einvoice/ubl"

	"codeberg.org/go-pdf/fpdf"
	"github.com/shopspring/decimal"
	"golang.org/x/image/font/gofont/goregular"
	"rsc.io/qr"
)

// Options tune a rendering.
type Options struct {
	Lang   string    // "pt" (the default) or "en"
	QRCode string    // the AT QR code text; else the document's QR_CODE attachment, else built from the document
	Now    time.Time // written as the PDF's creation date (zero: the issue date)
}

// Layout, in millimetres.
const (
	pageW, pageH = 210.0, 297.0
	margin       = 15.0
	contentW     = pageW - 2*margin
	rowH         = 4.6
	footerH      = 14.0
	qrSize       = 30.0 // the AT QR code: at least 30 mm
)

// Render writes the PDF.
func Render(d *ubl.Document, opts Options) ([]byte, error) {
	l := labelsFor(opts.Lang)
	f := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "mm", Size: fpdf.SizeType{Wd: pageW, Ht: pageH}})
	f.SetMargins(margin, margin, margin)
	f.SetAutoPageBreak(false, margin)
	// One embedded font: loading a TrueType font costs most of a one-page rendering, so bold is the
	// regular face drawn with a thin outline of its own colour.
	f.AddUTF8FontFromBytes("go", "", goregular.TTF)
	f.SetCreator("einvoice", true)
	title := l.title(d)
	f.SetTitle(title+" "+d.Number, true)
	created := opts.Now
	if created.IsZero() {
		created, _ = time.Parse(time.DateOnly, d.IssueDate)
	}
	f.SetCreationDate(created)
	f.SetModificationDate(created)
	f.AliasNbPages("{nb}")
	r := &renderer{f: f, d: d, l: l, opts: opts}
	f.SetFooterFunc(r.footer)

	f.AddPage()
	r.header(title)
	r.parties()
	r.references()
	r.lines()
	r.breakdown()
	r.totalsAndQRCode()
	r.payment()
	r.notes()
	if err := f.Error(); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := f.Output(&out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

type renderer struct {
	f     *fpdf.Fpdf
	d     *ubl.Document
	l     labels
	opts  Options
	bold  bool
	size  float64
	color [3]int
}

// font sets the size and whether the text is bold.
func (r *renderer) font(style string, size float64) {
	r.f.SetFont("go", "", size)
	r.bold, r.size = style == "B", size
	if r.bold {
		r.f.SetTextRenderingMode(2) // fill and stroke
		r.f.SetLineWidth(size * 0.012)
		r.f.SetDrawColor(r.color[0], r.color[1], r.color[2])
	} else {
		r.f.SetTextRenderingMode(0)
	}
}

func (r *renderer) textColor(red, green, blue int) {
	r.color = [3]int{red, green, blue}
	r.f.SetTextColor(red, green, blue)
	if r.bold {
		r.f.SetDrawColor(red, green, blue)
	}
}

func (r *renderer) gray()  { r.textColor(100, 100, 100) }
func (r *renderer) black() { r.textColor(20, 20, 20) }

// rule draws a thin gray line (or, with w and h, a box outline).
func (r *renderer) rule() {
	r.f.SetDrawColor(200, 200, 200)
	r.f.SetLineWidth(0.2)
}

// ensure starts a new page when less than h millimetres are left above the footer.
func (r *renderer) ensure(h float64) bool {
	if r.f.GetY()+h > pageH-margin-footerH {
		r.f.AddPage()
		return true
	}
	return false
}

func (r *renderer) header(title string) {
	f, d := r.f, r.d
	s := d.Seller
	r.black()
	r.font("B", 14)
	f.SetXY(margin, margin)
	f.MultiCell(contentW*0.55, 6, cmp.Or(s.LegalName, s.Name), "", "L", false)
	r.font("", 8.5)
	r.gray()
	for _, line := range addressLines(s.Address) {
		f.SetX(margin)
		f.CellFormat(contentW*0.55, 4, line, "", 1, "L", false, 0, "")
	}
	if id := taxIDOf(s); id != "" {
		f.SetX(margin)
		f.CellFormat(contentW*0.55, 4, r.l.taxID+" "+id, "", 1, "L", false, 0, "")
	}
	if s.LegalForm != "" {
		f.SetX(margin)
		f.CellFormat(contentW*0.55, 4, s.LegalForm, "", 1, "L", false, 0, "")
	}
	if c := strings.TrimSpace(strings.Join(nonEmpty(s.Contact.Telephone, s.Contact.Email), "  ·  ")); c != "" {
		f.SetX(margin)
		f.CellFormat(contentW*0.55, 4, c, "", 1, "L", false, 0, "")
	}
	leftBottom := f.GetY()

	x := margin + contentW*0.6
	w := contentW * 0.4
	f.SetXY(x, margin)
	r.black()
	r.font("B", 16)
	f.CellFormat(w, 8, title, "", 1, "R", false, 0, "")
	r.font("B", 11)
	f.SetX(x)
	f.CellFormat(w, 6, d.Number, "", 1, "R", false, 0, "")
	r.font("", 8.5)
	kv := [][2]string{{r.l.issueDate, d.IssueDate}}
	if d.DueDate != "" {
		kv = append(kv, [2]string{r.l.dueDate, d.DueDate})
	}
	for _, pm := range d.PaymentMeans {
		if pm.DueDate != "" && d.DueDate == "" {
			kv = append(kv, [2]string{r.l.dueDate, pm.DueDate})
		}
	}
	if atcud := d.ATCUD(); atcud != "" {
		kv = append(kv, [2]string{"ATCUD", atcud})
	}
	kv = append(kv, [2]string{r.l.currency, d.Currency})
	for _, p := range kv {
		f.SetX(x)
		r.gray()
		f.CellFormat(w*0.55, 4.2, p[0], "", 0, "R", false, 0, "")
		r.black()
		f.CellFormat(w*0.45, 4.2, p[1], "", 1, "R", false, 0, "")
	}
	f.SetY(max(leftBottom, f.GetY()) + 5)
}

func (r *renderer) parties() {
	f, d := r.f, r.d
	top := f.GetY()
	box := func(x float64, label string, p ubl.Party) float64 {
		f.SetXY(x+3, top+2.5)
		r.gray()
		r.font("B", 7.5)
		f.CellFormat(contentW/2-8, 4, strings.ToUpper(label), "", 1, "L", false, 0, "")
		r.black()
		r.font("B", 10)
		if name := cmp.Or(p.LegalName, p.Name); name != "" {
			f.SetX(x + 3)
			f.MultiCell(contentW/2-8, 5, name, "", "L", false)
		}
		r.font("", 8.5)
		lines := addressLines(p.Address)
		if id := taxIDOf(p); id != "" {
			lines = append(lines, r.l.taxID+" "+id)
		}
		if p.Contact.Email != "" {
			lines = append(lines, p.Contact.Email)
		}
		for _, line := range lines {
			f.SetX(x + 3)
			f.CellFormat(contentW/2-8, 4, line, "", 1, "L", false, 0, "")
		}
		return f.GetY()
	}
	bottom := box(margin, r.l.customer, d.Buyer)
	second := false
	if dl := d.Delivery; dl != nil && dl.Address != (ubl.Address{}) && dl.Address != d.Buyer.Address {
		bottom, second = max(bottom, box(margin+contentW/2+2, r.l.deliverTo, ubl.Party{Name: dl.PartyName, Address: dl.Address})), true
	} else if d.Payee != nil {
		bottom, second = max(bottom, box(margin+contentW/2+2, r.l.payee, *d.Payee)), true
	}
	r.rule()
	f.Rect(margin, top, contentW/2-2, bottom-top+2.5, "D")
	if second {
		f.Rect(margin+contentW/2+2, top, contentW/2-2, bottom-top+2.5, "D")
	}
	f.SetY(bottom + 6)
}

func (r *renderer) references() {
	d := r.d
	var items [][2]string
	add := func(label, v string) {
		if v != "" && v != "NA" {
			items = append(items, [2]string{label, v})
		}
	}
	add(r.l.commitment, d.AccountingCost)
	add(r.l.order, d.References.Order)
	add(r.l.contract, d.References.Contract)
	add(r.l.project, d.References.Project)
	add(r.l.buyerRef, d.BuyerReference)
	for _, p := range d.References.PrecedingInvoice {
		add(r.l.invoiceRef, strings.TrimSpace(p.Number+" "+p.IssueDate))
	}
	if len(items) == 0 {
		return
	}
	f := r.f
	r.font("", 8)
	for _, it := range items {
		r.gray()
		w := f.GetStringWidth(it[0]+": ") + 0.5
		if f.GetX()+w+f.GetStringWidth(it[1])+6 > margin+contentW {
			f.Ln(4.2)
		}
		f.CellFormat(w, 4.2, it[0]+": ", "", 0, "L", false, 0, "")
		r.black()
		f.CellFormat(f.GetStringWidth(it[1])+6, 4.2, it[1], "", 0, "L", false, 0, "")
	}
	f.Ln(7)
}

// column is one column of the lines table.
type column struct {
	title string
	w     float64
	align string
}

func (r *renderer) lineColumns() []column {
	return []column{
		{r.l.description, contentW - 17 - 12 - 24 - 17 - 14 - 26, "L"},
		{r.l.quantity, 17, "R"},
		{r.l.unit, 12, "C"},
		{r.l.price, 24, "R"},
		{r.l.discount, 17, "R"},
		{r.l.vat, 14, "R"},
		{r.l.amount, 26, "R"},
	}
}

func (r *renderer) tableHeader(cols []column) {
	f := r.f
	f.SetFillColor(238, 240, 243)
	r.font("B", 7.5)
	r.black()
	f.SetX(margin)
	for _, c := range cols {
		f.CellFormat(c.w, 6, c.title, "", 0, c.align, true, 0, "")
	}
	f.Ln(6)
}

func (r *renderer) lines() {
	f, d := r.f, r.d
	cols := r.lineColumns()
	r.tableHeader(cols)
	for i, line := range d.Lines {
		desc := line.Item.Name
		var extra []string
		if line.Item.Description != "" && line.Item.Description != line.Item.Name {
			extra = append(extra, line.Item.Description)
		}
		if line.Item.SellerID != "" {
			extra = append(extra, r.l.reference+" "+line.Item.SellerID)
		}
		if line.Note != "" {
			extra = append(extra, line.Note)
		}
		if v := line.Item.VAT; v.ExemptionReasonCode != "" || v.ExemptionReason != "" {
			extra = append(extra, strings.TrimSpace(v.ExemptionReasonCode+" "+v.ExemptionReason))
		}
		r.font("", 8)
		descLines := f.SplitText(desc, cols[0].w-1)
		r.font("", 7)
		var extraLines []string
		for _, e := range extra {
			extraLines = append(extraLines, f.SplitText(e, cols[0].w-1)...)
		}
		h := float64(len(descLines))*rowH + float64(len(extraLines))*3.6 + 1.2
		if r.ensure(h) {
			r.tableHeader(cols)
		}
		y := f.GetY()
		if i%2 == 1 {
			f.SetFillColor(250, 250, 251)
			f.Rect(margin, y, contentW, h, "F")
		}
		r.black()
		r.font("", 8)
		for j, dl := range descLines {
			f.SetXY(margin, y+float64(j)*rowH)
			f.CellFormat(cols[0].w, rowH, dl, "", 0, "L", false, 0, "")
		}
		r.gray()
		r.font("", 7)
		for j, el := range extraLines {
			f.SetXY(margin, y+float64(len(descLines))*rowH+float64(j)*3.6)
			f.CellFormat(cols[0].w, 3.6, el, "", 0, "L", false, 0, "")
		}
		r.black()
		r.font("", 8)
		discount := ""
		if line.Price.Discount != nil {
			discount = r.money(*line.Price.Discount)
		}
		for _, ac := range line.AllowancesCharges {
			sign := "-"
			if ac.Charge {
				sign = "+"
			}
			discount = strings.TrimSpace(discount + " " + sign + r.money(ac.Amount))
		}
		vals := []string{r.qty(line.Quantity), line.Unit, r.price(line.Price.Net), discount, r.rate(line.Item.VAT), r.moneyPtr(line.NetAmount)}
		f.SetXY(margin+cols[0].w, y)
		for k, v := range vals {
			f.CellFormat(cols[k+1].w, rowH, v, "", 0, cols[k+1].align, false, 0, "")
		}
		f.SetY(y + h)
	}
	r.rule()
	f.Line(margin, f.GetY(), margin+contentW, f.GetY())
	f.Ln(5)
}

func (r *renderer) breakdown() {
	f, d := r.f, r.d
	if len(d.VATBreakdown) == 0 {
		return
	}
	cols := []column{{r.l.vatRate, 30, "L"}, {r.l.taxable, 32, "R"}, {r.l.vatAmount, 28, "R"}, {r.l.exemption, contentW - 90, "L"}}
	r.ensure(6 + float64(len(d.VATBreakdown))*rowH + 4)
	r.tableHeader(cols)
	r.font("", 8)
	r.black()
	for _, b := range d.VATBreakdown {
		reason := strings.TrimSpace(b.Category.ExemptionReasonCode + " " + b.Category.ExemptionReason)
		lines := f.SplitText(reason, cols[3].w-1)
		if len(lines) == 0 {
			lines = []string{""}
		}
		h := float64(len(lines)) * rowH
		r.ensure(h)
		y := f.GetY()
		f.SetX(margin)
		f.CellFormat(cols[0].w, rowH, strings.TrimSpace(b.Category.ID+" "+r.rate(b.Category)), "", 0, "L", false, 0, "")
		f.CellFormat(cols[1].w, rowH, r.money(b.Taxable), "", 0, "R", false, 0, "")
		f.CellFormat(cols[2].w, rowH, r.money(b.Tax), "", 0, "R", false, 0, "")
		for j, line := range lines {
			f.SetXY(margin+90, y+float64(j)*rowH)
			f.CellFormat(cols[3].w, rowH, line, "", 0, "L", false, 0, "")
		}
		f.SetY(y + h)
	}
	f.Ln(4)
}

// totalsAndQRCode draws the totals on the right and the AT QR code beside them on the left.
func (r *renderer) totalsAndQRCode() {
	rows := r.totalRows()
	r.ensure(max(float64(len(rows))*5+8, qrSize+4.5) + 5)
	top := r.f.GetY()
	r.totals(rows)
	bottom := r.f.GetY()
	r.f.SetY(top)
	r.qrCode()
	r.f.SetY(max(bottom, r.f.GetY()) + 5)
}

// totalRows are the label and amount of each total before the amount payable.
func (r *renderer) totalRows() [][2]string {
	d := r.d
	t := d.Totals
	rows := [][2]string{{r.l.lineTotal, r.money(t.LineNet)}}
	if t.AllowanceTotal != nil && !t.AllowanceTotal.IsZero() {
		rows = append(rows, [2]string{r.l.allowances, "-" + r.money(*t.AllowanceTotal)})
	}
	if t.ChargeTotal != nil && !t.ChargeTotal.IsZero() {
		rows = append(rows, [2]string{r.l.charges, r.money(*t.ChargeTotal)})
	}
	rows = append(rows, [2]string{r.l.withoutVAT, r.moneyPtr(t.TaxExclusive)}, [2]string{r.l.vatTotal, r.moneyPtr(d.TaxTotal)},
		[2]string{r.l.withVAT, r.moneyPtr(t.TaxInclusive)})
	if t.Prepaid != nil && !t.Prepaid.IsZero() {
		rows = append(rows, [2]string{r.l.prepaid, "-" + r.money(*t.Prepaid)})
	}
	if t.Rounding != nil && !t.Rounding.IsZero() {
		rows = append(rows, [2]string{r.l.rounding, r.money(*t.Rounding)})
	}
	for _, w := range d.Withholdings {
		kind := ""
		if len(w.Subtotals) > 0 {
			kind = w.Subtotals[0].Category.ID
		}
		rows = append(rows, [2]string{strings.TrimSpace(r.l.withholding + " " + kind), r.money(w.Amount)})
	}
	return rows
}

// totals draws the total rows and the amount payable, right-aligned.
func (r *renderer) totals(rows [][2]string) {
	f, d, t := r.f, r.d, r.d.Totals
	x := margin + contentW - 80
	r.font("", 8.5)
	for _, row := range rows {
		f.SetX(x)
		r.gray()
		f.CellFormat(50, 5, row[0], "", 0, "R", false, 0, "")
		r.black()
		f.CellFormat(30, 5, row[1], "", 1, "R", false, 0, "")
	}
	f.SetFillColor(30, 64, 120)
	r.textColor(255, 255, 255)
	r.font("B", 10.5)
	f.SetX(x)
	f.CellFormat(50, 8, r.l.payable, "", 0, "R", true, 0, "")
	f.CellFormat(30, 8, r.money(t.Payable)+" "+d.Currency, "", 1, "R", true, 0, "")
	r.black()
}

func (r *renderer) payment() {
	d := r.d
	var lines []string
	for _, pm := range d.PaymentMeans {
		switch {
		case strings.HasPrefix(pm.Code, "#ENTITY@ATMPAYMENT#"):
			lines = append(lines, r.l.atm+": "+r.l.entity+" "+tagValue(pm.Code)+"  ·  "+r.l.reference+" "+tagValue(pm.PaymentID))
		default:
			line := r.l.meansName(pm.Code)
			if pm.PaymentID != "" {
				line += "  ·  " + r.l.reference + " " + pm.PaymentID
			}
			lines = append(lines, line)
		}
		for _, a := range pm.Accounts {
			lines = append(lines, strings.TrimSpace("IBAN "+a.ID+"  "+a.Name+"  "+a.Branch))
		}
		if pm.Card != nil {
			lines = append(lines, r.l.card+" "+maskCard(pm.Card.PrimaryAccountNumber)+"  "+pm.Card.Holder)
		}
		if pm.Mandate != nil {
			lines = append(lines, r.l.mandate+" "+pm.Mandate.ID)
		}
	}
	if d.PaymentTerms != "" {
		lines = append(lines, r.l.terms+": "+d.PaymentTerms)
	}
	r.section(r.l.payment, lines)
}

func (r *renderer) notes() {
	var lines []string
	for _, n := range r.d.Notes {
		if !strings.HasPrefix(strings.TrimSpace(n), "#") { // tagged notes carry data shown elsewhere
			lines = append(lines, n)
		}
	}
	r.section(r.l.notes, lines)
}

func (r *renderer) section(title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	f := r.f
	r.font("", 8)
	var wrapped []string
	for _, l := range lines {
		wrapped = append(wrapped, f.SplitText(l, contentW-50)...)
	}
	r.ensure(6 + float64(len(wrapped))*4.2)
	r.gray()
	r.font("B", 7.5)
	f.SetX(margin)
	f.CellFormat(contentW, 5, strings.ToUpper(title), "", 1, "L", false, 0, "")
	r.black()
	r.font("", 8)
	for _, l := range wrapped {
		f.SetX(margin)
		f.CellFormat(contentW-50, 4.2, l, "", 1, "L", false, 0, "")
	}
	f.Ln(3)
}

// qrCode draws the AT QR code (at least 30 mm, error correction M) with the ATCUD above it.
func (r *renderer) qrCode() {
	text := r.opts.QRCode
	if text == "" {
		text = embeddedQRCode(r.d)
	}
	if text == "" {
		text = ATQRCode(r.d)
	}
	code, err := qr.Encode(text, qr.M)
	if err != nil {
		return
	}
	const size = qrSize
	f := r.f
	x, y := margin, f.GetY()
	if atcud := r.d.ATCUD(); atcud != "" { // immediately above the code
		r.font("", 7.5)
		r.black()
		f.SetXY(x, y)
		f.CellFormat(size, 4, "ATCUD: "+atcud, "", 0, "L", false, 0, "")
		y += 4.5
	}
	n := code.Size
	cell := size / float64(n)
	f.SetFillColor(0, 0, 0)
	for row := 0; row < n; row++ {
		for col := 0; col < n; {
			if !code.Black(col, row) {
				col++
				continue
			}
			run := col
			for run < n && code.Black(run, row) {
				run++
			}
			f.Rect(x+float64(col)*cell, y+float64(row)*cell, float64(run-col)*cell+0.01, cell+0.01, "F")
			col = run
		}
	}
	f.SetY(y + size)
}

func (r *renderer) footer() {
	f := r.f
	bold, size, color := r.bold, r.size, r.color
	f.SetY(pageH - margin - 6)
	r.font("", 7)
	r.rule()
	f.Line(margin, f.GetY()-1, margin+contentW, f.GetY()-1)
	r.gray()
	f.SetX(margin)
	left := r.l.title(r.d) + " " + r.d.Number
	if atcud := r.d.ATCUD(); atcud != "" {
		left += "  ·  ATCUD: " + atcud // on every page (Portaria 195/2020)
	}
	f.CellFormat(contentW/2, 4, left, "", 0, "L", false, 0, "")
	f.CellFormat(contentW/2, 4, fmt.Sprintf("%s %d/{nb}", r.l.page, f.PageNo()), "", 0, "R", false, 0, "")
	// The footer runs when a table breaks the page: what was being written resumes as it was.
	r.textColor(color[0], color[1], color[2])
	r.font(map[bool]string{true: "B"}[bold], size)
}

// Formatting.

func (r *renderer) money(d decimal.Decimal) string { return r.l.number(d.StringFixed(2)) }

func (r *renderer) moneyPtr(d *decimal.Decimal) string {
	if d == nil {
		return ""
	}
	return r.money(*d)
}

func (r *renderer) price(d *decimal.Decimal) string {
	if d == nil {
		return ""
	}
	s := d.String()
	if _, frac, ok := strings.Cut(s, "."); !ok || len(frac) < 2 {
		s = d.StringFixed(2)
	}
	return r.l.number(s)
}

func (r *renderer) qty(d decimal.Decimal) string {
	if d.Equal(d.Round(0)) {
		return r.l.number(d.StringFixed(0))
	}
	return r.l.number(d.String())
}

func (r *renderer) rate(c ubl.TaxCategory) string {
	if c.Percent == nil {
		return ""
	}
	return r.l.number(strings.TrimSuffix(strings.TrimRight(c.Percent.StringFixed(2), "0"), ".")) + "%"
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func addressLines(a ubl.Address) []string {
	return nonEmpty(strings.Join(nonEmpty(a.Street, a.BuildingNumber), " "), a.AdditionalStreet, a.Line,
		strings.Join(nonEmpty(a.PostalZone, a.City), " "), strings.Join(nonEmpty(a.Subdivision, a.Country), ", "))
}

func taxIDOf(p ubl.Party) string {
	if p.VATID != "" {
		return p.VATID
	}
	if p.LegalID != nil {
		return p.LegalID.Value
	}
	return p.TaxRegistration
}

// embeddedQRCode is the AT QR code text the document carries as its QR_CODE attachment.
func embeddedQRCode(d *ubl.Document) string {
	for _, a := range d.Attachments {
		if a.Description == "QR_CODE" && a.Content != "" {
			if text, err := base64.StdEncoding.DecodeString(a.Content); err == nil {
				return strings.TrimSpace(string(text))
			}
		}
	}
	return ""
}

// tagValue is the value of a CIUS-PT tag "#NAME@SCOPE#value#".
func tagValue(s string) string {
	parts := strings.Split(strings.Trim(s, "#"), "#")
	if len(parts) >= 2 {
		return parts[1]
	}
	return s
}

func maskCard(n string) string {
	if len(n) <= 4 {
		return n
	}
	return strings.Repeat("•", 4) + " " + n[len(n)-4:]
}
