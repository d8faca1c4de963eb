package portal

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"einvoice/server"
	"einvoice/server/i18n"
	"einvoice/store"
	"einvoice/web"

	"github.com/labstack/echo/v4"
)

// An entity's settings, for its administrators and the support team: one page per section, each
// form a POST that redirects back with a flash, or shows the section again with the refused fields.

// settingsSections are the sections in the order of their menu.
var settingsSections = []string{"profile", "mail", "notifications", "webhooks", "processstates", "rules", "seal", "users"}

// settingsRoutes adds the settings pages to the signed-in group.
func (p *Portal) settingsRoutes(in *echo.Group) {
	in.GET("/settings", p.settingsPage("profile"))
	for _, s := range settingsSections {
		in.GET("/settings/"+s, p.settingsPage(s))
	}
	in.POST("/settings/profile", p.setting("profile", "settings.saved", p.saveProfile))
	in.POST("/settings/mail", p.setting("mail", "settings.saved", p.saveSender))
	in.POST("/settings/notifications", p.setting("notifications", "settings.saved", p.saveNotifications))
	in.POST("/settings/webhooks", p.addWebhook)
	in.POST("/settings/webhooks/:id", p.rowAction("webhooks", "settings.webhooks.saved", p.editWebhook))
	in.POST("/settings/webhooks/:id/delete", p.rowAction("webhooks", "settings.webhooks.deleted", p.deleteWebhook))
	in.POST("/settings/webhooks/:id/test", p.rowAction("webhooks", "settings.webhooks.tested", p.testWebhook))
	in.POST("/settings/webhooks/attempts/:id/redeliver", p.rowAction("webhooks", "settings.webhooks.redelivered", p.redeliver))
	in.POST("/settings/processstates", p.setting("processstates", "settings.processstates.added", p.addProcessState))
	in.POST("/settings/processstates/delete", p.rowAction("processstates", "settings.processstates.deleted", p.deleteProcessState))
	in.POST("/settings/users", p.setting("users", "settings.users.added", p.addUser))
	in.POST("/settings/users/:username/role", p.rowAction("users", "settings.users.role_changed", p.changeRole))
	in.POST("/settings/users/:username/disable", p.rowAction("users", "settings.users.saved", p.disableUser))
}

// adminAccess is the chosen entity's access when the user administers it. Otherwise it has answered
// (the same 404 as any page that is not there) and done is true.
func (p *Portal) adminAccess(c echo.Context) (a server.Access, b web.Base, done bool, err error) {
	a, b, err = p.base(c, i18n.T(current(c).lang, "settings.title"), "/portal/settings")
	if err != nil {
		return a, b, true, p.noEntity(c, err)
	}
	if !a.CanAdmin() {
		return a, b, true, p.fail(c, http.StatusNotFound, "error.not_found")
	}
	return a, b, false, nil
}

func (p *Portal) settingsPage(section string) echo.HandlerFunc {
	return func(c echo.Context) error {
		a, b, done, err := p.adminAccess(c)
		if done {
			return err
		}
		return p.renderSettings(c, http.StatusOK, a, b, section, nil, nil, nil)
	}
}

// setting is the handler of a section's main form: one workflow call, then back to the section with a
// flash, or the section again with the form as posted and what was refused.
func (p *Portal) setting(section, ok string, do func(c echo.Context, a server.Access) error) echo.HandlerFunc {
	return p.action(section, ok, true, do)
}

// rowAction is the handler of an action on one row of a section (a webhook, a user, …): a refusal
// shows at the top of the section.
func (p *Portal) rowAction(section, ok string, do func(c echo.Context, a server.Access) error) echo.HandlerFunc {
	return p.action(section, ok, false, do)
}

func (p *Portal) action(section, ok string, onForm bool, do func(c echo.Context, a server.Access) error) echo.HandlerFunc {
	return func(c echo.Context) error {
		a, b, done, err := p.adminAccess(c)
		if done {
			return err
		}
		if err := do(c, a); err != nil {
			return p.settingRefused(c, a, b, section, onForm, err)
		}
		p.flash(c, false, ok)
		return c.Redirect(http.StatusSeeOther, "/portal/settings/"+section)
	}
}

