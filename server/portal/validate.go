package portal

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"

	"einvoice/server/i18n"
	"einvoice/ubl"
	"einvoice/web"

	"github.com/labstack/echo/v4"
)

// The validator page: any UBL file checked against the official rules, nothing issued or kept.

// maxValidateBytes bounds the file the page reads.
const maxValidateBytes = 25 << 20

func (p *Portal) validateForm(c echo.Context) error {
	return p.validatePage(c, http.StatusOK, "auto", "", nil)
}

func (p *Portal) validatePage(c echo.Context, status int, profile, problem string, report *web.ValidationReport) error {
	lang := current(c).lang
	_, b, err := p.base(c, i18n.T(lang, "validate.title"), "/portal/validate")
	if err != nil {
		return p.noEntity(c, err)
	}
	v := &web.ValidatePage{Base: b, Error: problem, Report: report}
	for _, o := range []struct{ value, label string }{
		{"auto", i18n.T(lang, "validate.auto")}, {"cius-pt", "CIUS-PT 2.1.2"}, {"peppol-order", "PEPPOL BIS 3 Order"},
	} {
		v.Profiles = append(v.Profiles, web.Option{Value: o.value, Label: o.label, Selected: o.value == profile})
	}
	return p.render(c, status, "validate", v)
}

func (p *Portal) validate(c echo.Context) error {
	lang := current(c).lang
	profileName := c.FormValue("profile")
	profile, ok := ubl.ParseProfile(profileName)
	if !ok {
		profileName, profile = "auto", ubl.Auto
	}
	fh, err := c.FormFile("file")
	if err != nil {
		return p.validatePage(c, http.StatusBadRequest, profileName, i18n.T(lang, "validate.no_file"), nil)
	}
	f, err := fh.Open()
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxValidateBytes+1))
	if err != nil {
		return err
	}
	if len(data) > maxValidateBytes {
		return p.validatePage(c, http.StatusRequestEntityTooLarge, profileName, i18n.T(lang, "validate.too_large"), nil)
	}
	r, _, err := ubl.Check(c.Request().Context(), data, profile, lang)
	if err != nil {
		return err
	}
	report := &web.ValidationReport{File: filepath.Base(fh.Filename), Accepted: !r.Rejected(), Profile: string(r.Profile),
		Schema: r.XSDValid, Reason: r.NoVerdict}
	if r.Root != nil {
		report.Root = *r.Root
	}
	for _, f := range r.Findings {
		if f.Flag == "fatal" {
			report.Fatal++
		} else {
			report.Warnings++
		}
		report.Findings = append(report.Findings, web.FindingRow{Flag: f.Flag, Rule: f.Rule,
			Message: strings.TrimPrefix(f.Message, "["+f.Rule+"]-"), Location: f.Location})
	}
	return p.validatePage(c, http.StatusOK, profileName, "", report)
}
