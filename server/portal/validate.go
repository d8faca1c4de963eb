package portal

import (
	"net/http"
	"path/filepath"

	"einvoice/server"
	"einvoice/server/i18n"
	"einvoice/ubl"
	"einvoice/web"

	"github.com/labstack/echo/v4"
)

// The validator page: any UBL file checked against the official rules, nothing issued or kept.

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
	data, name, err := readUpload(c, "file")
	switch codes := server.FieldCodes(err); {
	case codes == nil && err != nil:
		return err
	case codes["file"] == server.CodeBodyTooLarge:
		return p.validatePage(c, http.StatusRequestEntityTooLarge, profileName, i18n.T(lang, "validate.too_large"), nil)
	case err != nil:
		return p.validatePage(c, http.StatusBadRequest, profileName, i18n.T(lang, "validate.no_file"), nil)
	}
	r, _, err := ubl.Check(c.Request().Context(), data, profile, lang)
	if err != nil {
		return err
	}
	report := &web.ValidationReport{File: filepath.Base(name), Accepted: !r.Rejected(), Profile: string(r.Profile),
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
		report.Findings = append(report.Findings, findingRow(f))
	}
	return p.validatePage(c, http.StatusOK, profileName, "", report)
}