// settingRefused shows the section again with a refusal's codes: by field on its main form (onForm,
// with the values posted), else at the top. What is not the entity's is the same 404 as elsewhere.
func (p *Portal) settingRefused(c echo.Context, a server.Access, b web.Base, section string, onForm bool, err error) error {
	codes := server.FieldCodes(err)
	if codes == nil {
		return err
	}
	if codes[""] == server.CodeNotFound {
		return p.fail(c, http.StatusNotFound, "error.not_found")
	}
	errs := fieldErrors(codes, current(c).lang)
	if !onForm {
		b.Flash = nil
		return p.renderSettings(c, http.StatusBadRequest, a, b, section, nil, nil, firstError(errs))
	}
	form, _ := c.FormParams()
	return p.renderSettings(c, http.StatusBadRequest, a, b, section, form, errs, nil)
}

// firstError is one of a refusal's reasons, the same one every time.
func firstError(errs map[string]*web.FieldError) *web.FieldError {
	keys := slices.Sorted(maps.Keys(errs))
	if len(keys) == 0 {
		return nil
	}
	return errs[keys[0]]
}

func (p *Portal) saveProfile(c echo.Context, a server.Access) error {
	f := c.FormValue
	_, err := p.wf.UpdateProfile(c.Request().Context(), a.Entity.ID, f("name"), store.Profile{
		Street: f("street"), AdditionalStreet: f("additional_street"), BuildingNumber: f("building_number"),
		PostalZone: f("postal_zone"), City: f("city"), Region: f("region"), Country: f("country"),
		ShareCapital: f("share_capital"), LegalForm: f("legal_form"), Email: f("email"), Telephone: f("telephone"),
		IBAN: f("iban"), GLN: f("gln"),
	})
	return err
}

func (p *Portal) saveSender(c echo.Context, a server.Access) error {
	_, err := p.wf.UpdateSender(c.Request().Context(), a.Entity.ID, c.FormValue("from_name"), c.FormValue("reply_to"),
		checked(c, "attach_xml"))
	return err
}

func (p *Portal) saveNotifications(c echo.Context, a server.Access) error {
	_, err := p.wf.UpdateNotifications(c.Request().Context(), a.Entity.ID, checked(c, "on_received"),
		checked(c, "on_rejected"), splitAddresses(c.FormValue("cc")))
	return err
}

// formEvents are the webhook events a form ticked.
func formEvents(c echo.Context) []string {
	form, _ := c.FormParams()
	return form["events"]
}

// addWebhook creates a webhook. A key left empty is generated, and the page that answers shows it
// this once: it is kept encrypted and never shown again.
func (p *Portal) addWebhook(c echo.Context) error {
	a, b, done, err := p.adminAccess(c)
	if done {
		return err
	}
	key := strings.TrimSpace(c.FormValue("key"))
	hook, err := p.wf.AddEntityWebhook(c.Request().Context(), a.Entity.ID, strings.TrimSpace(c.FormValue("url")), key, formEvents(c))
	if err != nil {
		return p.settingRefused(c, a, b, "webhooks", true, err)
	}
	if key != "" {
		p.flash(c, false, "settings.webhooks.added")
		return c.Redirect(http.StatusSeeOther, "/portal/settings/webhooks")
	}
	b.Flash = &web.Flash{Key: "settings.webhooks.key_once", Text: i18n.T(current(c).lang, "settings.webhooks.key_once", hook.Key)}
	return p.renderSettings(c, http.StatusOK, a, b, "webhooks", nil, nil, nil)
}

func (p *Portal) editWebhook(c echo.Context, a server.Access) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	_, err = p.wf.UpdateWebhook(c.Request().Context(), a.Entity.ID, id, strings.TrimSpace(c.FormValue("url")),
		strings.TrimSpace(c.FormValue("key")), formEvents(c))
	return err
}

func (p *Portal) deleteWebhook(c echo.Context, a server.Access) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	return p.wf.DeleteEntityWebhook(c.Request().Context(), a.Entity.ID, id)
}

func (p *Portal) testWebhook(c echo.Context, a server.Access) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	return p.wf.TestWebhook(c.Request().Context(), a.Entity.ID, id)
}

func (p *Portal) redeliver(c echo.Context, a server.Access) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	return p.wf.RedeliverWebhook(c.Request().Context(), a.Entity.ID, id)
}

func (p *Portal) addProcessState(c echo.Context, a server.Access) error {
	_, err := p.wf.AddEntityProcessState(c.Request().Context(), store.ProcessState{EntityID: a.Entity.ID, Code: c.FormValue("code"),
		Name: c.FormValue("name"), Description: c.FormValue("description")})
	return err
}

func (p *Portal) deleteProcessState(c echo.Context, a server.Access) error {
	return p.wf.DeleteProcessState(c.Request().Context(), a.Entity.ID, c.FormValue("code"))
}

func (p *Portal) addUser(c echo.Context, a server.Access) error {
	_, err := p.wf.AddEntityUser(c.Request().Context(), a.Entity.ID, c.FormValue("username"), c.FormValue("role"), c.FormValue("password"))
	return err
}

func (p *Portal) changeRole(c echo.Context, a server.Access) error {
	_, err := p.wf.SetEntityUserRole(c.Request().Context(), a.Entity.ID, a.User.ID, c.Param("username"), c.FormValue("role"))
	return err
}

func (p *Portal) disableUser(c echo.Context, a server.Access) error {
	_, err := p.wf.SetEntityUserDisabled(c.Request().Context(), a.Entity.ID, a.User.ID, c.Param("username"), c.FormValue("disabled") != "0")
	return err
}

// renderSettings writes a section: from the stored settings, or with the values a refused form posted
// and the reasons by field, or with a refused action's reason at the top.
func (p *Portal) renderSettings(c echo.Context, status int, a server.Access, b web.Base, section string, posted url.Values,
	errs map[string]*web.FieldError, refused *web.FieldError) error {
	lang := current(c).lang
	s, err := p.wf.Settings(c.Request().Context(), a.Entity.ID)
	if err != nil {
		return err
	}
	v := &web.SettingsPage{Base: b, Section: section, Intro: i18n.T(lang, "settings."+section+".intro"), Error: refused}
	for _, name := range settingsSections {
		href := "/portal/settings/" + name
		v.Sections = append(v.Sections, web.NavLink{Href: href, Label: i18n.T(lang, "settings."+name), Current: name == section})
	}
	v.Title = i18n.T(lang, "settings.title") + " · " + i18n.T(lang, "settings."+section)
	fb := formBuilder{lang: lang, posted: posted, errs: errs}
	switch section {
	case "profile":
		v.Forms = []web.Form{profileForm(fb, s)}
	case "mail":
		m := s.Entity.Mail
		v.Forms = []web.Form{fb.form("mail", "", "/portal/settings/mail", "settings.save",
			fb.field("from_name", "text", m.FromName, false), fb.field("reply_to", "email", m.ReplyTo, false),
			fb.check("attach_xml", m.AttachXML))}
		v.Forms[0].Fields[0].Hint = i18n.T(lang, "settings.mail.from_hint", senderAddress(s.Entity))
	case "notifications":
		n := s.Notifications
		v.Forms = []web.Form{fb.form("notifications", "", "/portal/settings/notifications", "settings.save",
			fb.check("on_received", n.OnReceived), fb.check("on_rejected", n.OnRejected),
			fb.field("cc", "textarea", strings.Join(n.CC, "\n"), false))}
		v.Forms[0].Fields[2].Hint = noticeReaders(s.Users, lang)
	case "webhooks":
		webhooksSection(v, fb, s)
	case "processstates":
		v.Forms = []web.Form{fb.form("add-state", "settings.processstates.add", "/portal/settings/processstates", "settings.add",
			fb.field("code", "text", "", true), fb.field("name", "text", "", true), fb.field("description", "text", "", false))}
		for _, ps := range s.ProcessStates {
			v.ProcessStates = append(v.ProcessStates, web.ProcessStateRow{Code: ps.Code, Name: ps.Name, Description: ps.Description})
		}
	case "rules":
		for _, r := range s.RecipientRules {
			v.Rules = append(v.Rules, i18n.T(lang, "settings.rules."+r))
		}
	case "seal":
		v.Seal = sealBlock(s.Seal, time.Now())
	case "users":
		usersSection(v, fb, s, a.User.ID)
	}
	if v.Error == nil {
		v.Error = firstError(unshown(v.Forms, errs))
	}
	return p.render(c, status, "settings", v)
}

func profileForm(fb formBuilder, s server.EntitySettings) web.Form {
	pr := s.Profile
	f := fb.form("profile", "", "/portal/settings/profile", "settings.save",
		fb.field("name", "text", s.Entity.Name, true),
		fb.field("street", "text", pr.Street, false), fb.field("additional_street", "text", pr.AdditionalStreet, false),
		fb.field("building_number", "text", pr.BuildingNumber, false), fb.field("postal_zone", "text", pr.PostalZone, false),
		fb.field("city", "text", pr.City, false), fb.field("region", "text", pr.Region, false),
		fb.field("country", "text", pr.Country, false), fb.field("share_capital", "text", pr.ShareCapital, false),
		fb.field("legal_form", "text", pr.LegalForm, false), fb.field("email", "email", pr.Email, false),
		fb.field("telephone", "tel", pr.Telephone, false), fb.field("iban", "text", pr.IBAN, false),
		fb.field("gln", "text", pr.GLN, false))
	for i := range f.Fields {
		if key := "settings.profile." + f.Fields[i].Name + "_hint"; i18n.Has(key) {
			f.Fields[i].Hint = i18n.T(fb.lang, key)
		}
	}
	return f
}

// noticeReaders says which of the entity's users the notices go to: the enabled ones whose username
// is an e-mail address.
func noticeReaders(users []store.User, lang string) string {
	var to []string
	for _, u := range users {
		if !u.Disabled && strings.Contains(u.Username, "@") {
			to = append(to, u.Username)
		}
	}
	if len(to) == 0 {
		return i18n.T(lang, "settings.notifications.nobody")
	}
	return i18n.T(lang, "settings.notifications.to", strings.Join(to, ", "))
}

// senderAddress is the From address of the entity's e-mails as the support team set it; empty means
// the installation's.
func senderAddress(e store.Entity) string {
	if e.Mail.FromAddress == "" {
		return "—"
	}
	return e.Mail.FromAddress
}

func webhooksSection(v *web.SettingsPage, fb formBuilder, s server.EntitySettings) {
	events := func(selected []string) []web.Option {
		var out []web.Option
		for _, ev := range server.WebhookEvents {
			out = append(out, web.Option{Value: ev, Label: ev, Selected: slices.Contains(selected, ev)})
		}
		return out
	}
	add := fb.form("add-webhook", "settings.webhooks.add", "/portal/settings/webhooks", "settings.add",
		fb.field("url", "url", "", true), fb.field("key", "password", "", false))
	picked := server.WebhookEvents
	if fb.posted != nil {
		picked = fb.posted["events"]
	}
	add.Fields = append(add.Fields, fb.choices("events", events(picked)))
	add.Fields[1].Hint = i18n.T(fb.lang, "settings.webhooks.key_hint")
	v.Forms = []web.Form{add}
	stored := formBuilder{lang: fb.lang}
	for _, h := range s.Webhooks {
		id := strconv.FormatInt(h.ID, 10)
		edit := stored.form("webhook-"+id, "", "/portal/settings/webhooks/"+id, "settings.save",
			stored.field("url", "url", h.URL, true), stored.field("key", "password", "", false), stored.choices("events", events(h.Events)))
		edit.Fields[1].Hint = i18n.T(fb.lang, "settings.webhooks.key_keep")
		v.Webhooks = append(v.Webhooks, web.WebhookRow{ID: id, URL: h.URL, Events: strings.Join(h.Events, ", "), Created: when(h.CreatedAt), Edit: edit})
	}
	for _, d := range s.Deliveries {
		row := web.DeliveryRow{ID: strconv.FormatInt(d.ID, 10), When: when(d.CreatedAt), Event: d.Event, URL: d.URL, Attempt: d.Attempt,
			Status: "—", OK: d.Error == "", Latency: strconv.FormatInt(d.LatencyMS, 10) + " ms", Error: d.Error}
		if d.StatusCode != 0 {
			row.Status = strconv.Itoa(d.StatusCode)
		}
		v.Deliveries = append(v.Deliveries, row)
	}
}

func usersSection(v *web.SettingsPage, fb formBuilder, s server.EntitySettings, self int64) {
	roles := func(selected string) []web.Option {
		var out []web.Option
		for _, r := range []string{store.RoleAdmin, store.RoleOperator, store.RoleViewer} {
			out = append(out, web.Option{Value: r, Label: i18n.T(fb.lang, "role."+r), Selected: r == selected})
		}
		return out
	}
	role := fb.value("role", store.RoleViewer)
	add := fb.form("add-user", "settings.users.add", "/portal/settings/users", "settings.add",
		fb.field("username", "text", "", true), web.FormField{Name: "role", Type: "select", Label: i18n.T(fb.lang, "settings.users.role"),
			Options: roles(role), Error: fb.errs["role"]}, fb.field("password", "password", "", true))
	add.Fields[0].Hint = i18n.T(fb.lang, "settings.users.username_hint")
	v.Forms = []web.Form{add}
	for _, u := range s.Users {
		row := web.UserRow{Username: u.Username, Disabled: u.Disabled, Self: u.ID == self, Others: len(u.Memberships) > 1}
		for _, m := range u.Memberships {
			if m.EntityID == s.Entity.ID {
				row.Role, row.Roles = m.Role, roles(m.Role)
			}
		}
		v.Users = append(v.Users, row)
	}
}

// sealBlock describes a seal at now.
func sealBlock(seal *store.Seal, now time.Time) *web.SealBlock {
	if seal == nil {
		return &web.SealBlock{Missing: true}
	}
	b := &web.SealBlock{Subject: seal.Subject, Issuer: seal.Issuer, Serial: seal.Serial, NotBefore: when(seal.NotBefore), NotAfter: when(seal.NotAfter)}
	if end, err := time.Parse(time.RFC3339, seal.NotAfter); err == nil {
		left := end.Sub(now)
		b.DaysLeft = int(left.Hours() / 24)
		b.Expired, b.ExpiresSoon = left <= 0, left > 0 && left < sealWarning
	}
	return b
}

// unshown are the reasons no field of the forms shows.
func unshown(forms []web.Form, errs map[string]*web.FieldError) map[string]*web.FieldError {
	out := map[string]*web.FieldError{}
	for field, e := range errs {
		shown := slices.ContainsFunc(forms, func(f web.Form) bool {
			return slices.ContainsFunc(f.Fields, func(ff web.FormField) bool { return ff.Name == field })
		})
		if !shown {
			out[field] = e
		}
	}
	return out
}

// when writes a stored timestamp as date and minutes.
func when(ts string) string {
	ts = strings.Replace(ts, "T", " ", 1)
	if len(ts) > 16 {
		return ts[:16]
	}
	return ts
}

// formBuilder makes a section's form fields: labelled from the catalogue, with the values a refused
// form posted (else the stored ones) and the refusals' reasons.
type formBuilder struct {
	lang   string
	posted url.Values
	errs   map[string]*web.FieldError
}

func (fb formBuilder) value(name, stored string) string {
	if fb.posted != nil {
		return fb.posted.Get(name)
	}
	return stored
}

func (fb formBuilder) field(name, typ, stored string, required bool) web.FormField {
	v := fb.value(name, stored)
	if typ == "password" {
		v = ""
	}
	return web.FormField{Name: name, Type: typ, Label: i18n.T(fb.lang, "settings.field."+name), Value: v, Required: required, Error: fb.errs[name]}
}

func (fb formBuilder) check(name string, stored bool) web.FormField {
	on := stored
	if fb.posted != nil {
		on = fb.posted.Get(name) == "1"
	}
	return web.FormField{Name: name, Type: "checkbox", Label: i18n.T(fb.lang, "settings.field."+name), Checked: on, Error: fb.errs[name]}
}

func (fb formBuilder) choices(name string, options []web.Option) web.FormField {
	return web.FormField{Name: name, Type: "checkboxes", Label: i18n.T(fb.lang, "settings.field."+name), Options: options, Error: fb.errs[name]}
}

func (fb formBuilder) form(id, title, action, submit string, fields ...web.FormField) web.Form {
	f := web.Form{ID: id, Action: action, Submit: i18n.T(fb.lang, submit), Fields: fields}
	if title != "" {
		f.Title = i18n.T(fb.lang, title)
	}
	return f
}
